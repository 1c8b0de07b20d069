/// The unit of a measured value or a limit, as reports write it (`percent`, `ms`, `dBm`, …): a
/// threshold row's and a survey row's.
public enum ValueUnit: String, Codable, Sendable, CaseIterable {
    case percent, ms, seconds, dBm, dB, days
    /// Counts: a survey's BSSes of the SSID and the roams a capture holds.
    case bss, roams

    /// How a value is followed in text: "40%", "-67 dBm".
    public var suffix: String { self == .percent ? "%" : " " + rawValue }
}
