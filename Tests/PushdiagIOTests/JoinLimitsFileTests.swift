import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender
import TestSupport
import Testing

/// `--join-limits HISTORY`: the newest join with `ap_idle` on the interface, from report's SQLite
/// history as `join --history` writes it (`HistoryStore.append(join:)`), with the lab's recorded
/// report (fixtures/lab-join.json) and the synthetic one (fixtures/join-report.json).
@Suite struct JoinLimitsFileTests {
    /// A fixture's report, with `ap_idle` concluded as join does when `rungs` is given.
    static func report(_ name: String, rungs: [APIdle.Rung]?) throws -> (JoinReport, String) {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        var r = try d.decode(JoinReport.self, from: Data(contentsOf: TestPaths.fixtures.appendingPathComponent(name)))
        if let rungs {
            r.apIdle = APIdleReport.conclude(rungs: rungs, bssMaxIdleS: r.cycles.last { $0.bssMaxIdleS != nil }?.bssMaxIdleS, pathIdleTimeoutS: nil)
        }
        return (r, try JSONRenderer.render(r))
    }

    static func kept(_ s: Double) -> APIdle.Rung { APIdle.Rung(idleS: s, outcome: .kept, silentS: s, reason: nil, stationFrames: 0, detail: "kept") }

    @Test func theNewestJoinWithTheLadderOnTheInterface() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushdiag-joinlimits-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db").path
        let store = try HistoryStore(path: db)
        let (lab, labJSON) = try Self.report("lab-join.json", rungs: [Self.kept(3)])
        let (labPlain, labPlainJSON) = try Self.report("lab-join.json", rungs: nil)
        let (synthetic, syntheticJSON) = try Self.report("join-report.json", rungs: [Self.kept(5)])
        #expect(lab.interface == "wlan2" && synthetic.interface == "wlan0")
        try store.append(join: lab, json: labJSON)  // row 1: wlan2, the ladder
        try store.append(join: labPlain, json: labPlainJSON)  // row 2: wlan2, newer, no ladder
        try store.append(join: synthetic, json: syntheticJSON)  // row 3: wlan0, the ladder

        // wlan2: row 2 ran no ladder, so row 1's limits.
        let wlan2 = try JoinLimitsFile.load(db, interface: "wlan2")
        #expect(wlan2.interface == "wlan2" && wlan2.from == "\(db), joins row 1" && wlan2.joinStarted == lab.cycles.first?.start)
        #expect(wlan2.safeIntervalS == lab.apIdle?.safeIntervalS && wlan2.safeIntervalS == 3, "\(wlan2)")
        // Any interface: the newest with the ladder.
        let any = try JoinLimitsFile.load(db, interface: nil)
        #expect(any.interface == "wlan0" && any.safeIntervalS == synthetic.apIdle?.safeIntervalS)
        // No join on that interface; no ladder in any join; no file; not a history.
        let noJoin = #expect(throws: JoinLimitsError.self) { try JoinLimitsFile.load(db, interface: "wlan9") }
        #expect(noJoin?.kind == .unreadable && noJoin?.description.contains("holds no join on wlan9") == true, "\(String(describing: noJoin))")
        let plain = dir.appendingPathComponent("plain.db").path
        try HistoryStore(path: plain).append(join: labPlain, json: labPlainJSON)
        let noLadder = #expect(throws: JoinLimitsError.self) { try JoinLimitsFile.load(plain, interface: nil) }
        #expect(
            noLadder?.kind == .unreadable && noLadder?.description.contains("no join in the history has ap_idle") == true
                && noLadder?.description.contains(plain) == true, "\(String(describing: noLadder))")
        let missing = dir.appendingPathComponent("missing.db").path
        let none = #expect(throws: JoinLimitsError.self) { try JoinLimitsFile.load(missing, interface: nil) }
        #expect(none?.kind == .unreadable && none?.description == "\(missing): cannot read: no such file or directory (ENOENT)", "\(String(describing: none))")
        // A SQLite file that is no history: one line naming it.
        let other = dir.appendingPathComponent("other.db").path
        try Data(Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 84)).write(to: URL(fileURLWithPath: other))
        let notHistory = #expect(throws: JoinLimitsError.self) { try JoinLimitsFile.load(other, interface: nil) }
        #expect(
            notHistory?.description.hasPrefix("cannot read \(other): ") == true && notHistory?.description.contains("\n") == false,
            "\(String(describing: notHistory))")
    }

    /// Reading a history writes nothing to it: it is opened read-only, so a history in SQLite's
    /// rollback-journal mode (file format 1, as another tool may leave it) is not turned to WAL,
    /// and no -wal or -shm appears beside it.
    @Test func readingAHistoryWritesNothingToIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushdiag-joinlimits-ro-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db").path
        do {
            let (lab, labJSON) = try Self.report("lab-join.json", rungs: [Self.kept(3)])
            try HistoryStore(path: db).append(join: lab, json: labJSON)
        }
        // Closed: its WAL was checkpointed into the file and removed. Bytes 18 and 19 are the
        // file format's write and read versions: 2 for WAL, 1 for a rollback journal.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: db)))
        #expect(bytes[18] == 2 && bytes[19] == 2 && !FileManager.default.fileExists(atPath: db + "-wal"))
        (bytes[18], bytes[19]) = (1, 1)
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        #expect(try JoinLimitsFile.load(db, interface: "wlan2").safeIntervalS == 3)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: db))) == bytes, "the history was written to")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal") && !FileManager.default.fileExists(atPath: db + "-shm"))
    }
}
