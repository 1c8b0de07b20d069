/// `pushdiag_heartbeat_rtt_seconds` is a histogram wherever it is written (the exporter's held
/// sessions and the report's textfile): one name, one type, one set of buckets, so Prometheus
/// users can join and aggregate the two (a summary's quantiles cannot be summed across targets
/// or instances, and the shipped alerts and dashboard read `_bucket`).
public enum RTTHistogram {
    /// Upper bounds, seconds (+Inf is implied).
    public static let bucketsSeconds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// Cumulative counts of round trips (ms) at or below each bound, then +Inf (nil).
    public static func cumulative(_ rttsMs: [Double]) -> [(le: Double?, count: Int)] {
        bucketsSeconds.map { le in (le, rttsMs.filter { $0 / 1000 <= le }.count) } + [(nil, rttsMs.count)]
    }
}
