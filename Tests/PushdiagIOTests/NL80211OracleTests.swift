import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// nl80211 decoding checked against tshark's own dissector on the lab's real kernel replies and
/// events: what the walk reads of a station (signal average, transmit rate) and of an
/// authentication (the algorithm that says 802.11r).
struct NL80211OracleTests {
    /// Every nl80211 message of a recording, with its frame number.
    func messages(_ name: String) throws -> [(frame: Int, event: NL80211.Event)] {
        let file = try PcapFile(path: TestPaths.fixtures.appendingPathComponent(name).path)
        var out: [(Int, NL80211.Event)] = []
        var frame = 0
        _ = try file.forEachRecord { r in
            frame += 1
            guard let p = NetlinkRecord.parse(r.bytes) else { return true }
            try? Netlink.forEachMessage(p.messages) { m in
                if let e = NL80211.decode(m) { out.append((frame, e)) }
            }
            return true
        }
        return out
    }

    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func stationSignalAverageAndRateAsTsharkDecodesThem() throws {
        let oracle = try run(
            "/usr/bin/python3",
            [
                TestPaths.root.appendingPathComponent("Tests/oracle/nl80211-station.py").path, TestPaths.which("tshark")!,
                TestPaths.fixtures.appendingPathComponent("lab-wifi.pcap").path,
            ])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        let theirs = oracle.stdout.split(separator: "\n").map(String.init)
        let ours = try messages("lab-wifi.pcap").compactMap { m -> String? in
            guard case .station(let s) = m.event else { return nil }
            return "\(m.frame) \(s.signalAverage.map(String.init) ?? "-") \(s.txBitrateMbps.map { String(Int(($0 * 10).rounded())) } ?? "-")"
        }
        #expect(!theirs.isEmpty && ours == theirs)
    }

    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func authenticationAlgorithmTransactionAndStatusAsTsharkDecodesThem() throws {
        let path = TestPaths.fixtures.appendingPathComponent("lab-watch-roams.pcap").path
        let oracle = try run(
            TestPaths.which("tshark")!,
            [
                "-n", "-r", path, "-Y", "nl80211.cmd == 37", "-T", "fields", "-e", "frame.number", "-e", "wlan.bssid", "-e", "wlan.fixed.auth.alg", "-e",
                "wlan.fixed.auth_seq", "-e", "wlan.fixed.status_code",
            ])
        let theirs = oracle.stdout.split(separator: "\n").map { $0.split(separator: "\t").joined(separator: " ") }
        let ours = try messages("lab-watch-roams.pcap").compactMap { m -> String? in
            guard case .authenticate(_, let bssid, let alg, let status, let seq) = m.event else { return nil }
            let hex = { (v: UInt16?) in v.map { String(format: "0x%04x", $0) } ?? "-" }
            return "\(m.frame) \(bssid?.description ?? "-") \(alg.map(String.init) ?? "-") \(hex(seq)) \(hex(status))"
        }
        #expect(theirs.count == 2 && ours == theirs)
    }
}
