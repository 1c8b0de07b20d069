private import CSQLite
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why a report could not be stored.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String
}

/// The history of surveys (report run), walks and joins: one SQLite database, every run
/// appended in one transaction (WAL, a busy timeout for overlapping cron runs), so a run killed
/// at any point loses nothing already written and leaves the database intact.
public final class HistoryStore {
    private var db: OpaquePointer?
    public let path: String

    /// Opens the history at `path`, creating it when `create` (report run); a reader (report
    /// html) asks for an existing one, and a path with no history is an error, not an empty page.
    public init(path: String, create: Bool = true) throws(StoreError) {
        self.path = path
        if !create, access(path, F_OK) != 0 {
            throw StoreError(description: "no history at \(path): \(Errno.current) (pushdiag report --history \(path) writes one)")
        }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK else {
            let why = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            db = nil  // deinit closes it otherwise, a second time
            throw StoreError(description: "cannot open the history \(path): \(why)")
        }
        sqlite3_busy_timeout(db, 30_000)
        try exec("PRAGMA journal_mode=WAL")
        try exec("PRAGMA synchronous=FULL")
        try exec(
            """
            CREATE TABLE IF NOT EXISTS runs (
              id INTEGER PRIMARY KEY, started TEXT NOT NULL, status TEXT NOT NULL, duration_seconds REAL NOT NULL, report TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS checks (
              run_id INTEGER NOT NULL REFERENCES runs(id), check_name TEXT NOT NULL, subject TEXT NOT NULL,
              status TEXT NOT NULL, value REAL, unit TEXT);
            CREATE INDEX IF NOT EXISTS checks_by_run ON checks(run_id);
            CREATE TABLE IF NOT EXISTS walks (
              id INTEGER PRIMARY KEY, started TEXT NOT NULL, status TEXT NOT NULL, duration_seconds REAL NOT NULL, interface TEXT NOT NULL,
              server TEXT NOT NULL, heartbeats_sent INTEGER NOT NULL, heartbeats_lost INTEGER NOT NULL, reconnects INTEGER NOT NULL,
              connection_lost INTEGER NOT NULL, interrupted INTEGER NOT NULL, report TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS walk_roams (
              walk_id INTEGER NOT NULL REFERENCES walks(id), time TEXT NOT NULL, location TEXT NOT NULL, from_bssid TEXT, to_bssid TEXT,
              from_ssid TEXT, to_ssid TEXT, fast_transition INTEGER, link_gap_ms REAL, push_gap_ms REAL, heartbeats_lost INTEGER NOT NULL,
              connection TEXT NOT NULL, reconnect_ms REAL, grade TEXT NOT NULL, \(Self.walkRoamColumnsAdded.map { "\($0.0) \($0.1)" }.joined(separator: ", ")));
            CREATE TABLE IF NOT EXISTS walk_places (
              walk_id INTEGER NOT NULL REFERENCES walks(id), name TEXT NOT NULL, samples INTEGER NOT NULL, signal_median_dbm REAL,
              signal_min_dbm INTEGER, retries_pct REAL, rtt_p95_ms REAL, heartbeats_lost INTEGER NOT NULL, roams INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS walk_roams_by_walk ON walk_roams(walk_id);
            CREATE INDEX IF NOT EXISTS walk_places_by_walk ON walk_places(walk_id);
            CREATE TABLE IF NOT EXISTS joins (
              id INTEGER PRIMARY KEY, started TEXT, status TEXT NOT NULL, interface TEXT NOT NULL, server TEXT NOT NULL, mode TEXT NOT NULL,
              cycles INTEGER NOT NULL, push_ready_cycles INTEGER NOT NULL, push_ready_p50_ms REAL, push_ready_p95_ms REAL, push_ready_max_ms REAL,
              push_ready_severity TEXT, slowest TEXT, report TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS join_cycles (
              join_id INTEGER NOT NULL REFERENCES joins(id), cycle INTEGER NOT NULL, start TEXT NOT NULL, trigger TEXT NOT NULL,
              push_ready_ms REAL, slowest TEXT, bssid TEXT, bss_max_idle_s REAL, address_before TEXT, address TEXT,
              address_changed INTEGER NOT NULL, severity TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS join_steps (
              join_id INTEGER NOT NULL REFERENCES joins(id), cycle INTEGER NOT NULL, step TEXT NOT NULL, start TEXT, offset_ms REAL,
              duration_ms REAL, status TEXT NOT NULL, detail TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS join_cycles_by_join ON join_cycles(join_id);
            CREATE INDEX IF NOT EXISTS join_steps_by_join ON join_steps(join_id);
            """)
        // Histories written before join (issue 28) gain its tables above, as they gained walk's.
        // Histories written before runs could be marked interrupted gain the column.
        if try !columns("runs").contains("interrupted") { try exec("ALTER TABLE runs ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0") }
        // Walk histories written before failed fast transitions were told apart (issue 32) gain
        // their columns, NULL on the rows already there (a run opening the file at the same time
        // may have added one first).
        let roamColumns = try columns("walk_roams")
        for (name, type) in Self.walkRoamColumnsAdded where !roamColumns.contains(name) {
            do { try exec("ALTER TABLE walk_roams ADD COLUMN \(name) \(type)") } catch {
                guard try columns("walk_roams").contains(name) else { throw error }
            }
        }
    }

    deinit { sqlite3_close(db) }

    /// The walk_roams columns added after its first version: the CREATE above ends with them, and
    /// a history written before them gains them when opened.
    static let walkRoamColumnsAdded: KeyValuePairs<String, String> = [
        "band_changed": "INTEGER", "fast_transition_attempt": "INTEGER", "ft_failure_stage": "TEXT", "ft_failure_status_code": "INTEGER",
        "ft_failure_reason_code": "INTEGER", "ft_failure_by_ap": "INTEGER", "ft_fallback": "TEXT",
    ]

    func exec(_ sql: String) throws(StoreError) {
        var err: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &err) == SQLITE_OK else {
            let why = err.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(err)
            throw StoreError(description: "history \(path): \(why)")
        }
    }

    /// The column names of `table`.
    func columns(_ table: String) throws(StoreError) -> [String] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA table_info(\(table))", -1, &stmt, nil) == SQLITE_OK else {
            throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(stmt) }
        var names: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            if let p = sqlite3_column_text(stmt, 1) { names.append(String(cString: p)) }
        }
        return names
    }

    /// Appends a survey and its checks in one transaction.
    public func append(_ r: SurveyReport, json: String) throws(StoreError) {
        try exec("BEGIN IMMEDIATE")
        do {
            let runID = try insert(
                "INSERT INTO runs(started, status, duration_seconds, report, interrupted) VALUES (?, ?, ?, ?, ?)",
                [.text(r.started), .text(r.status.rawValue), .real(r.durationSeconds), .text(json), .int(r.interrupted == true ? 1 : 0)])
            for c in r.checks {
                _ = try insert(
                    "INSERT INTO checks(run_id, check_name, subject, status, value, unit) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .int(runID), .text(c.check.rawValue), .text(c.subject), .text(c.status.rawValue), c.value.map(Value.real) ?? .null,
                        c.unit.map { .text($0.rawValue) } ?? .null,
                    ])
            }
            try exec("COMMIT")
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// Appends a walk, its roams and its places in one transaction (a site's walks compared
    /// over time: `SELECT name, signal_median_dbm FROM walk_places JOIN walks ON id = walk_id`).
    public func append(walk r: WalkReport, json: String) throws(StoreError) {
        func real(_ v: Double?) -> Value { v.map(Value.real) ?? .null }
        func int(_ v: Int?) -> Value { v.map { .int(Int64($0)) } ?? .null }
        func text(_ v: String?) -> Value { v.map(Value.text) ?? .null }
        func flag(_ v: Bool?) -> Value { v.map { .int($0 ? 1 : 0) } ?? .null }
        try exec("BEGIN IMMEDIATE")
        do {
            let c = r.connection
            let id = try insert(
                """
                INSERT INTO walks(started, status, duration_seconds, interface, server, heartbeats_sent, heartbeats_lost, reconnects,
                  connection_lost, interrupted, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(r.started), .text(r.status.nagiosName), .real(r.durationSeconds), .text(r.interface), .text(r.server), int(c.heartbeatsSent),
                    int(c.heartbeatsLost), int(c.reconnects), .int(c.lost ? 1 : 0), .int(r.interrupted ? 1 : 0), .text(json),
                ])
            for m in r.roams {
                let f = m.fastTransitionFailure
                _ = try insert(
                    """
                    INSERT INTO walk_roams(walk_id, time, location, from_bssid, to_bssid, from_ssid, to_ssid, fast_transition, link_gap_ms,
                      push_gap_ms, heartbeats_lost, connection, reconnect_ms, grade, band_changed, fast_transition_attempt, ft_failure_stage,
                      ft_failure_status_code, ft_failure_reason_code, ft_failure_by_ap, ft_fallback)
                      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .int(id), .text(m.time), .text(m.location), text(m.fromBssid?.description), text(m.toBssid?.description), text(m.fromSsid),
                        text(m.toSsid), flag(m.fastTransition), real(m.linkGapMs), real(m.pushGapMs), int(m.heartbeatsLost),
                        .text(m.connection.rawValue), real(m.reconnectMs), .text(m.grade.rawValue), flag(m.bandChanged), flag(m.fastTransitionAttempt),
                        text(f?.stage.rawValue), int(f?.statusCode), int(f?.reasonCode), flag(f?.byAp), text(f?.fallback?.rawValue),
                    ])
            }
            for p in r.locations {
                _ = try insert(
                    """
                    INSERT INTO walk_places(walk_id, name, samples, signal_median_dbm, signal_min_dbm, retries_pct, rtt_p95_ms, heartbeats_lost,
                      roams) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .int(id), .text(p.name), int(p.samples), real(p.signalMedianDbm), int(p.signalMinDbm), real(p.retriesPct), real(p.rttP95Ms),
                        int(p.heartbeatsLost), int(p.roams),
                    ])
            }
            try exec("COMMIT")
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// Appends a join run, its cycles and every cycle's steps in one transaction (a site's
    /// rejoins compared over time: `SELECT started, step, duration_ms FROM join_steps JOIN joins
    /// ON id = join_id WHERE status = 'ok'`). The values are the report's JSON's: a step without
    /// a time has NULL there, never 0.
    public func append(join r: JoinReport, json: String) throws(StoreError) {
        func real(_ v: Double?) -> Value { v.map(Value.real) ?? .null }
        func text(_ v: String?) -> Value { v.map(Value.text) ?? .null }
        try exec("BEGIN IMMEDIATE")
        do {
            let p = r.pushReady
            let id = try insert(
                """
                INSERT INTO joins(started, status, interface, server, mode, cycles, push_ready_cycles, push_ready_p50_ms, push_ready_p95_ms,
                  push_ready_max_ms, push_ready_severity, slowest, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    text(r.cycles.first?.start), .text(r.status.rawValue), .text(r.interface), .text(r.server), .text(r.mode), .int(Int64(r.cycles.count)),
                    .int(Int64(r.cycles.filter { $0.pushReadyMs != nil }.count)), real(p.p50Ms), real(p.p95Ms), real(p.maxMs),
                    text(r.pushReadySeverity?.rawValue), text(r.slowest?.rawValue), .text(json),
                ])
            for c in r.cycles {
                _ = try insert(
                    """
                    INSERT INTO join_cycles(join_id, cycle, start, trigger, push_ready_ms, slowest, bssid, bss_max_idle_s, address_before, address,
                      address_changed, severity) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .int(id), .int(Int64(c.cycle)), .text(c.start), .text(c.trigger), real(c.pushReadyMs), text(c.slowest?.rawValue),
                        text(c.bssid?.description), real(c.bssMaxIdleS), text(c.addressBefore), text(c.address), .int(c.addressChanged ? 1 : 0),
                        .text(c.severity.rawValue),
                    ])
                for s in c.steps {
                    _ = try insert(
                        "INSERT INTO join_steps(join_id, cycle, step, start, offset_ms, duration_ms, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            .int(id), .int(Int64(c.cycle)), .text(s.name.rawValue), text(s.start), real(s.offsetMs), real(s.durationMs),
                            .text(s.status.rawValue), .text(s.detail),
                        ])
                }
            }
            try exec("COMMIT")
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    /// The runs started at or after `since` (RFC 3339), oldest first: (started, report JSON); a
    /// NULL (a table another schema made) reads as "", which no reader takes.
    public func runs(since: String) throws(StoreError) -> [(started: String, report: String)] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT started, report FROM runs WHERE started >= ? ORDER BY started", -1, &stmt, nil) == SQLITE_OK else {
            throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(stmt) }
        CSQLite_bind_text(stmt, 1, since)
        var out: [(String, String)] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))") }
            let text = { (column: Int32) in sqlite3_column_text(stmt, column).map { String(cString: $0) } ?? "" }
            out.append((text(0), text(1)))
        }
        return out
    }

    enum Value {
        case text(String)
        case real(Double)
        case int(Int64)
        case null
    }

    func insert(_ sql: String, _ values: [Value]) throws(StoreError) -> Int64 {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else {
            throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(stmt) }
        for (i, v) in values.enumerated() {
            let n = Int32(i + 1)
            switch v {
            case .text(let s): CSQLite_bind_text(stmt, n, s)
            case .real(let d): sqlite3_bind_double(stmt, n, d)
            case .int(let x): sqlite3_bind_int64(stmt, n, x)
            case .null: sqlite3_bind_null(stmt, n)
            }
        }
        guard sqlite3_step(stmt) == SQLITE_DONE else { throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))") }
        return sqlite3_last_insert_rowid(db)
    }
}

/// Writes a file so a reader sees the old content or the new one, never a part: a temporary
/// file in the same folder, written, synced, then renamed over the old one.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(StoreError) {
        let tmp = path + ".tmp-\(getpid())"
        func fail(_ what: String, _ e: Errno) -> StoreError {
            unlink(tmp)
            return StoreError(description: "\(what) \(path): \(e); the previous file is kept")
        }
        let file: Descriptor
        switch Syscall.retrying({ open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }) {
        case .success(let fd): file = Descriptor(fd)
        case .failure(let e): throw StoreError(description: "cannot write \(path): \(e)")
        }
        let bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let written = bytes.withUnsafeBytes { b in Syscall.retrying { Glibc.write(file.rawValue, b.baseAddress! + off, b.count - off) } }
            switch written {
            case .success(let n): off += n
            case .failure(let e): throw fail("cannot write", e)
            }
        }
        // The descriptor closes when `file` goes, whatever fails here.
        if case .failure(let e) = Syscall.retrying({ fsync(file.rawValue) }) { throw fail("cannot write", e) }
        if case .failure(let e) = Syscall.retrying({ rename(tmp, path) }) { throw fail("cannot replace", e) }
    }

    /// An exclusive lock on PATH.lock, held while the returned descriptor lives (overlapping
    /// cron runs take turns).
    public static func lock(_ path: String) throws(StoreError) -> Descriptor {
        let d: Descriptor
        switch Syscall.retrying({ open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }) {
        case .success(let fd): d = Descriptor(fd)
        case .failure(let e): throw StoreError(description: "cannot lock \(path): \(e)")
        }
        if case .failure(let e) = Syscall.retrying({ flock(d.rawValue, LOCK_EX) }) { throw StoreError(description: "cannot lock \(path): \(e)") }
        return d
    }
}

/// The outputs of `report`, each written whatever became of the others: a history that cannot
/// be written does not cost the textfile, and the other way round.
public enum ReportOutputs {
    /// A failed output and why.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// `history` or `textfile`.
        public var output: String
        public var reason: String
        /// The reason, led by the output unless it names it already ("history PATH: …").
        public var description: String { reason.hasPrefix(output + " ") ? reason : "\(output): \(reason)" }
    }

    /// Appends `report` to the history at `history` and writes `textfile`, each under its lock;
    /// the outputs that failed.
    public static func write(_ report: SurveyReport, json: String, prometheus: String, history: String?, textfile: String?) -> [Failure] {
        var failures: [Failure] = []
        if let history {
            do throws(StoreError) {
                let lock = try AtomicFile.lock(history)
                defer { withExtendedLifetime(lock) {} }
                try HistoryStore(path: history).append(report, json: json)
            } catch {
                failures.append(Failure(output: "history", reason: error.description))
            }
        }
        if let textfile {
            do throws(StoreError) {
                let lock = try AtomicFile.lock(textfile)
                defer { withExtendedLifetime(lock) {} }
                try AtomicFile.write(prometheus, to: textfile)
            } catch {
                failures.append(Failure(output: "textfile", reason: error.description))
            }
        }
        return failures
    }
}
