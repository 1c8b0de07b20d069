import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// `walk --replay` of recordings that a walk stopped hard leaves behind.
struct WalkReplayTests {
    /// A push log without its `end` line (the walk killed, the machine down) ends at its last
    /// line or sample, interrupted, and says so: not at the epoch, with a negative duration and
    /// its last roam's reconnect taken for a loss.
    @Test func aPushLogWithoutItsEndLineEndsAtItsLastLine() throws {
        let source = TestPaths.fixtures.appendingPathComponent("lab-walk")
        let dir = try TestPaths.copyOfFixture("lab-walk")
        let log = dir.appendingPathComponent("push.jsonl")
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.last?.contains("\"end\"") == true)
        lines.removeLast()
        try (lines.joined(separator: "\n") + "\n").write(to: log, atomically: true, encoding: .utf8)
        let o = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        func walk(_ d: String) throws -> WalkReport {
            WalkReport.assemble(try WalkRunner.replay(directory: d, settings: WalkSettings(interface: "", heartbeat: o)))
        }
        let cut = try walk(dir.path)
        let whole = try walk(source.path)
        #expect(cut.interrupted)
        #expect(cut.durationSeconds > 0 && abs(cut.durationSeconds - whole.durationSeconds) < 1, "\(cut.durationSeconds) s against \(whole.durationSeconds) s")
        #expect(cut.roams == whole.roams, "the roams, their reconnects among them, are the whole walk's")
        #expect(cut.notes.contains { $0.contains("no end line") }, "\(cut.notes)")
    }
}

/// `join --replay` of a directory put together from two runs.
struct JoinReplayPartsTests {
    /// lab-join with the nl80211 recording of another run (lab-walk's): its events all lie
    /// outside the cycles, and a note says so, naming the part, rather than the steps reading as
    /// never reached with no reason given. The directory as recorded gets no such note.
    @Test func aPartOfAnotherRunIsNamed() throws {
        let source = TestPaths.fixtures.appendingPathComponent("lab-join")
        let dir = try TestPaths.copyOfFixture("lab-join")
        let nl = dir.appendingPathComponent("nl80211.pcap")
        try FileManager.default.removeItem(at: nl)
        try FileManager.default.copyItem(at: TestPaths.fixtures.appendingPathComponent("lab-walk/nl80211.pcap"), to: nl)
        let mixed = try JoinReplay.run(directory: dir.path, thresholds: JoinThresholds())
        #expect(
            mixed.header.notes.contains { $0.hasPrefix("nl80211.pcap: none of its ") && $0.contains("a recording of another run?") }, "\(mixed.header.notes)")
        let whole = try JoinReplay.run(directory: source.path, thresholds: JoinThresholds())
        #expect(!whole.header.notes.contains { $0.contains("another run") }, "\(whole.header.notes)")
    }
}
