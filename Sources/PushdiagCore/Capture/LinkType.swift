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
