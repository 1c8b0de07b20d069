/// The pcap link-layer header types pushdiag decodes.
///
/// The numbers are the registered LINKTYPE_ values; a test compares each with the C value from
/// the system's `<pcap/dlt.h>` (`DLT_IEEE802_11_RADIO` and friends), so they cannot drift.
public enum LinkType: Int32, Sendable, CaseIterable {
    /// `DLT_IEEE802_11`: 802.11 frames with no radio header.
    case ieee80211 = 105
    /// `DLT_PRISM_HEADER`: a 144-byte Prism monitor header.
    case prism = 119
    /// `DLT_IEEE802_11_RADIO`: radiotap.
    case radiotap = 127
    /// `DLT_IEEE802_11_RADIO_AVS`: the AVS WLAN capture header.
    case avs = 163
    /// `DLT_PPI`: Per-Packet Information.
    case ppi = 192

    public var name: String {
        switch self {
        case .ieee80211: return "IEEE802_11"
        case .prism: return "PRISM_HEADER"
        case .radiotap: return "IEEE802_11_RADIO"
        case .avs: return "IEEE802_11_RADIO_AVS"
        case .ppi: return "PPI"
        }
    }
}

/// Channel number ↔ centre frequency (IEEE 802.11-2020, 2.4 and 5 GHz bands).
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
