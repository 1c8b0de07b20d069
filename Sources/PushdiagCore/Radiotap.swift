/// Radiotap header (http://www.radiotap.org), link type 127.
///
/// Walks every presence bitmap (extended bitmaps, radiotap and vendor namespaces) and aligns each
/// field naturally relative to the start of the header. A field this table does not know ends
/// the walk for that frame: its size, and so where later fields sit, cannot be known.
public enum Radiotap {
    /// (alignment, size) of the fields of the radiotap namespace, by bit number.
    /// Bit 27 (TLVs) has no fixed size; bit 28 is reserved.
    @usableFromInline
    static let fields: [(align: Int, size: Int)] = [
        (8, 8),  // 0 TSFT
        (1, 1),  // 1 Flags
        (1, 1),  // 2 Rate
        (2, 4),  // 3 Channel
        (2, 2),  // 4 FHSS
        (1, 1),  // 5 dBm antenna signal
        (1, 1),  // 6 dBm antenna noise
        (2, 2),  // 7 Lock quality
        (2, 2),  // 8 TX attenuation
        (2, 2),  // 9 dB TX attenuation
        (1, 1),  // 10 dBm TX power
        (1, 1),  // 11 Antenna
        (1, 1),  // 12 dB antenna signal
        (1, 1),  // 13 dB antenna noise
        (2, 2),  // 14 RX flags
        (2, 2),  // 15 TX flags
        (1, 1),  // 16 RTS retries
        (1, 1),  // 17 data retries
        (4, 8),  // 18 XChannel
        (1, 3),  // 19 MCS
        (4, 8),  // 20 A-MPDU status
        (2, 12),  // 21 VHT
        (8, 12),  // 22 Timestamp
        (2, 12),  // 23 HE
        (2, 12),  // 24 HE-MU
        (1, 1),  // 25 0-length PSDU
        (2, 4),  // 26 L-SIG
    ]

    /// Parses the header at the start of `packet`. Returns nil when the header itself is unusable
    /// (wrong version, length shorter than 8 or longer than the record); otherwise the radio
    /// information and the header length, where the 802.11 frame starts.
    public static func parse(_ p: UnsafeRawBufferPointer) -> (info: RadioInfo, headerLength: Int)? {
        guard let version = p.u8(at: 0), version == 0,
              let len16 = p.u16le(at: 2), let firstWord = p.u32le(at: 4)
        else { return nil }
        let headerLength = Int(len16)
        guard headerLength >= 8, headerLength <= p.count else { return nil }
        let h = UnsafeRawBufferPointer(rebasing: p[0..<headerLength])
        var info = RadioInfo()

        // Count the presence words: each one with bit 31 set is followed by another.
        var words = 1
        var word = firstWord
        while word & 0x8000_0000 != 0 {
            guard let next = h.u32le(at: 4 + 4 * words) else {
                info.walkIncomplete = true
                return (info, headerLength)
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
                    guard index < fields.count else {
                        info.walkIncomplete = true  // unknown field (or TLVs): stop safely
                        break walk
                    }
                    let (align, size) = fields[index]
                    offset = (offset + align - 1) & ~(align - 1)
                    guard offset + size <= headerLength else {
                        info.walkIncomplete = true
                        break walk
                    }
                    read(field: index, at: offset, in: h, into: &info)
                    offset += size
                }
            }
            let switchToRadiotap = bits & (1 << 29) != 0
            let switchToVendor = bits & (1 << 30) != 0
            if switchToRadiotap && switchToVendor {
                info.walkIncomplete = true
                break walk
            }
            if switchToVendor {
                // OUI(3), sub-namespace(1), skip length(2), 2-aligned; then skip_length bytes of
                // the vendor's own fields, which nobody but the vendor can interpret.
                offset = (offset + 1) & ~1
                guard let skip = h.u16le(at: offset + 4) else {
                    info.walkIncomplete = true
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
        return (info, headerLength)
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
            let known = h[o], flags = h[o + 1], mcs = h[o + 2]
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
