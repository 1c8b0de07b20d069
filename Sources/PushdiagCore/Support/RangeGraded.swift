/// Plain limits a part grades its own findings with (`Thresholds` for the air, `HeartbeatThresholds`
/// for a push server), which a survey replaces with its ranges (`SurveyThresholds.air`,
/// `.heartbeat`) so that the part's findings in a survey's JSON say what the survey's checks say,
/// also under a range no one number says (`@10:20`, `15:400`).
public protocol RangeGraded {
    /// The survey's ranges, when a survey set them: the plain limits are then not read.
    var ranges: SurveyThresholds? { get }
    /// The plain warning and critical limits of `row`, one of the rows the type grades.
    func plainLimits(_ row: ThresholdRow) -> (warning: Double, critical: Double)
}

extension RangeGraded {
    /// The grade of `value` on `row` and the limit it passed; nil when OK. The limit is nil where
    /// a survey's range has no one limit.
    public func grade(_ value: Double, _ row: ThresholdRow) -> (severity: Severity, limit: Double?)? {
        if let ranges {
            let severity = ranges.grade(value, row).severity
            guard severity > .ok else { return nil }
            let (w, c) = ranges[row]
            return (severity, row.limit(of: severity == .critical ? c : w))
        }
        let (w, c) = plainLimits(row)
        let graded = row.bad == .above ? Thresholds.grade(value, warning: w, critical: c) : Thresholds.grade(below: value, warning: w, critical: c)
        return graded.map { ($0.0, $0.1) }
    }

    /// How a graded value passed, for its finding's message: "above 5%", "below -70 dBm" (`below`
    /// names that side: "under 7 days"), or the survey's range that alerted: "inside the critical
    /// range @50:60", "outside the critical range 10:50" (a range alerts outside itself unless it
    /// starts with @).
    public func passed(_ row: ThresholdRow, _ g: (severity: Severity, limit: Double?), below: String = "below") -> String {
        if let limit = g.limit {
            return "\(row.bad == .above ? "above" : below) \(NumberText.format(limit))\(row.unit == .percent ? "%" : " \(row.unit.rawValue)")"
        }
        guard let range = ranges.map({ g.severity == .critical ? $0[row].critical : $0[row].warning }) else { return "" }
        return "\(range.inside ? "inside" : "outside") the \(g.severity.rawValue) range \(range)"
    }

    /// A measured value, to the decimals that keep it from reading as its limit when it has one.
    public static func format(_ v: Double, beside limit: Double?) -> String { limit.map { NumberText.format(v, beside: $0) } ?? NumberText.format(v) }
}
