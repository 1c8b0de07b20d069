/// The limits capture, wifi and doctor grade with, as plain numbers (or, inside a survey, its
/// ranges: `RangeGraded`): the defaults of the
/// `ThresholdRow` table (where they come from is written there). A value *above* a threshold
/// raises the finding; for the signal and SNR, a value below.
public struct Thresholds: Sendable, Equatable, RangeGraded {
    public var retryWarning = ThresholdRow.retransmission.warning
    public var retryCritical = ThresholdRow.retransmission.critical!
    public var utilizationWarning = ThresholdRow.utilization.warning
    public var utilizationCritical = ThresholdRow.utilization.critical!
    /// Retry rates over fewer frames than this are not judged (one retry in three frames is noise):
    /// `judgesRetries(over:)`.
    public var minimumFrames: Int = 50
    /// Airtime utilisation over a shorter observation is not judged.
    public var minimumSpanSeconds: Double = 1
    /// The current BSS's signal: below these, a warning and a critical finding.
    public var signalWarningDbm = ThresholdRow.signal.warning
    public var signalCriticalDbm = ThresholdRow.signal.critical!
    /// Signal over the channel's noise floor, where the driver reports noise: a warning below
    /// the first, critical below the second when one is set (the table has none).
    public var snrWarningDb = ThresholdRow.snr.warning
    public var snrCriticalDb: Double? = ThresholdRow.snr.critical
    /// A survey's ranges (`SurveyThresholds.air`): when set, its wifi and capture parts grade
    /// on them, as its checks do, and the plain limits above are not read.
    public var ranges: SurveyThresholds?

    public init() {}

    /// Whether a retry share over `frames` frames is judged: `minimumFrames` or more. Under it the
    /// share is still measured and shown; no finding is made of it (wifi says UNKNOWN).
    public func judgesRetries(over frames: some BinaryInteger) -> Bool { frames >= minimumFrames }

    /// Utilisation, retransmissions, signal and SNR, as plain limits.
    public func plainLimits(_ row: ThresholdRow) -> (warning: Double, critical: Double) {
        switch row {
        case .utilization: return (utilizationWarning, utilizationCritical)
        case .retransmission: return (retryWarning, retryCritical)
        case .signal: return (signalWarningDbm, signalCriticalDbm)
        case .snr: return (snrWarningDb, snrCriticalDb ?? -.infinity)
        default: preconditionFailure("Thresholds grades no \(row) row")
        }
    }

    /// The defaults with `values` (keyed `retransmission_warning`, …, as `ThresholdRow.limits`
    /// gives them) over them, refused when a warning and a critical limit are the wrong way round.
    public static func resolve(_ values: [String: Double]) -> Result<Thresholds, SettingsError> {
        // The rows these limits come from, each with the properties it sets (snr's critical limit,
        // none unless set, below).
        let rows: [(ThresholdRow, WritableKeyPath<Thresholds, Double>, WritableKeyPath<Thresholds, Double>?)] = [
            (.retransmission, \.retryWarning, \.retryCritical), (.utilization, \.utilizationWarning, \.utilizationCritical),
            (.signal, \.signalWarningDbm, \.signalCriticalDbm), (.snr, \.snrWarningDb, nil),
        ]
        var t = Thresholds()
        for (row, warning, critical) in rows {
            if let v = values[row.key(.warning)] { t[keyPath: warning] = v }
            guard let critical else { continue }
            if let v = values[row.key(.critical)] { t[keyPath: critical] = v }
            if let why = row.orderProblem(warning: t[keyPath: warning], critical: t[keyPath: critical]) { return .failure(.usage(why)) }
        }
        if let v = values[ThresholdRow.snr.key(.critical)] {
            t.snrCriticalDb = v
            if let why = ThresholdRow.snr.orderProblem(warning: t.snrWarningDb, critical: v) { return .failure(.usage(why)) }
        }
        return .success(t)
    }

    /// As `grade`, for a value whose low side is bad (a signal): below the limits.
    public static func grade(below value: Double, warning: Double, critical: Double) -> (Severity, Double)? {
        if value < critical { return (.critical, critical) }
        if value < warning { return (.warning, warning) }
        return nil
    }

    /// The limit `value` is graded against, the one its text is printed beside: the critical
    /// one when it is above it, else the warning one.
    public static func gradedAgainst(_ value: Double, warning: Double, critical: Double) -> Double {
        grade(value, warning: warning, critical: critical)?.1 ?? warning
    }

    /// The severity of `value` against a warning and a critical limit.
    public static func grade(_ value: Double, warning: Double, critical: Double) -> (Severity, Double)? {
        if value > critical { return (.critical, critical) }
        if value > warning { return (.warning, warning) }
        return nil
    }
}
