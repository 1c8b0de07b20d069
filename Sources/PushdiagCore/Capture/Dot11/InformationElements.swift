/// The elements of a list of information elements (IEEE 802.11-2020 9.4.2), each its id and
/// contents (borrowed from the list), in order, as far as the list is whole: the walk is guarded
/// the way iw guards it — `while left >= 2 && left - 2 >= length` — so an element whose length
/// runs past the list's end ends it, and `complete` then stays false. The one walk of every
/// element list pushdiag reads (ElementSummary, the TIM, a BTM request's candidates).
public struct ElementWalk {
    public let list: UnsafeRawBufferPointer
    public private(set) var offset = 0

    @inline(__always)
    public init(_ list: UnsafeRawBufferPointer) { self.list = list }

    /// Every byte of the list was read as whole elements.
    public var complete: Bool { offset == list.count }

    @inline(__always)
    public mutating func next() -> (id: UInt8, contents: UnsafeRawBufferPointer)? {
        let left = list.count - offset
        guard left >= 2 else { return nil }
        let length = Int(list[offset + 1])
        guard left - 2 >= length else { return nil }
        let element = (list[offset], UnsafeRawBufferPointer(rebasing: list[(offset + 2)..<(offset + 2 + length)]))
        offset += 2 + length
        return element
    }
}

/// What pushdiag needs from a list of information elements (IEEE 802.11-2020 9.4.2).
///
/// The list is walked by `ElementWalk` (iw's guard), and an element whose length does not fit
/// its own definition is noted as malformed and skipped; the rest of the frame is still read.
public struct ElementSummary {
    /// Element 0, borrowed from the frame (valid only while the frame is).
    public var ssid: UnsafeRawBufferPointer?
    /// Element 3 (DSSS Parameter Set): current channel.
    public var dsChannel: UInt8?
    /// Element 61 (HT Operation): primary channel.
    public var htPrimaryChannel: UInt8?
    /// Element 11 (BSS Load): station count and channel utilisation (0–255 = 0–100%).
    public var bssLoad: (stationCount: UInt16, utilization: UInt8)?
    /// Element 54 (Mobility Domain): 802.11r.
    public var mobilityDomain: UInt16?
    /// Element 48 (RSN) lists a fast-transition AKM suite (00-0F-AC:3, 4, 9, 13, 19, 20, 25).
    public var rsnFastTransition = false
    /// Element 55 (Fast BSS Transition) present: in an association request, an 802.11r
    /// reassociation (an initial mobility-domain association carries only the Mobility Domain).
    public var fastTransitionElement = false
    /// Element 48 present.
    public var rsn = false
    /// Element 48's PMKID count, where the element goes that far: in a (re)association request,
    /// a PMKID names a cached PMKSA (PMKSA caching or opportunistic key caching).
    public var rsnPMKIDCount: Int?
    /// Element 70 (RM Enabled Capabilities): 802.11k.
    public var radioMeasurement = false
    /// Element 127 (Extended Capabilities) bit 19: BSS Transition, 802.11v.
    public var bssTransition = false
    /// Element 90 (BSS Max Idle Period): how long the AP keeps a silent station.
    public var bssMaxIdle: BSSMaxIdle?
    /// Bytes left over, or an element shorter than its definition.
    public var malformed = false
    public var elementCount = 0

    public init() {}

    /// 802.11r: a Mobility Domain element or an FT AKM.
    public var fastTransition: Bool { mobilityDomain != nil || rsnFastTransition }

    /// The channel the BSS operates on as it says itself.
    public var channel: UInt8? { dsChannel ?? htPrimaryChannel }

    @inline(__always)
    public static func parse(_ b: UnsafeRawBufferPointer) -> ElementSummary {
        var s = ElementSummary()
        var walk = ElementWalk(b)
        while let (id, v) = walk.next() {
            let len = v.count
            s.elementCount += 1
            switch id {
            case 0:
                if len <= 32 { s.ssid = v } else { s.malformed = true }
            case 3:
                if len == 1 { s.dsChannel = v[0] } else { s.malformed = true }
            case 11:
                // 802.11e/802.11-2020: station count u16, utilisation u8, admission capacity u16.
                if len == 5 { s.bssLoad = (v.u16le(at: 0)!, v[2]) } else { s.malformed = true }
            case 48:
                s.rsn = true
                if !parseRSN(v, into: &s) { s.malformed = true }
            case 54:
                if len == 3 { s.mobilityDomain = v.u16le(at: 0)! } else { s.malformed = true }
            case 55:
                s.fastTransitionElement = true
            case 61:
                if len == 22 { s.htPrimaryChannel = v[0] } else { s.malformed = true }
            case 70:
                if len == 5 { s.radioMeasurement = true } else { s.malformed = true }
            case 90:
                // Max idle period u16 (1000 TUs), idle options u8 (bit 0: protected keep-alive).
                if len == 3 {
                    s.bssMaxIdle = BSSMaxIdle(periodUnits: v.u16le(at: 0)!, protectedKeepAliveRequired: v[2] & 0x01 != 0)
                } else {
                    s.malformed = true
                }
            case 127:
                if len >= 3, v[2] & 0x08 != 0 { s.bssTransition = true }
            default:
                break
            }
        }
        if !walk.complete { s.malformed = true }
        return s
    }

    /// RSN element: version, group cipher, pairwise suites, AKM suites (each list with a u16 count).
    /// Returns false when a list runs past the element; what was read stands.
    static func parseRSN(_ v: UnsafeRawBufferPointer, into s: inout ElementSummary) -> Bool {
        guard v.count >= 2 else { return false }
        var o = 2
        if v.count == o { return true }
        o += 4  // group data cipher suite
        guard let pairwise = v.u16le(at: o) else { return v.count == o }
        o += 2 + 4 * Int(pairwise)
        guard let akms = v.u16le(at: o) else { return v.count == o }
        o += 2
        for i in 0..<Int(akms) {
            guard let suite = v.u32be(at: o + 4 * i) else { return false }
            if suite >> 8 == 0x000FAC {
                switch suite & 0xFF {
                case 3, 4, 9, 13, 19, 20, 25: s.rsnFastTransition = true
                default: break
                }
            }
        }
        o += 4 * Int(akms)
        // RSN capabilities 2, PMKID count 2, PMKIDs 16 each, group management cipher 4: the
        // count is taken where it is there; what follows the AKMs is not judged (as before).
        if let pmkids = v.u16le(at: o + 2) { s.rsnPMKIDCount = Int(pmkids) }
        return true
    }
}
