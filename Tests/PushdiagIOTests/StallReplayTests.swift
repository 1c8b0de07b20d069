import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The stalls of replayed recordings, pushdiag's own and nlmon's, through the same code as a live
/// run: the TRIGGER_SCAN events pushdiag counts equal tshark's, and a replay gives the same stalls
/// twice.
struct StallReplayTests {
    /// tshark's TRIGGER_SCAN notifications (not requests) of `pcap`; nlmon's copies of one
    /// multicast message (one per socket that gets it, within microseconds) counted once.
    static func tsharkTriggerScans(_ pcap: String) throws -> Int {
        let r = try run(
            TestPaths.which("tshark")!,
            ["-n", "-r", pcap, "-Y", "nl80211.cmd == 33 && netlink.hdr_flags.request == 0", "-T", "fields", "-e", "frame.time_epoch"])
        #expect(r.status == 0, "\(r.stderr)")
        var count = 0
        var last = -Double.infinity
        for t in r.stdout.split(separator: "\n").compactMap({ Double($0) }) {
            if t - last > 0.01 { count += 1 }
            last = t
        }
        return count
    }

    static let walks = ["lab-walk", "walk-ft-deauth", "walk-ft-failed-keys", "walk-strong-weak-ap"]

    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"), arguments: walks)
    func aWalksScansAreTsharksAndItsStallsReplayTheSame(name: String) throws {
        let dir = TestPaths.fixtures.appendingPathComponent(name).path
        let theirs = try Self.tsharkTriggerScans(dir + "/nl80211.pcap")
        let o = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        let first = WalkReport.assemble(try WalkRunner.replay(directory: dir, settings: WalkSettings(interface: "", heartbeat: o)))
        let again = WalkReport.assemble(try WalkRunner.replay(directory: dir, settings: WalkSettings(interface: "", heartbeat: o)))
        #expect(theirs == 4 && first.stallSummary.scansSeen == theirs, "tshark \(theirs), pushdiag \(first.stallSummary.scansSeen)")
        #expect(first.stalls == again.stalls && first.stallSummary == again.stallSummary)
        // Every lost heartbeat is a stall, and the causes add up.
        #expect(first.stalls.filter(\.lost).count == first.connection.heartbeatsLost)
        #expect(first.stallSummary.byCause.map(\.count).reduce(0, +) == first.stalls.count)
    }

    /// The channels each completed scan covered (NEW_SCAN_RESULTS' NL80211_ATTR_SCAN_FREQUENCIES,
    /// the iPhone lens's evidence of where a scan looked) are the ones tshark decodes from the
    /// same notifications, in order.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"), arguments: walks)
    func aWalksCompletedScansCoverTsharksChannels(name: String) throws {
        let dir = TestPaths.fixtures.appendingPathComponent(name).path
        let r = try run(
            TestPaths.which("tshark")!, ["-n", "-r", dir + "/nl80211.pcap", "-Y", "nl80211.cmd == 34 && netlink.hdr_flags.request == 0", "-T", "pdml"])
        #expect(r.status == 0, "\(r.stderr)")
        // Each notification's attribute, header and nested u32s as hex: 8 bytes a channel.
        var theirs: [[Int]] = []
        // A dump of the scan cache answers with the same command, a BSS a message: not a scan.
        for packet in r.stdout.components(separatedBy: "<packet>").dropFirst() where !packet.contains("show=\"Attribute: NL80211_ATTR_BSS\"") {
            guard let line = packet.split(separator: "\n").first(where: { $0.contains("show=\"Attribute: NL80211_ATTR_SCAN_FREQUENCIES\"") }),
                let hex = line.components(separatedBy: "value=\"").last?.prefix(while: { $0 != "\"" })
            else {
                theirs.append([])
                continue
            }
            let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { i -> UInt8? in
                let a = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[a..<hex.index(a, offsetBy: 2)], radix: 16)
            }
            theirs.append(
                stride(from: 4, to: bytes.count - 7, by: 8).map { o in
                    Int(bytes[o + 4]) | Int(bytes[o + 5]) << 8 | Int(bytes[o + 6]) << 16 | Int(bytes[o + 7]) << 24
                })
        }
        let o = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        let t = try WalkRunner.replay(directory: dir, settings: WalkSettings(interface: "", heartbeat: o))
        let ours = t.activity?.completedScans.map(\.frequenciesMhz) ?? []
        #expect(!theirs.isEmpty && theirs.allSatisfy { !$0.isEmpty } && ours == theirs, "tshark \(theirs), pushdiag \(ours)")
    }

    /// wpa_supplicant's scan in an nlmon capture (its request, then nlmon's three copies of the
    /// notification): one scan, as tshark has one notification, spanning to its results.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func anNlmonCapturesScanIsOneScan() throws {
        let pcap = TestPaths.fixtures.appendingPathComponent("lab-nlmon-wpa/nlmon.pcap").path
        let transport = try ReplayNetlink(path: pcap, protocol: Netlink.protocolGeneric)
        let watcher = try RoamWatcher(client: try NL80211Client(transport: transport), transport: transport, interface: "wlan2", roamWindowSeconds: 10)
        var log = LinkActivityLog(ifindex: try #require(watcher.only))
        watcher.onEvent = { time, e in log.add(e, at: time) }
        _ = try watcher.run(limitSeconds: nil, stop: { false }, emit: { _ in })
        let theirs = try Self.tsharkTriggerScans(pcap)
        #expect(theirs == 1 && log.scansStarted == theirs)
        let scans = log.finished(at: watcher.end).filter { $0.cause == .ownScan }
        // tshark: TRIGGER_SCAN at 1795629188.6298, NEW_SCAN_RESULTS at 1795629192.3754.
        #expect(scans.count == 1 && scans.first.map { abs(Double($0.endNs - $0.startNs) / 1e6 - 3745.6) < 1 } == true, "\(scans)")
    }
}
