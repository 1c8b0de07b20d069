/// One thing a check found: the value measured, the limit it passed, where the value came from and
/// what to do, for every subject's report.
public struct Finding: Codable, Sendable, Equatable {
    /// `frame_retries` or `channel_utilization`.
    public var check: CheckName
    public var severity: Severity
    /// What was measured: "overall", a BSS ("aa:bb:cc:dd:ee:ff (ward-3)") or a channel ("channel 6 (2437 MHz)").
    public var subject: String
    /// The value measured; null where the finding is not about a number (a connection refused, no
    /// route, no cycle that got there) or the number was not measured (a roam's gap not
    /// reported), never a 0 that reads as one.
    @Nullable public var value: Double?
    /// The threshold that was exceeded (the warning or the critical one); null with no value,
    /// where no threshold was passed (a roam graded for its SSID change, not its gap), or where a
    /// survey's range that alerted has no one limit (`@50:60`, `10:50`: `RangeGraded`).
    @Nullable public var threshold: Double?
    public var unit: String
    /// Where the value comes from: `retry_bit`, `bss_load` (advertised by the AP) or `airtime_estimate`.
    public var source: String
    public var message: String
}

extension Finding {
    /// A finding about a value in one of the thresholds' units, spelt as they spell it (the JSON
    /// keeps the raw value: `percent`, not `%`); what is not a unit (`clients`, `route`) stays text.
    init(
        check: CheckName, severity: Severity, subject: String, value: Double?, threshold: Double?, unit: ValueUnit, source: String, message: String
    ) {
        self.init(check: check, severity: severity, subject: subject, value: value, threshold: threshold, unit: unit.rawValue, source: source, message: message)
    }
}
