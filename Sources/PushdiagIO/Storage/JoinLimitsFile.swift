import Foundation
import PushdiagCore

/// `--join-limits FILE` (`join_limits`): the limits a `join --find-ap-idle` run found, from its
/// JSON report, or from a history (`join --history`, SQLite) its newest join with `ap_idle` on the
/// interface (any interface when none is named). Every failure is one line naming the file.
public enum JoinLimitsFile {
    /// The first bytes of every SQLite database file.
    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    public static func load(_ path: String, interface: String?) throws(JoinLimitsError) -> JoinLimits {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JoinLimitsError(.unreadable, "cannot read \(path): \(Errno.current)")
        }
        let bytes = [UInt8](data)
        guard bytes.starts(with: sqliteMagic) else { return try JoinLimits.decode(bytes, file: path).get() }
        let joins: [(id: Int64, started: String?, interface: String, report: String)]
        do throws(StoreError) { joins = try HistoryStore(path: path, create: false).joins(interface: interface) } catch {
            throw JoinLimitsError(.unreadable, "cannot read \(path): \(error.description)")
        }
        let on = interface.map { " on \($0)" } ?? ""
        // The newest join that ran the ladder; a broken report names its row.
        for j in joins {
            switch JoinLimits.decode(Array(j.report.utf8), file: "\(path) (joins row \(j.id))", from: "\(path), joins row \(j.id)") {
            case .success(let limits): return limits
            case .failure(let e) where e.kind == .noAPIdle: continue
            case .failure(let e): throw e
            }
        }
        throw JoinLimitsError(
            .unreadable,
            joins.isEmpty
                ? "cannot read \(path): the history holds no join\(on) (join --history \(path) writes one)"
                : "cannot read \(path): no join\(on) in the history has ap_idle (run join --find-ap-idle --history \(path))")
    }
}
