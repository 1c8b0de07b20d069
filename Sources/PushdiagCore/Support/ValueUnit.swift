/// The unit of a measured value or a limit, as reports write it (`percent`, `ms`, `dBm`, …).
public enum ValueUnit: String, Codable, Sendable, CaseIterable {
    case percent, ms, seconds, dBm, dB, days

    /// How a value is followed in text: "40%", "-67 dBm".
    public var suffix: String { self == .percent ? "%" : " " + rawValue }
}
