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
        if let c = critical(row), value > c { return (.critical, c) }
        let w = warning(row)
        return value > w ? (.warning, w) : nil
    }

    /// Limits from `values` (flags over the configuration, by key) over the defaults; the problem
    /// in words for a key that is not a join limit, a value outside its row's range, or a warning
    /// above its critical.
    public static func resolve(_ values: [String: Double]) -> Result<JoinThresholds, SettingsError> {
        for (k, v) in values.sorted(by: { $0.key < $1.key }) {
            guard let (row, _) = ThresholdRow.row(key: k, in: .join) else { return .failure(.usage("join threshold \(k): no such limit")) }
            guard v.isFinite, row.valid.contains(v) else {
                return .failure(.usage("join threshold \(k): '\(NumberText.format(v))' is \(ThresholdProblem.outside(valid: row.valid, unit: row.unit))"))
            }
        }
        var t = JoinThresholds()
        t.values = values
        for row in ThresholdRow.rows(.join) {
            if let c = t.critical(row), let why = row.orderProblem(warning: t.warning(row), critical: c, name: { row.key($0) }) {
                return .failure(.usage("join thresholds: \(why)"))
            }
        }
        return .success(t)
    }
}
