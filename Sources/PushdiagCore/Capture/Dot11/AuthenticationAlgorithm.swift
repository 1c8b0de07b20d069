/// The authentication algorithm numbers of 802.11 (IEEE 802.11-2020 9.4.1.1): the one table the
/// capture's counts, the roam trackers, the join's authentication step and the walk's fallback
/// read. Frames and nl80211 carry the number; an unknown one stays a number.
public enum AuthenticationAlgorithm: UInt16, CaseIterable, Sendable {
    case open = 0
    case sharedKey = 1
    /// 802.11r: fast BSS transition.
    case fastTransition = 2
    /// WPA3-Personal's simultaneous authentication of equals: commit, then confirm.
    case sae = 3
    case fils = 4
    case filsPFS = 5
    case filsPublicKey = 6
    /// Pre-association security negotiation (802.11az): not a join.
    case pasn = 7

    /// For people ("SAE", "fast transition").
    public var name: String {
        switch self {
        case .open: return "open"
        case .sharedKey: return "shared key"
        case .fastTransition: return "fast transition"
        case .sae: return "SAE"
        case .fils: return "FILS"
        case .filsPFS: return "FILS PFS"
        case .filsPublicKey: return "FILS public key"
        case .pasn: return "PASN"
        }
    }

    /// The transaction number of the exchange's last frame, the AP's: the fourth for shared key
    /// (challenge and answer), the second for every other (SAE's confirm, FT's and FILS's answer).
    public var lastTransaction: UInt16 { self == .sharedKey ? 4 : 2 }

    /// True when `number` is this algorithm's.
    public func matches(_ number: UInt16?) -> Bool { number == rawValue }
}
