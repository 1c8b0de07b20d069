/// Limits pushdiag checks against, after Apple's guidance for Local Push Connectivity networks:
/// channel utilisation 40% or less, retransmissions no more than 15% of traffic. Warnings start
/// at 80% of each limit. A value *above* a threshold raises the finding.
public struct Thresholds: Sendable, Equatable {
    public var retryWarning: Double = 12
    public var retryCritical: Double = 15
    public var utilizationWarning: Double = 32
    public var utilizationCritical: Double = 40
    /// Retry rates over fewer frames than this are not judged (one retry in three frames is noise).
    public var minimumFrames: Int = 50
    /// Airtime utilisation over a shorter observation is not judged.
    public var minimumSpanSeconds: Double = 1
    /// The current BSS's signal: a warning below −67 dBm (the cell edge voice-grade designs ask
    /// for), critical below −70 dBm (where iOS starts to look for another BSS).
    public var signalWarningDbm: Double = -67
    public var signalCriticalDbm: Double = -70
    /// Signal over the channel's noise floor: a warning below 25 dB, where the driver reports noise.
    public var snrWarningDb: Double = 25

    public init() {}

    /// As `grade`, for a value whose low side is bad (a signal): below the limits.
    public static func grade(below value: Double, warning: Double, critical: Double) -> (Severity, Double)? {
        if value < critical { return (.critical, critical) }
        if value < warning { return (.warning, warning) }
        return nil
    }

    /// The severity of `value` against a warning and a critical limit.
    public static func grade(_ value: Double, warning: Double, critical: Double) -> (Severity, Double)? {
        if value > critical { return (.critical, critical) }
        if value > warning { return (.warning, warning) }
        return nil
    }
}
