import Foundation
import PushdiagCore
import TestSupport
import Testing

/// #26: recordings of tools that ask about one object at a time (`iw dev IF info`, `station get`,
/// wpa_supplicant alone) replay in wifi, survey, doctor and watch: pushdiag's dumps are answered
/// from the per-object answers about the interface at hand, and the output says so. Made in the
/// lab (Tests/lab/nlmon-objects.sh) with the tools' printed outputs as the oracle; run on the
/// fixtures here and on each lab run's fresh recordings in LabTests.
extension NetlinkReplayTests {
    static let perObjectNote = "the recording held per-object answers only"

    /// "FREQUENCY=2412" → ["FREQUENCY": "2412"] (wpa_cli signal_poll).
    static func keyValues(_ t: String) -> [String: String] {
        Dictionary(t.split(separator: "\n").compactMap { l in l.firstIndex(of: "=").map { (String(l[..<$0]), String(l[l.index(after: $0)...])) } }) { a, _ in a
        }
    }

    /// "channel 1 (2412 MHz), …" in iw's info → 2412.
    static func infoFrequency(_ t: String) -> Int? {
        guard let line = t.split(separator: "\n").first(where: { $0.contains("channel ") }), let open = line.firstIndex(of: "(") else { return nil }
        return Int(line[line.index(after: open)...].prefix { $0.isNumber })
    }

    /// iw dev wlan2 info, survey dump and station get, twice with frames between, then iw dev
    /// wlan2 link: every number equals iw's second round.
    static func checkIwPerObjectReplay(_ dir: URL) throws {
        func text(_ name: String) throws -> String { try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) }
        let pcap = dir.appendingPathComponent("nlmon.pcap").path
        let (j, percent, judged) = try replayedWifiEqualsIw(dir)
        #expect((j["notes"] as? [String] ?? []).contains { $0.hasPrefix(perObjectNote) }, "\(j["notes"] ?? "")")
        #expect(j["frequency_mhz"] as? Int == infoFrequency(try text("info-2.txt")), "\(j["frequency_mhz"] ?? "nil")")
        let station = try #require((j["stations"] as? [[String: Any]])?.first)
        #expect(station["mac"] as? String == (try text("bssid.txt")).trimmingCharacters(in: .whitespacesAndNewlines))
        // Without --interface: the only interface the recording asks about.
        let only = try pushdiag("wifi", "--replay", pcap, "--format", "json")
        let onlyPercent = try json(only.stdout)["retransmission_percent"] as? Double
        #expect(only.status == (judged ? 0 : 3) && onlyPercent == percent, "\(only.stderr)")

        // survey and doctor take the same answers.
        try surveyAgrees(pcap, percent: percent, judged: judged)
        let d = try pushdiag("doctor", "--replay", pcap, "--interface", "wlan2", "--format", "json")
        let doctor = try #require((try json(d.stdout)["interfaces"] as? [[String: Any]])?.first, "\(d.stderr)")
        let addr = try text("info.txt").split(separator: "\n").first { $0.contains("addr ") }?.split(separator: " ").last.map(String.init)
        #expect(doctor["name"] as? String == "wlan2" && doctor["mac"] as? String == addr && doctor["type"] as? String == "managed", "\(doctor)")
        let sources = (doctor["checks"] as? [[String: Any]] ?? []).compactMap { $0["source"] as? String }
        #expect(sources.contains("station_retries") && (doctor["notes"] as? [String] ?? []).contains { $0.hasPrefix(perObjectNote) }, "\(doctor)")

        // watch: no roams in this recording, and none made up.
        let w = try pushdiag("watch", "--replay", pcap, "--interface", "wlan2", "--format", "jsonl")
        let last = try json(String(try #require(w.stdout.split(separator: "\n").last)))
        #expect(w.status == 0 && last["event"] as? String == "summary" && last["roams"] as? Int == 0, "\(w.stdout) \(w.stderr)")

        // Asked about another interface than iw was: one line naming both.
        let other = try pushdiag("wifi", "--replay", pcap, "--interface", "wlan0")
        let line = other.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(other.status == 3 && !line.contains("\n") && line.contains("about wlan2 (ifindex 4), not about wlan0"), "\(line)")
    }

    /// wpa_supplicant alone, restarted while nlmon captured (it resolves nl80211, dumps its
    /// radio, scans, connects), a signal poll, a roam there and back, a signal poll: its questions
    /// about its own interface, AP and radio answer pushdiag's dumps.
    static func checkWpaSupplicantReplay(_ dir: URL) throws {
        func text(_ name: String) throws -> String { try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) }
        let pcap = dir.appendingPathComponent("nlmon.pcap").path
        let bssids = try text("roams.txt").split(whereSeparator: \.isWhitespace).map(String.init)
        let polls = [try keyValues(text("signal-poll-1.txt")), try keyValues(text("signal-poll-2.txt"))]
        let wifi = try pushdiag("wifi", "--replay", pcap, "--interface", "wlan2", "--format", "json")
        let j = try json(wifi.stdout)
        #expect((j["notes"] as? [String] ?? []).contains { $0.hasPrefix(perObjectNote) }, "\(wifi.stdout) \(wifi.stderr)")
        // What wpa_supplicant's signal polls printed, from the answers it got.
        #expect(polls.map { Int($0["FREQUENCY"] ?? "") }.contains(j["frequency_mhz"] as? Int), "\(j["frequency_mhz"] ?? "nil") vs \(polls)")
        let station = try #require((j["stations"] as? [[String: Any]])?.first, "\(wifi.stdout)")
        #expect(station["mac"] as? String == bssids.first && j["bssid"] as? String == bssids.first)
        #expect(polls.map { Int($0["RSSI"] ?? "") }.contains(station["signal_dbm"] as? Int), "\(station) vs \(polls)")

        // doctor: the radio wpa_supplicant dumped is wlan2's, as iw dev names it.
        let d = try pushdiag("doctor", "--replay", pcap, "--interface", "wlan2", "--format", "json")
        let doctor = try #require((try json(d.stdout)["interfaces"] as? [[String: Any]])?.first, "\(d.stderr)")
        let dev = try #require(LabTests.iwDev(try text("dev.txt"))["wlan2"])
        #expect(doctor["phy"] as? String == dev.phy && doctor["mac"] as? String == dev.addr, "\(doctor)")
        #expect((doctor["interface_types"] as? [String] ?? []).contains("managed"), "\(doctor)")

        // watch: the roam back is a roam; the roam there follows the restart, whose association
        // nlmon did not show (it went to wpa_supplicant's socket alone), so it begins with a
        // connect. Either way the APs in the order wpa_supplicant went to them.
        let w = try pushdiag("watch", "--replay", pcap, "--interface", "wlan2", "--format", "jsonl")
        #expect(w.status == 0, "\(w.stderr)")
        let events = try w.stdout.split(separator: "\n").map { try json(String($0)) }
        let joined = events.filter { ["connect", "roam"].contains($0["event"] as? String) }.compactMap { $0["bssid"] as? String }
        #expect(Array(joined.suffix(2)) == Array(bssids.dropFirst()), "\(w.stdout)")
        #expect(events.last?["roams"] as? Int ?? 0 >= 1, "\(w.stdout)")

        // Without --interface: wpa_supplicant asked about wlan2 and its P2P device; one line.
        let any = try pushdiag("wifi", "--replay", pcap)
        let line = any.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(any.status == 3 && !line.contains("\n") && line.contains("wlan2 (ifindex 4)") && line.hasSuffix("name one with --interface"), "\(line)")
    }

    @Test func iwPerObjectAnswersReplay() throws {
        try Self.checkIwPerObjectReplay(TestPaths.fixtures.appendingPathComponent("lab-nlmon-iw-object"))
    }

    @Test func wpaSupplicantAloneReplays() throws {
        try Self.checkWpaSupplicantReplay(TestPaths.fixtures.appendingPathComponent("lab-nlmon-wpa"))
    }
}
