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
        let bits = Double(16 + 8 * length + 6)
        switch info.modulation {
        case .unknown:
            return nil
        case .legacy(let rate500k):
            let mbps = Double(rate500k) / 2
            let is24 = info.frequencyMHz != 0 && info.frequencyMHz < 3000
            if rate500k == 2 || rate500k == 4 || rate500k == 11 || rate500k == 22 {
                let preamble: Double = info.shortPreamble && rate500k != 2 ? 96 : 192
                return preamble + Double(8 * length) / mbps
            }
            let dbps = mbps * 4  // data bits per 4 µs symbol
            let symbols = (bits / dbps).rounded(.up)
            return 20 + symbols * 4 + (is24 ? 6 : 0)
        case .ht(let mcs, let bw, let sgi):
            guard mcs < 32 else { return nil }
            let nss = Int(mcs / 8) + 1
            let perStream20: [Double] = [26, 52, 78, 104, 156, 208, 234, 260]
            let perStream40: [Double] = [54, 108, 162, 216, 324, 432, 486, 540]
            let dbps = (bw == 40 ? perStream40 : perStream20)[Int(mcs % 8)] * Double(nss)
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

    /// Coded bits per subcarrier times the coding rate, MCS 0–11 (802.11ac/ax).
    static func vhtBitsPerSubcarrier(_ mcs: UInt8) -> Double? {
        let table: [Double] = [0.5, 1, 1.5, 2, 3, 4, 4.5, 5, 6, 20.0 / 3, 7.5, 25.0 / 3]
        return Int(mcs) < table.count ? table[Int(mcs)] : nil
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
