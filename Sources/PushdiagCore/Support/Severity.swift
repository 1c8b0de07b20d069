/// How bad a finding or a whole report is, as the Monitoring Plugins grade it; every subject
/// (capture, wifi, heartbeat, route, walk, survey) reports with it.
public enum Severity: String, Codable, Sendable, Comparable {
    case ok, warning, critical, unknown

    /// Monitoring Plugins exit code: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
    public var exitCode: Int32 {
        switch self {
        case .ok: return 0
        case .warning: return 1
        case .critical: return 2
        case .unknown: return 3
        }
    }

    /// OK, WARNING, CRITICAL or UNKNOWN, as the Monitoring Plugins print it.
    public var nagiosName: String { rawValue.uppercased() }

    private var rank: Int {
        switch self {
        case .ok: return 0
        case .warning: return 1
        case .unknown: return 2
        case .critical: return 3
        }
    }

    /// Ordered OK < WARNING < UNKNOWN < CRITICAL: a critical finding is never hidden by a file
    /// that could not be read completely.
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}
