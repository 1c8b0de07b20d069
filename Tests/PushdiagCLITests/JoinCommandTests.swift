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
        try Self.expectOneLine(["join", "--interface", "lo", "--push-ready-warning", "garbage", "127.0.0.1:5223"], saying: "--push-ready-warning")
        try Self.expectOneLine(["join", "--interface", "lo", "--join-name-warning", "9000", "127.0.0.1:5223"], saying: "join_name_warning")
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
