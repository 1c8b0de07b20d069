/// What a recording's numbers may be (a join's or a walk's log, read back by a replay): a run's
/// times from 1970 to 2096, durations finite and from 0 to the longest an option takes (24 days,
/// `DurationText.longest`: a walk's --timeout may be that). Within them no arithmetic on
/// them overflows (their differences, a time plus a duration); a line outside is refused with
/// its place, as a file that is no recording is.
public enum Recorded {
    /// Nanoseconds since the epoch: 1970 to 2096.
    public static let times: ClosedRange<Int64> = 0...4_000_000_000_000_000_000
    /// A heartbeat's round trip, a reconnect's time, a wait, in milliseconds.
    public static let durationsMs: ClosedRange<Double> = 0...(DurationText.longest * 1000)

    /// Why `ms` (named `field`) is no recorded duration, or nil when it is one (or absent).
    public static func durationProblem(_ ms: Double?, _ field: String) -> String? {
        guard let ms, !durationsMs.contains(ms) else { return nil }
        return "\(field) \(ms) is not a duration from 0 to 24 days in milliseconds"
    }
}

/// A recording that cannot be read on: the file, the line and what is wrong, in one line.
public struct RecordingError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
