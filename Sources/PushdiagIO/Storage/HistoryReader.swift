private import CSQLite
import PushdiagCore

/// A history opened only to read it (`SQLITE_OPEN_READONLY`): unlike `HistoryStore`, it sets no
/// journal mode, creates and migrates no table and writes nothing, so reading a history (the
/// joins `--join-limits` takes) never changes the file or adds a -wal beside it.
public final class HistoryReader {
    private var db: OpaquePointer?
    public let path: String

    public init(path: String) throws(StoreError) {
        self.path = path
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nil) == SQLITE_OK else {
            let why = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            db = nil  // deinit closes it otherwise, a second time
            throw StoreError(description: "cannot open the history \(path): \(why)")
        }
        sqlite3_busy_timeout(db, 30_000)
    }

    deinit { sqlite3_close(db) }

    /// The joins newest first (on `interface` when one is named), read one row at a time and
    /// handed to `take` until it returns a value: that value, and how many rows were read.
    public func newestJoin<T>(interface: String?, _ take: (_ id: Int64, _ report: String) -> T?) throws(StoreError) -> (found: T?, rows: Int) {
        var stmt: OpaquePointer?
        let sql = "SELECT id, report FROM joins" + (interface == nil ? "" : " WHERE interface = ?") + " ORDER BY id DESC"
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else {
            throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(stmt) }
        if let interface { CSQLite_bind_text(stmt, 1, interface) }
        var rows = 0
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return (nil, rows) }
            guard rc == SQLITE_ROW else { throw StoreError(description: "history \(path): \(String(cString: sqlite3_errmsg(db)))") }
            rows += 1
            let report = sqlite3_column_text(stmt, 1).map { String(cString: $0) } ?? ""
            if let found = take(sqlite3_column_int64(stmt, 0), report) { return (found, rows) }
        }
    }
}
