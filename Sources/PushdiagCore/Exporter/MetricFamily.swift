/// A metric family: its name (Prometheus conventions: base units, `_total` for counters,
/// `_ratio` for 0–1), help, type and, for histograms, buckets. The families below are the ones
/// both the exporter and the textfiles (`report`'s, through `PrometheusFamilies`) publish, so
/// that a name has one help and one type wherever Prometheus scrapes it; the exporter declares
/// its own beside them (`ExporterMetrics`).
public struct MetricFamily: Sendable {
    public enum Kind: Sendable { case counter, gauge, histogram([Double]) }
    public let name: String
    public let help: String
    public let kind: Kind

    public init(name: String, help: String, kind: Kind) {
        (self.name, self.help, self.kind) = (name, help, kind)
    }

    /// The exposition format's word for the kind.
    public var typeName: String {
        switch kind {
        case .counter: "counter"
        case .gauge: "gauge"
        case .histogram: "histogram"
        }
    }

    public static let rtt = MetricFamily(
        name: "pushdiag_heartbeat_rtt_seconds",
        help: "Heartbeat round trips to the push server: the exporter's held session, or a survey's heartbeats in report's textfile.",
        kind: .histogram(RTTHistogram.bucketsSeconds))
    public static let certExpiry = MetricFamily(
        name: "pushdiag_tls_cert_expiry_timestamp_seconds", help: "When the push server's certificate expires (notAfter, Unix time).", kind: .gauge)

    // Wi-Fi: label interface (and what says where a value came from).
    public static let utilization = MetricFamily(
        name: "pushdiag_channel_utilization_ratio",
        help:
            "Busy time over active time of the channel in use; source: survey (the channel's), radio_survey (the radio's), bss_load (the AP's own figure); trust: measured, measured_period, measured_radio_wide, advertised.",
        kind: .gauge)
    public static let retransmission = MetricFamily(
        name: "pushdiag_retransmission_ratio",
        help: "Retries over frames sent to the access point; source: station_retries, or tx_failed (frames given up); trust: measured, or lower_bound.",
        kind: .gauge)
    public static let retransmissionFrames = MetricFamily(
        name: "pushdiag_retransmission_frames",
        help:
            "Frames sent to the access point in the window pushdiag_retransmission_ratio is over: wifi and survey judge a ratio over \(Thresholds().minimumFrames) or more only (--min-frames), as the shipped alert does.",
        kind: .gauge)
    public static let signal = MetricFamily(
        name: "pushdiag_signal_dbm", help: "The associated AP's signal as the station entry gives it (its average where the driver keeps one).",
        kind: .gauge)
    public static let snr = MetricFamily(name: "pushdiag_snr_db", help: "The AP's signal over the in-use channel's noise floor (survey).", kind: .gauge)
}
