import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The scan cache a walk keeps (`WalkScan`, for the iPhone lens) against tshark's decoding of the
/// lab walk's recording: every entry's BSSID, frequency, signal and age as tshark reads them, and
/// the replayed walk's reads of the cache are dumps of the recording, entry for entry, each
/// stamped with the time of the sample that made it.
struct WalkScanOracleTests {
    let recording = TestPaths.fixtures.appendingPathComponent("lab-walk/nl80211.pcap").path

    func line(_ b: WalkBSS) -> String {
        "\(b.bssid) \(b.freqMhz.map(String.init) ?? "-") \(b.signalDbm.map { String(Int(($0 * 100).rounded())) } ?? "-") \(b.ageMs.map { String(Int($0)) } ?? "-")"
    }

    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func scanEntriesAsTsharkDecodesThemAndTheWalksReadsAreDumpsOfTheRecording() throws {
        let oracle = try run(
            "/usr/bin/python3", [TestPaths.root.appendingPathComponent("Tests/oracle/nl80211-scan.py").path, TestPaths.which("tshark")!, recording])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        let theirs = oracle.stdout.split(separator: "\n").map(String.init)
        var ours: [String] = []
        var frame = 0
        _ = try PcapFile(path: recording).forEachRecord { r in
            frame += 1
            guard let p = NetlinkRecord.parse(r.bytes) else { return true }
            try? Netlink.forEachMessage(p.messages) { m in
                if case .scanBSS(_, let b) = NL80211.decode(m) { ours.append("\(frame) " + line(WalkBSS(b))) }
            }
            return true
        }
        #expect(theirs.count == 16 && ours == theirs, "\(ours)\n\(theirs)")
        // The walk's own reads: each is one dump of the recording (its frame's entries).
        let o = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        let t = try WalkRunner.replay(
            directory: TestPaths.fixtures.appendingPathComponent("lab-walk").path, settings: WalkSettings(interface: "", heartbeat: o))
        var dumps: [String: [String]] = [:]
        for l in theirs { dumps[String(l.split(separator: " ")[0]), default: []].append(String(l.split(separator: " ", maxSplits: 1)[1])) }
        #expect(t.scans.count == 4, "one read every 20 samples of 78")
        for s in t.scans {
            #expect(dumps.values.contains { $0.sorted() == s.entries.map(line).sorted() }, "\(s.entries.map(line))")
        }
        #expect(t.scans.map(\.timeNs) == t.scans.map(\.timeNs).sorted() && t.scans.allSatisfy { $0.timeNs >= t.startNs && $0.timeNs <= t.endNs })
        // A read belongs to the sample that made it, and is stamped with that sample's time (the
        // dump's answer came a few milliseconds later): the sample sees its own read.
        let sampled = Set(t.samples.map(\.timeNs))
        #expect(t.scans.allSatisfy { sampled.contains($0.timeNs) }, "\(t.scans.map(\.timeNs))")
    }
}
