/// Radiotap header (http://www.radiotap.org), link type 127.
///
/// Walks every presence bitmap (extended bitmaps, radiotap and vendor namespaces) and aligns each
/// field naturally relative to the start of the header. A field this table does not know ends
/// the walk for that frame: its size, and so where later fields sit, cannot be known.
public enum Radiotap {
    /// (alignment, size) of the fields of the radiotap namespace, by bit number; nil for bit 27
    /// (TLVs, no fixed size), bit 28 (reserved) and anything later. A switch, not a table: it
    /// compiles to a jump table with no lazy global to check on every field.
    @inline(__always)
    static func field(_ index: Int) -> (align: Int, size: Int)? {
        switch index {
        case 0: return (8, 8)  // TSFT
        case 1, 2: return (1, 1)  // Flags, Rate
        case 3: return (2, 4)  // Channel
        case 4: return (2, 2)  // FHSS
        case 5, 6: return (1, 1)  // dBm antenna signal, noise
        case 7, 8, 9: return (2, 2)  // Lock quality, TX attenuation, dB TX attenuation
        case 10, 11, 12, 13: return (1, 1)  // dBm TX power, Antenna, dB antenna signal, noise
        case 14, 15: return (2, 2)  // RX flags, TX flags
        case 16, 17: return (1, 1)  // RTS retries, data retries
        case 18: return (4, 8)  // XChannel
        case 19: return (1, 3)  // MCS
        case 20: return (4, 8)  // A-MPDU status
        case 21: return (2, 12)  // VHT
        case 22: return (8, 12)  // Timestamp
        case 23, 24: return (2, 12)  // HE, HE-MU
        case 25: return (1, 1)  // 0-length PSDU
        case 26: return (2, 4)  // L-SIG
        default: return nil
        }
    }

    /// Where the fields pushdiag reads sit, for one sequence of presence words.
    public struct Layout {
        /// Offsets from the start of the header, -1 when absent: Flags, Rate, Channel, dBm
        /// signal, dBm noise, XChannel, MCS, VHT, HE.
        var offsets: (Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16) = (-1, -1, -1, -1, -1, -1, -1, -1, -1)
        /// The walk met a field it does not know, or presence words it could not follow.
        var stoppedEarly = false
        /// Offset just past the last field walked (or the first that did not fit).
        var end = 0
    }

    /// The layouts of the last four kinds of header seen, keyed by their first two presence
    /// words. Captures keep a few layouts for long runs of frames (a busy channel alternates
    /// data frames with MCS or VHT fields and legacy-rate acknowledgements; a monitor interface
    /// sees its own transmissions with other fields), so the walk is usually skipped. Headers
    /// with a vendor namespace (whose layout depends on the data) or more than two words are
    /// always walked.
    public struct LayoutCache {
        var keys: (UInt64, UInt64, UInt64, UInt64) = (.max, .max, .max, .max)
        var layouts: (Layout, Layout, Layout, Layout) = (Layout(), Layout(), Layout(), Layout())
        /// The entry the next new layout replaces (round robin).
        var next = 0
        public init() {}

        @inline(__always)
        func find(_ key: UInt64) -> Layout? {
            if keys.0 == key { return layouts.0 }
            if keys.1 == key { return layouts.1 }
            if keys.2 == key { return layouts.2 }
            if keys.3 == key { return layouts.3 }
            return nil
        }

        mutating func insert(_ key: UInt64, _ layout: Layout) {
            switch next {
            case 0: (keys.0, layouts.0) = (key, layout)
            case 1: (keys.1, layouts.1) = (key, layout)
            case 2: (keys.2, layouts.2) = (key, layout)
            default: (keys.3, layouts.3) = (key, layout)
            }
            next = (next + 1) & 3
        }
    }

    /// Parses the header at the start of `packet`. Returns nil when the header itself is unusable
    /// (wrong version, length shorter than 8 or longer than the record); otherwise the radio
    /// information and the header length, where the 802.11 frame starts.
    public static func parse(_ p: UnsafeRawBufferPointer) -> (info: RadioInfo, headerLength: Int)? {
        var cache = LayoutCache()
        return parse(p, cache: &cache)
    }

    @inline(__always)
    public static func parse(_ p: UnsafeRawBufferPointer, cache: inout LayoutCache) -> (info: RadioInfo, headerLength: Int)? {
        guard let version = p.u8(at: 0), version == 0,
            let len16 = p.u16le(at: 2), let firstWord = p.u32le(at: 4)
        else { return nil }
        let headerLength = Int(len16)
        guard headerLength >= 8, headerLength <= p.count else { return nil }
        let h = UnsafeRawBufferPointer(rebasing: p[0..<headerLength])

        var key: UInt64 = .max
        if firstWord & 0x4000_0000 == 0 {
            if firstWord & 0x8000_0000 == 0 {
                key = UInt64(firstWord)
            } else if let second = h.u32le(at: 8), second & 0xC000_0000 == 0 {
                key = UInt64(second) << 32 | UInt64(firstWord)
            }
        }
        let layout: Layout
        if key != .max, let cached = cache.find(key) {
            layout = cached
        } else {
            layout = walk(h)
            // A walk cut short by this header's length says nothing about a longer one.
            if key != .max, layout.end <= headerLength { cache.insert(key, layout) }
        }
        var info = RadioInfo()
        info.walkIncomplete = layout.stoppedEarly || layout.end > headerLength
        let o = layout.offsets
        @inline(__always) func read(_ off: Int16, _ index: Int) {
            guard off >= 0, let f = field(index), Int(off) + f.size <= headerLength else { return }
            Radiotap.read(field: index, at: Int(off), in: h, into: &info)
        }
        read(o.0, 1)
        read(o.1, 2)
        read(o.2, 3)
        read(o.3, 5)
        read(o.4, 6)
        read(o.5, 18)
        read(o.6, 19)
        read(o.7, 21)
        read(o.8, 23)
        return (info, headerLength)
    }

    /// Walks the presence words (extended bitmaps, radiotap and vendor namespaces), aligning each
    /// field naturally relative to the start of the header, and records where the fields read sit.
    static func walk(_ h: UnsafeRawBufferPointer) -> Layout {
        var layout = Layout()
        let headerLength = h.count
        // Count the presence words: each one with bit 31 set is followed by another.
        var words = 1
        var word = h.u32le(at: 4)!
        while word & 0x8000_0000 != 0 {
            guard let next = h.u32le(at: 4 + 4 * words) else {
                layout.stoppedEarly = true
                return layout
            }
            word = next
            words += 1
        }

        var offset = 4 + 4 * words
        var inRadiotapNamespace = true
        var base = 0  // bit number of bit 0 of the current word, within the namespace
        walk: for w in 0..<words {
            let bits = h.u32le(at: 4 + 4 * w)!  // counted above
            if inRadiotapNamespace {
                var remaining = bits & 0x1FFF_FFFF
                while remaining != 0 {
                    let bit = remaining.trailingZeroBitCount
                    remaining &= remaining - 1
                    let index = base + bit
                    guard let (align, size) = field(index) else {
                        layout.stoppedEarly = true  // unknown field (or TLVs): stop safely
                        break walk
                    }
                    offset = (offset + align - 1) & ~(align - 1)
                    layout.end = offset + size
                    guard offset + size <= headerLength else { break walk }
                    let o = Int16(offset)
                    switch index {
                    case 1: layout.offsets.0 = o
                    case 2: layout.offsets.1 = o
                    case 3: layout.offsets.2 = o
                    case 5: layout.offsets.3 = o
                    case 6: layout.offsets.4 = o
                    case 18: layout.offsets.5 = o
                    case 19: layout.offsets.6 = o
                    case 21: layout.offsets.7 = o
                    case 23: layout.offsets.8 = o
                    default: break
                    }
                    offset += size
                }
            }
            let switchToRadiotap = bits & (1 << 29) != 0
            let switchToVendor = bits & (1 << 30) != 0
            if switchToRadiotap && switchToVendor {
                layout.stoppedEarly = true
                break walk
            }
            if switchToVendor {
                // OUI(3), sub-namespace(1), skip length(2), 2-aligned; then skip_length bytes of
                // the vendor's own fields, which nobody but the vendor can interpret.
                offset = (offset + 1) & ~1
                guard let skip = h.u16le(at: offset + 4) else {
                    layout.stoppedEarly = true
                    break walk
                }
                offset += 6 + Int(skip)
                inRadiotapNamespace = false
                base = 0
            } else if switchToRadiotap {
                inRadiotapNamespace = true
                base = 0
            } else {
                base += 32
            }
        }
        return layout
    }

    @inline(__always)
    static func read(field: Int, at o: Int, in h: UnsafeRawBufferPointer, into info: inout RadioInfo) {
        switch field {
        case 1:
            let flags = h[o]
            info.shortPreamble = flags & 0x02 != 0
            info.fcsPresent = flags & 0x10 != 0
            info.dataPad = flags & 0x20 != 0
            info.badFCSFlagged = flags & 0x40 != 0
        case 2:
            let rate = h[o]
            if rate != 0, case .unknown = info.modulation { info.modulation = .legacy(rate500k: UInt16(rate)) }
        case 3:
            info.frequencyMHz = h.u16le(at: o)!
            info.channelFlags = h.u16le(at: o + 2)!
        case 5:
            info.signalDBm = Int8(bitPattern: h[o])
        case 6:
            info.noiseDBm = Int8(bitPattern: h[o])
        case 18:
            // XChannel: flags u32, freq u16, channel u8, maxpower u8
            if info.frequencyMHz == 0 { info.frequencyMHz = h.u16le(at: o + 4)! }
        case 19:
            let known = h[o]
            let flags = h[o + 1]
            let mcs = h[o + 2]
            guard known & 0x02 != 0 else { return }
            let bw: UInt16 = (known & 0x01 != 0 && flags & 0x03 == 1) ? 40 : 20
            let sgi = known & 0x04 != 0 && flags & 0x04 != 0
            info.modulation = .ht(mcs: mcs, bandwidthMHz: bw, shortGI: sgi)
        case 21:
            let known = h.u16le(at: o)!
            let flags = h[o + 2]
            let bwCode = h[o + 3]
            let mcsNss = h[o + 4]
            let nss = mcsNss & 0x0F
            guard nss != 0 else { return }
            let bw: UInt16
            switch bwCode & 0x1F {
            case 0: bw = 20
            case 1...3: bw = 40
            case 4...10: bw = 80
            case 11...25: bw = 160
            default: bw = 20
            }
            let sgi = known & 0x0004 != 0 && flags & 0x04 != 0
            info.modulation = .vht(mcs: mcsNss >> 4, nss: nss, bandwidthMHz: known & 0x0040 != 0 ? bw : 20, shortGI: sgi)
        case 23:
            let data1 = h.u16le(at: o)!
            let data3 = h.u16le(at: o + 4)!
            let data5 = h.u16le(at: o + 8)!
            let data6 = h.u16le(at: o + 10)!
            guard data1 & 0x0020 != 0 else { return }  // data MCS known
            let mcs = UInt8((data3 >> 8) & 0x0F)
            let bw: UInt16
            switch data5 & 0x0F {
            case 1: bw = 40
            case 2: bw = 80
            case 3: bw = 160
            default: bw = 20
            }
            let gi: UInt16
            switch (data5 >> 4) & 0x03 {
            case 1: gi = 1600
            case 2: gi = 3200
            default: gi = 800
            }
            let nsts = UInt8(data6 & 0x0F)
            info.modulation = .he(mcs: mcs, nss: max(nsts, 1), bandwidthMHz: bw, guardIntervalNs: gi)
        default:
            break
        }
    }
}
