/// The join's limits: the `.join` rows of `ThresholdRow`, set by key (flags over the
/// configuration's [join] table) over the rows' defaults.
public struct JoinThresholds: Sendable, Equatable {
    /// The limits set, by configuration key (`push_ready_warning`).
    public private(set) var values: [String: Double] = [:]

    public init() {}

    public func warning(_ row: ThresholdRow) -> Double { values[row.key(.warning)] ?? row.warning }
    public func critical(_ row: ThresholdRow) -> Double? { values[row.key(.critical)] ?? row.critical }

    /// The grade of `value` against the row's limits and the limit it passed; nil when within them.
    public func grade(_ value: Double, _ row: ThresholdRow) -> (Severity, Double)? {
        Thresholds.grade(value, warning: warning(row), critical: critical(row) ?? .infinity)
    }

    /// Limits from `values` (flags over the configuration, by key) over the defaults; the problem
    /// in words for a key that is not a join limit, a value outside its row's range, or a warning
    /// above its critical (`flags`: the keys flags set, named so).
    public static func resolve(_ values: [String: Double], flags: Set<String>? = nil) -> Result<JoinThresholds, SettingsError> {
        if let problem = ThresholdRow.problem(values, in: .join, flags: flags) { return .failure(problem) }
        var t = JoinThresholds()
        t.values = values
        return .success(t)
    }
}
