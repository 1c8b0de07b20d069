import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag join` as users run it, outside the lab: every bad option and a missing or
/// non-wireless interface give one line naming it on stderr and exit 3, before anything is kicked. The
/// rejoin itself needs wpa_supplicant and a Wi-Fi interface: the lab's.
@Suite struct JoinCommandTests {
    static func expectOneLine(_ arguments: [String], saying words: String) throws {
        let r = try pushdiag(arguments)
        #expect(r.status == 3, "\(arguments): \(r.status) \(r.stderr)")
        // The error is its first line (argument-parser's usage lines follow a usage error).
        let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(words), "\(arguments): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func badOptionsAreOneLineAndExit3() throws {
        try Self.expectOneLine(["join", "127.0.0.1:5223"], saying: "--interface")
        try Self.expectOneLine(["join", "--interface", "lo"], saying: "push server")
        try Self.expectOneLine(["join", "--interface", "nosuch0", "127.0.0.1:5223"], saying: "nosuch0: no such interface")
        try Self.expectOneLine(["join", "--interface", "lo", "--count", "0", "127.0.0.1:5223"], saying: "--count")
        try Self.expectOneLine(["join", "--interface", "lo", "--kick", "nm", "127.0.0.1:5223"], saying: "--kick")
        // --manager is --kick's other name: the same values, the same refusal.
        try Self.expectOneLine(["join", "--interface", "lo", "--manager", "connman", "127.0.0.1:5223"], saying: "--manager")
        try Self.expectOneLine(["join", "--interface", "lo", "--cycle-timeout", "soon", "127.0.0.1:5223"], saying: "--cycle-timeout")
        // One connection and one heartbeat a cycle: heartbeat's reconnect flags are not join's.
        try Self.expectOneLine(["join", "--interface", "lo", "--misses", "5", "127.0.0.1:5223"], saying: "Unknown option '--misses'")
        try Self.expectOneLine(["join", "--interface", "lo", "--reconnect-schedule", "1,2", "127.0.0.1:5223"], saying: "Unknown option '--reconnect-schedule'")
        try Self.expectOneLine(["join", "--interface", "lo", "--push-ready-warning", "garbage", "127.0.0.1:5223"], saying: "--push-ready-warning")
        try Self.expectOneLine(
            ["join", "--interface", "lo", "--join-name-warning", "9000", "127.0.0.1:5223"],
            saying: "--join-name-warning (9000) must not be above --join-name-critical")
        // --find-ap-idle's options: alone, or with values no ladder takes.
        for (extra, said) in [
            (["--ladder", "10s"], "go with --find-ap-idle"), (["--idle-timeout", "5m"], "go with --find-ap-idle"),
            (["--find-ap-idle", "--ladder", "10s,,20s"], "--ladder"), (["--find-ap-idle", "--ladder", "-5s"], "--ladder"),
            (["--find-ap-idle", "--max", "never"], "--max"), (["--find-ap-idle", "--idle-timeout", "0"], "--idle-timeout"),
            (["--find-ap-idle", "--ladder", Array(repeating: "1s", count: 65).joined(separator: ",")], "at most 64"),
        ] {
            try Self.expectOneLine(["join", "--interface", "lo"] + extra + ["127.0.0.1:5223"], saying: said)
        }
    }

    /// lo exists but is no Wi-Fi interface (or the machine has no nl80211 at all): one line, 3.
    @Test func aNonWirelessInterfaceIsRefused() throws {
        let r = try pushdiag(["join", "--interface", "lo", "--passive", "--cycle-timeout", "1s", "127.0.0.1:5223"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").filter { !$0.isEmpty }.count == 1, "\(r.stderr)")
    }

    /// A [join] table in the configuration sets the limits; a key of another table is named.
    @Test func theConfigurationsJoinTable() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("p.toml")
        try "[join]\nroam_gap_warning = 5\n".write(to: config, atomically: true, encoding: .utf8)
        try Self.expectOneLine(["join", "--interface", "lo", "--config", config.path, "127.0.0.1:5223"], saying: "join.roam_gap_warning")
    }

    /// The lab's recorded run (fixtures/lab-join: three wpa_supplicant rejoins, Tests/lab/join.sh)
    /// replays to what it printed live (fixtures/lab-join.json), and a limit given on replay
    /// grades it again.
    @Test func theLabsRecordingReplaysAsItRanLive() throws {
        let rec = TestPaths.fixtures.appendingPathComponent("lab-join").path
        let r = try pushdiag(["join", "--replay", rec, "--format", "json"])
        let live = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("lab-join.json"), encoding: .utf8)
        #expect(r.status == 0 && r.stdout == live, "\(r.stderr)")
        let strict = try pushdiag(["join", "--replay", rec, "--push-ready-warning", "1000"])
        #expect(strict.status == 1 && strict.stdout.contains("push-ready"), "\(strict.stdout)")
        let text = try pushdiag(["join", "--replay", rec])
        #expect(text.stdout.contains("the push made again: the DHCP client began"), "\(text.stdout)")
    }

    /// A recording that is not one: one line naming the file (and the line), exit 3.
    /// A recording cut inside the second record of nl80211.pcap after the first cycle's window
    /// ended (the recording is known up to its last whole record, which is after it): the first
    /// cycle is reported as recorded, the later ones are left out (a note names them) rather
    /// than reported from half their events, stderr says where the recording breaks, exit 3.
    @Test func aRecordingThatBreaksKeepsTheCyclesBefore() throws {
        let rec = TestPaths.fixtures.appendingPathComponent("lab-join")
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["join.jsonl", "rtnetlink.pcap", "packets.pcap"] {
            try FileManager.default.copyItem(at: rec.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        let log = try String(contentsOf: rec.appendingPathComponent("join.jsonl"), encoding: .utf8)
        let windows = log.split(separator: "\n").compactMap { try? json(String($0))["window"] as? [String: Any] }
        let firstEnd = try #require(windows.first?["to"] as? Int)
        // The second record after the first cycle ended, cut in its middle (pcap with nanosecond
        // stamps, as pushdiag records: a 24-byte file header, then 16-byte record headers with
        // seconds, nanoseconds and the captured length).
        let pcap = try Data(contentsOf: rec.appendingPathComponent("nl80211.pcap"))
        #expect(pcap.prefix(4) == Data([0x4d, 0x3c, 0xb2, 0xa1]), "not a nanosecond pcap")
        let u32 = { (o: Int) in pcap[o..<o + 4].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) } }
        var offset = 24
        while offset + 16 <= pcap.count, u32(offset) * 1_000_000_000 + u32(offset + 4) <= firstEnd { offset += 16 + u32(offset + 8) }
        offset += 16 + u32(offset + 8)
        #expect(offset + 16 < pcap.count, "no second record after the first cycle")
        try pcap.prefix(offset + 20).write(to: dir.appendingPathComponent("nl80211.pcap"))

        let whole = try json(try pushdiag(["join", "--replay", rec.path, "--format", "json"]).stdout)
        let r = try pushdiag(["join", "--replay", dir.path, "--format", "json"])
        #expect(r.status == 3, "\(r.status) \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("the recording breaks"), "\(r.stderr)")
        let cut = try json(r.stdout)
        let cycles = try #require(cut["cycles"] as? [[String: Any]])
        let first = try #require((whole["cycles"] as? [[String: Any]])?.first)
        let text = { (o: [String: Any]) in try String(decoding: JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self) }
        #expect(cycles.count == 1, "\(cycles.count) cycles")
        #expect(try cycles.first.map(text) == text(first), "the first cycle is not the whole recording's")
        let notes = cut["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("breaks") && $0.contains("cycle 2, 3 left out") }, "\(notes)")
        // packets.pcap cut inside its first record: nothing of the run is known, no cycle is
        // reported, and nothing traps on a time before the first record.
        try FileManager.default.copyItem(at: rec.appendingPathComponent("nl80211.pcap"), to: dir.appendingPathComponent("whole-nl80211.pcap"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("nl80211.pcap"))
        try FileManager.default.moveItem(at: dir.appendingPathComponent("whole-nl80211.pcap"), to: dir.appendingPathComponent("nl80211.pcap"))
        let packets = try Data(contentsOf: rec.appendingPathComponent("packets.pcap"))
        try packets.prefix(24 + 20).write(to: dir.appendingPathComponent("packets.pcap"))
        let none = try pushdiag(["join", "--replay", dir.path, "--format", "json"])
        #expect(none.status == 3 && none.stderr.split(separator: "\n").count == 1, "\(none.status) \(none.stderr)")
        let empty = try json(none.stdout)
        #expect((empty["cycles"] as? [Any])?.isEmpty == true, "\(empty["cycles"] ?? "nil")")
        #expect(
            (empty["notes"] as? [String] ?? []).contains { $0.contains("breaks at its first record") && $0.contains("cycle 1, 2, 3 left out") },
            "\(empty["notes"] ?? "nil")")
    }

    @Test func aBrokenRecordingIsOneLine() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.expectOneLine(["join", "--replay", dir.path], saying: "join.jsonl")
        try "{\"header\":{}}\n".write(to: dir.appendingPathComponent("join.jsonl"), atomically: true, encoding: .utf8)
        try Self.expectOneLine(["join", "--replay", dir.path], saying: "join.jsonl:1: not a line of a join recording")
        try Self.expectOneLine(["join", "--replay", dir.path, "--record", dir.path], saying: "--record and --replay cannot be combined")
        // A live-only option given no value it could take is refused on a replay too.
        let rec = TestPaths.fixtures.appendingPathComponent("lab-join").path
        try Self.expectOneLine(["join", "--replay", rec, "--dhcp-wait", "garbage"], saying: "--dhcp-wait")
    }
}
