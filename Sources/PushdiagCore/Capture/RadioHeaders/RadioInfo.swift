/// What the capture's radio header said about one frame. Every field may be absent.
public struct RadioInfo: Sendable, Equatable {
    public enum Modulation: Sendable, Equatable {
        case unknown
        /// 802.11a/b/g rate, in units of 500 kb/s (as radiotap's RATE field).
        case legacy(rate500k: UInt16)
        /// 802.11n: `mcs` 0–31, bandwidth in MHz.
        case ht(mcs: UInt8, bandwidthMHz: UInt16, shortGI: Bool)
        /// 802.11ac: MCS and spatial streams of the (first) user.
        case vht(mcs: UInt8, nss: UInt8, bandwidthMHz: UInt16, shortGI: Bool)
        /// 802.11ax: guard interval in nanoseconds (800, 1600 or 3200).
        case he(mcs: UInt8, nss: UInt8, bandwidthMHz: UInt16, guardIntervalNs: UInt16)
    }

    /// The frame ends with a 4-byte FCS (radiotap flag 0x10, PPI flag 0x0001).
    public var fcsPresent = false
    /// The capturing radio flagged the FCS as bad (radiotap flag 0x40, PPI flag 0x0004).
    public var badFCSFlagged = false
    public var shortPreamble = false
    /// Padding between the 802.11 header and body (radiotap flag 0x20).
    public var dataPad = false
    /// Centre frequency in MHz, 0 when not reported.
    public var frequencyMHz: UInt16 = 0
    /// radiotap channel flags (0x0020 CCK, 0x0040 OFDM, 0x0080 2 GHz, 0x0100 5 GHz).
    public var channelFlags: UInt16 = 0
    public var signalDBm: Int8?
    public var noiseDBm: Int8?
    public var modulation: Modulation = .unknown
    /// The radiotap walk stopped early (unknown field, bad bitmap); what was read before stands.
    public var walkIncomplete = false

    public init() {}
}
