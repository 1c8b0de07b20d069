/// Channel number ↔ centre frequency (IEEE 802.11-2020; the 6 GHz channels by frequency only), and
/// the band of a frequency (`WiFiBand`).
public enum ChannelPlan {
    public static func channel(forFrequency mhz: Int) -> Int? {
        switch mhz {
        case 2484: return 14
        case 2412...2472 where (mhz - 2407) % 5 == 0: return (mhz - 2407) / 5
        case 5000...5900 where mhz % 5 == 0: return (mhz - 5000) / 5
        case 5955...7115 where (mhz - 5950) % 5 == 0: return (mhz - 5950) / 5
        default: return nil
        }
    }

    public static func frequency(forChannel ch: Int, preferring5GHz: Bool = false) -> Int? {
        switch ch {
        case 14: return 2484
        case 1...13 where !preferring5GHz: return 2407 + 5 * ch
        case 32...177: return 5000 + 5 * ch
        default: return nil
        }
    }
}

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

    /// The bands of a move from `from` to `to` MHz, when both were reported and the bands differ
    /// (iOS stops the push provider at such a move): the walk's moves and the lens's predicted
    /// roams say it alike.
    public static func change(fromMhz from: Int?, toMhz to: Int?) -> (from: WiFiBand, to: WiFiBand)? {
        guard let from = WiFiBand(frequencyMhz: from), let to = WiFiBand(frequencyMhz: to), from != to else { return nil }
        return (from, to)
    }
}
