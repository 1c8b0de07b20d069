/// How long a frame occupied the air, from its length and the PHY parameters the radio header
/// reported. The model (documented in docs/ARCHITECTURE.md and pushdiag(1)):
///
/// - DSSS/CCK (1, 2, 5.5, 11 Mb/s): 192 µs long preamble and PLCP header (96 µs short), then the
///   PSDU at the data rate.
/// - OFDM (802.11a/g, 6–54 Mb/s): 16 µs preamble + 4 µs SIGNAL + ⌈(16 + 8·L + 6) / N_DBPS⌉ symbols
///   of 4 µs; on 2.4 GHz plus a 6 µs signal extension.
/// - HT (802.11n): 20 µs legacy preamble + 8 µs HT-SIG + 4 µs HT-STF + 4 µs per HT-LTF, then
///   symbols of 4 µs (3.6 µs with short GI).
/// - VHT (802.11ac): 20 µs + 8 µs VHT-SIG-A + 4 µs VHT-STF + 4 µs per VHT-LTF + 4 µs VHT-SIG-B,
///   then symbols as HT.
/// - HE (802.11ax, SU): 20 µs + 4 µs RL-SIG + 8 µs HE-SIG-A + 4 µs HE-STF + 8 µs per HE-LTF, then
///   symbols of 12.8 µs plus the guard interval.
///
/// L is the frame's length on air including its FCS. Inter-frame spaces, acknowledgements and
/// contention are not counted: the estimate is a lower bound of the busy time.
public enum Airtime {
    /// Airtime in microseconds, or nil when the rate is unknown.
    public static func microseconds(length: Int, info: RadioInfo) -> Double? {
        microseconds(length: length, modulation: info.modulation, frequencyMHz: info.frequencyMHz, shortPreamble: info.shortPreamble)
    }

    /// The same from the three fields of the radio header it needs. The analyser calls this one:
    /// passing the whole `RadioInfo` made the caller reassemble it from single bytes, and the
    /// call's wider loads stalled on those stores (perf: a tenth of the analysing thread's time).
    @inline(__always)
    public static func microseconds(length: Int, modulation: RadioInfo.Modulation, frequencyMHz: UInt16, shortPreamble: Bool) -> Double? {
        let bits = Double(16 + 8 * length + 6)
        switch modulation {
        case .unknown:
            return nil
        case .legacy(let rate500k):
            let mbps = Double(rate500k) / 2
            let is24 = frequencyMHz != 0 && WiFiBand(frequencyMhz: Int(frequencyMHz)) == .twoPointFourGHz
            if rate500k == 2 || rate500k == 4 || rate500k == 11 || rate500k == 22 {
                let preamble: Double = shortPreamble && rate500k != 2 ? 96 : 192
                return preamble + Double(8 * length) / mbps
            }
            let dbps = mbps * 4  // data bits per 4 µs symbol
            let symbols = (bits / dbps).rounded(.up)
            return 20 + symbols * 4 + (is24 ? 6 : 0)
        case .ht(let mcs, let bw, let sgi):
            guard mcs < 32 else { return nil }
            let nss = Int(mcs / 8) + 1
            let dbps = htBitsPerSymbol(mcs % 8, wide: bw == 40) * Double(nss)
            let symbols = (bits / dbps).rounded(.up)
            return 20 + 8 + 4 + 4 * Double(ltfs(nss)) + symbols * (sgi ? 3.6 : 4)
        case .vht(let mcs, let nss, let bw, let sgi):
            guard let bpsc = vhtBitsPerSubcarrier(mcs), nss > 0 else { return nil }
            let dbps = Double(dataSubcarriersVHT(bw)) * bpsc * Double(nss)
            let symbols = (bits / dbps).rounded(.up)
            return 20 + 8 + 4 + 4 * Double(ltfs(Int(nss))) + 4 + symbols * (sgi ? 3.6 : 4)
        case .he(let mcs, let nss, let bw, let gi):
            guard let bpsc = vhtBitsPerSubcarrier(mcs), nss > 0 else { return nil }
            let dbps = Double(dataSubcarriersHE(bw)) * bpsc * Double(nss)
            let symbols = (bits / dbps).rounded(.up)
            return 20 + 4 + 8 + 4 + 8 * Double(ltfs(Int(nss))) + symbols * (12.8 + Double(gi) / 1000)
        }
    }

    /// Number of long training fields for a number of spatial streams.
    static func ltfs(_ nss: Int) -> Int { nss == 3 ? 4 : (nss >= 5 ? 8 : max(nss, 1)) }

    // The tables below are switches, not array literals: a literal costs a call into the
    // runtime (swift_initStaticObject) each time, about 13 instructions a data frame.

    /// Data bits per OFDM symbol of one HT spatial stream, MCS 0–7, 20 or 40 MHz.
    static func htBitsPerSymbol(_ mcs: UInt8, wide: Bool) -> Double {
        let perStream20: Double
        switch mcs {
        case 0: perStream20 = 26
        case 1: perStream20 = 52
        case 2: perStream20 = 78
        case 3: perStream20 = 104
        case 4: perStream20 = 156
        case 5: perStream20 = 208
        case 6: perStream20 = 234
        default: perStream20 = 260
        }
        return wide ? perStream20 * 54 / 26 : perStream20  // 40 MHz: 54, 108, … 540 (exact: multiples of 26)
    }

    /// Coded bits per subcarrier times the coding rate, MCS 0–11 (802.11ac/ax).
    static func vhtBitsPerSubcarrier(_ mcs: UInt8) -> Double? {
        switch mcs {
        case 0: return 0.5
        case 1: return 1
        case 2: return 1.5
        case 3: return 2
        case 4: return 3
        case 5: return 4
        case 6: return 4.5
        case 7: return 5
        case 8: return 6
        case 9: return 20.0 / 3
        case 10: return 7.5
        case 11: return 25.0 / 3
        default: return nil
        }
    }

    static func dataSubcarriersVHT(_ bw: UInt16) -> Int {
        switch bw {
        case 40: return 108
        case 80: return 234
        case 160: return 468
        default: return 52
        }
    }

    static func dataSubcarriersHE(_ bw: UInt16) -> Int {
        switch bw {
        case 40: return 468
        case 80: return 980
        case 160: return 1960
        default: return 234
        }
    }
}
