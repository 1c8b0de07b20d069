/// What a recording's numbers may be (a join's or a walk's log, read back by a replay): a run's
/// times from 1970 to 2096, durations finite and from 0 to a day. Within them no arithmetic on
/// them overflows (their differences, a time plus a duration); a line outside is refused with
/// its place, as a file that is no recording is.
public enum Recorded {
    /// Nanoseconds since the epoch: 1970 to 2096.
    public static let times: ClosedRange<Int64> = 0...4_000_000_000_000_000_000
    /// A heartbeat's round trip, a reconnect's time, a wait: at most a day, in milliseconds.
    public static let durationsMs: ClosedRange<Double> = 0...86_400_000

    /// Why `ms` (named `field`) is no recorded duration, or nil when it is one (or absent).
    public static func durationProblem(_ ms: Double?, _ field: String) -> String? {
        guard let ms, !durationsMs.contains(ms) else { return nil }
        return "\(field) \(ms) is not a duration from 0 to a day in milliseconds"
    }
}
