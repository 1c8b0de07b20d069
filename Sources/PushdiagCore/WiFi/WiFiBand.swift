/// The band of a channel, from its centre frequency: 2.4 GHz below 3,000 MHz, 6 GHz from 5,925 MHz
/// (IEEE 802.11ax's 6 GHz channels start at 5,955 MHz), 5 GHz between (4.9 GHz channels
/// included). Every place that names or compares a band asks this.
public enum WiFiBand: String, CaseIterable, Sendable, CustomStringConvertible {
    case twoPointFourGHz = "2.4 GHz"
    case fiveGHz = "5 GHz"
    case sixGHz = "6 GHz"

    public init(frequencyMhz mhz: Int) {
        self = mhz < 3000 ? .twoPointFourGHz : mhz < 5925 ? .fiveGHz : .sixGHz
    }

    /// The band of an optional frequency: nil when none was reported.
    public init?(frequencyMhz mhz: Int?) {
        guard let mhz else { return nil }
        self.init(frequencyMhz: mhz)
    }

    public var description: String { rawValue }
}
