/// One thing a check found: the value measured, the limit it passed, where the value came from and
/// what to do, for every subject's report.
public struct Finding: Codable, Sendable, Equatable {
    /// `frame_retries` or `channel_utilization`.
    public var check: CheckName
    public var severity: Severity
    /// What was measured: "overall", a BSS ("aa:bb:cc:dd:ee:ff (ward-3)") or a channel ("channel 6 (2437 MHz)").
    public var subject: String
    public var value: Double
    /// The threshold that was exceeded (the warning or the critical one).
    public var threshold: Double
    public var unit: String
    /// Where the value comes from: `retry_bit`, `bss_load` (advertised by the AP) or `airtime_estimate`.
    public var source: String
    public var message: String
}
