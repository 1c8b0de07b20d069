import Foundation
import PushdiagCore

/// `--join-limits FILE` (`join_limits`): the limits a `join --find-ap-idle` run found, from its
/// JSON report, or from a history (`join --history`, SQLite) its newest join with `ap_idle` on the
/// interface (any interface when none is named). Every failure is one line naming the file.
public enum JoinLimitsFile {
    /// The first bytes of every SQLite database file.
    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    public static func load(_ path: String, interface: String?) throws(JoinLimitsError) -> JoinLimits {
        // A history is told by its first bytes, and only a report is read whole (the file opened
        // once: a pipe can be read only once).
        switch SmallFile.read(path, most: 64 << 20, what: "a join report or a history", stopAt: sqliteMagic) {
        case .success(let bytes) where !bytes.starts(with: sqliteMagic): return try JoinLimits.decode(bytes, file: path).get()
        case .success: break
        case .failure(let f): throw JoinLimitsError(.unreadable, "\(path): \(f)")
        }
        // The newest join that ran the ladder, read row by row from a history opened read-only;
        // a broken report names its row.
        let newest: (found: Result<JoinLimits, JoinLimitsError>?, rows: Int)
        do throws(StoreError) {
            newest = try HistoryReader(path: path).newestJoin(interface: interface) { id, report in
                let r = JoinLimits.decode(Array(report.utf8), file: "\(path) (joins row \(id))", from: "\(path), joins row \(id)")
                if case .failure(let e) = r, e.kind == .noAPIdle { return nil }
                return r
            }
        } catch {
            throw JoinLimitsError(.unreadable, "cannot read \(path): \(error.description)")
        }
        if let found = newest.found { return try found.get() }
        let on = interface.map { " on \($0)" } ?? ""
        throw JoinLimitsError(
            .unreadable,
            newest.rows == 0
                ? "cannot read \(path): the history holds no join\(on) (join --history \(path) writes one)"
                : "cannot read \(path): no join\(on) in the history has ap_idle (run join --find-ap-idle --history \(path))")
    }
}
