/// The other radio headers libpcap hands over: PPI (192), Prism (119) and AVS (163).
public enum PPI {
    /// PPI packet header: version u8, flags u8, length u16le, inner DLT u32le, then fields
    /// (type u16le, length u16le, data). Field 2 is "802.11-common".
    /// Returns nil when the header is unusable or the inner frames are not 802.11.
    public static func parse(_ p: UnsafeRawBufferPointer) -> (info: RadioInfo, headerLength: Int)? {
        guard let version = p.u8(at: 0), version == 0,
            let len16 = p.u16le(at: 2), let dlt = p.u32le(at: 4)
        else { return nil }
        let headerLength = Int(len16)
        guard headerLength >= 8, headerLength <= p.count, dlt == UInt32(LinkType.ieee80211.rawValue) else { return nil }
        var info = RadioInfo()
        var o = 8
        while o + 4 <= headerLength {
            let type = p.u16le(at: o)!
            let length = Int(p.u16le(at: o + 2)!)
            let data = o + 4
            guard data + length <= headerLength else {
                info.walkIncomplete = true
                break
            }
            if type == 2, length >= 20 {
                // tsft u64, flags u16, rate u16 (500 kb/s), freq u16, chan flags u16,
                // fhss hopset u8, fhss pattern u8, dBm signal i8, dBm noise i8
                let flags = p.u16le(at: data + 8)!
                info.fcsPresent = flags & 0x0001 != 0
                info.badFCSFlagged = flags & 0x0004 != 0
                let rate = p.u16le(at: data + 10)!
                if rate != 0 { info.modulation = .legacy(rate500k: rate) }
                info.frequencyMHz = p.u16le(at: data + 12)!
                info.channelFlags = p.u16le(at: data + 14)!
                let signal = Int8(bitPattern: p[data + 18])
                let noise = Int8(bitPattern: p[data + 19])
                if signal != -128 && signal != 0 { info.signalDBm = signal }
                if noise != -128 && noise != 0 { info.noiseDBm = noise }
            }
            o = data + length
        }
        return (info, headerLength)
    }
}

public enum AVS {
    /// AVS WLAN capture header, big-endian: magic/version (0x80211001), header length, mactime,
    /// hosttime, phytype, channel, data rate (100 kb/s), antenna, priority, ssi type, ssi signal,
    /// ssi noise, preamble (1 short, 2 long), encoding.
    public static func parse(_ p: UnsafeRawBufferPointer) -> (info: RadioInfo, headerLength: Int)? {
        guard let magic = p.u32be(at: 0), magic & 0xFFFF_FFF0 == 0x8021_1000,
            let len = p.u32be(at: 4)
        else { return nil }
        let headerLength = Int(len)
        guard headerLength >= 8, headerLength <= p.count else { return nil }
        var info = RadioInfo()
        if headerLength >= 64 {
            let channel = Int(p.u32be(at: 28)!)
            if let f = ChannelPlan.frequency(forChannel: channel) { info.frequencyMHz = UInt16(f) }
            let rate100k = p.u32be(at: 32)!
            if rate100k > 0, rate100k % 5 == 0, rate100k / 5 <= UInt32(UInt16.max) {
                info.modulation = .legacy(rate500k: UInt16(rate100k / 5))
            }
            let ssiType = p.u32be(at: 44)!
            if ssiType == 2 {  // dBm
                let s = Int32(bitPattern: p.u32be(at: 48)!)
                let n = Int32(bitPattern: p.u32be(at: 52)!)
                if (-127...0).contains(s) { info.signalDBm = Int8(s) }
                if (-127...0).contains(n), n != 0 { info.noiseDBm = Int8(n) }
            }
            info.shortPreamble = p.u32be(at: 56)! == 1
        }
        return (info, headerLength)
    }
}

public enum Prism {
    /// Prism monitor header: msgcode u32, msglen u32, device name[16], then items of
    /// (did u32, status u16, len u16, data u32): hosttime, mactime, channel, rssi, sq, signal,
    /// noise, rate (500 kb/s), istx, frmlen. Host byte order; the length tells which.
    /// A record that starts with the AVS magic is AVS, as some drivers write under this type.
    /// A record whose message code is neither Prism type (0x41, 0x44, in either byte order)
    /// carries no header at all and is read as plain 802.11, as Wireshark does.
    public static func parse(_ p: UnsafeRawBufferPointer) -> (info: RadioInfo, headerLength: Int)? {
        if let magic = p.u32be(at: 0), magic & 0xFFFF_FFF0 == 0x8021_1000 { return AVS.parse(p) }
        guard let codeLE = p.u32le(at: 0) else { return (RadioInfo(), 0) }
        let little: Bool
        switch codeLE {
        case 0x41, 0x44: little = true
        case 0x4100_0000, 0x4400_0000: little = false
        default: return (RadioInfo(), 0)
        }
        guard let len = little ? p.u32le(at: 4) : p.u32be(at: 4) else { return nil }
        let headerLength = Int(len)
        guard headerLength >= 24, headerLength <= p.count else { return nil }
        var info = RadioInfo()
        func item(_ n: Int) -> UInt32? {
            let o = 24 + 12 * n
            guard o + 12 <= headerLength else { return nil }
            let status = little ? p.u16le(at: o + 4)! : p.u16be(at: o + 4)!
            guard status == 0 else { return nil }  // 0: value supplied
            return little ? p.u32le(at: o + 8)! : p.u32be(at: o + 8)!
        }
        if let ch = item(2), let f = ChannelPlan.frequency(forChannel: Int(ch)) { info.frequencyMHz = UInt16(f) }
        if let rate = item(7), rate > 0, rate <= 0xFFFF { info.modulation = .legacy(rate500k: UInt16(rate)) }
        return (info, headerLength)
    }
}

/// Strips the link-layer radio header of a record, giving the radio information and the 802.11
/// frame (FCS removed when the header says one is there).
public enum LinkLayer {
    public struct Decapsulated {
        public var info: RadioInfo
        /// The 802.11 frame, without FCS.
        public var frame: UnsafeRawBufferPointer
        /// The FCS bytes when present and captured.
        public var fcs: UInt32?
        /// Bytes of radio header, to derive the on-air length from the record's original length.
        public var headerLength: Int
    }

    @inline(__always)
    /// `originalLength` is the record's length on the wire: when the capture cut the record
    /// short (snap length), the FCS was not captured and is not there to strip or check.
    public static func decapsulate(_ linkType: LinkType, _ p: UnsafeRawBufferPointer, originalLength: Int) -> Decapsulated? {
        var cache = Radiotap.LayoutCache()
        return decapsulate(linkType, p, originalLength: originalLength, cache: &cache)
    }

    /// As above, reusing the radiotap layout of the previous record when it has the same
    /// presence words.
    @inline(__always)
    public static func decapsulate(_ linkType: LinkType, _ p: UnsafeRawBufferPointer, originalLength: Int, cache: inout Radiotap.LayoutCache) -> Decapsulated? {
        let parsed: (info: RadioInfo, headerLength: Int)?
        switch linkType {
        case .radiotap: parsed = Radiotap.parse(p, cache: &cache)
        case .ieee80211: parsed = (RadioInfo(), 0)
        case .ppi: parsed = PPI.parse(p)
        case .prism: parsed = Prism.parse(p)
        case .avs: parsed = AVS.parse(p)
        }
        guard let (info, headerLength) = parsed else { return nil }
        var frame = p.suffix(from: headerLength)
        var fcs: UInt32?
        if info.fcsPresent {
            let missing = max(originalLength - p.count, 0)
            let captured = min(max(4 - missing, 0), frame.count)  // FCS bytes within the capture
            if missing == 0, frame.count >= 4 { fcs = frame.u32le(at: frame.count - 4) }
            frame = UnsafeRawBufferPointer(rebasing: frame[0..<(frame.count - captured)])
        }
        return Decapsulated(info: info, frame: frame, fcs: fcs, headerLength: headerLength)
    }
}
