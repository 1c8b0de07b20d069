/// Names of the 802.11 codes the capture report counts by number (IEEE 802.11-2020), for
/// people: the JSON keeps the numbers.
public enum Dot11Codes {
    /// Reason codes of deauthentication and disassociation (table 9-49), the ones a station or an AP
    /// on a push site is likely to send; a test holds each name to Wireshark's for its number.
    public static let reasons: [UInt16: String] = [
        1: "unspecified", 2: "previous authentication no longer valid", 3: "leaving (deauthenticated)", 4: "inactivity",
        5: "AP cannot handle all associated stations", 6: "class 2 frame from a nonauthenticated station",
        7: "class 3 frame from a nonassociated station", 8: "leaving the BSS (disassociated)", 9: "not authenticated",
        10: "power capability unacceptable", 11: "supported channels unacceptable", 12: "BSS transition management",
        13: "invalid element", 14: "MIC failure", 15: "four-way handshake timeout", 16: "group key handshake timeout",
        17: "element in four-way handshake differs", 18: "invalid group cipher", 19: "invalid pairwise cipher", 20: "invalid AKMP",
        21: "unsupported RSNE version", 22: "invalid RSNE capabilities", 23: "802.1X authentication failed", 24: "cipher suite rejected",
        30: "not authorized in this location", 31: "service change precludes TS", 32: "QoS: unspecified", 33: "QoS: insufficient bandwidth",
        34: "too many frames not acknowledged (poor channel)", 35: "transmitting outside TXOPs", 36: "peer leaving",
        37: "stream or session no longer used", 38: "setup required", 39: "timeout", 46: "authorized access limit reached",
        47: "external service requirements", 48: "invalid FT action frame count", 49: "invalid PMKID", 50: "invalid MDE", 51: "invalid FTE",
        71: "poor RSSI",
    ]

    /// BSS Transition Management status codes (table 9-428).
    public static let btmStatuses: [UInt8: String] = [
        0: "accept", 1: "reject: unspecified", 2: "reject: insufficient beacons", 3: "reject: insufficient capacity",
        4: "reject: BSS termination undesired", 5: "reject: BSS termination delay requested", 6: "reject: candidate list provided",
        7: "reject: no suitable candidates", 8: "reject: leaving the ESS",
    ]

    /// Authentication algorithms (9.4.1.1), by `AuthenticationAlgorithm`'s names.
    public static let authAlgorithms = [UInt16: String](uniqueKeysWithValues: AuthenticationAlgorithm.allCases.map { ($0.rawValue, $0.name) })

    /// The key of a count map (`CodeCounts`) for frames whose code was past the codes kept.
    public static let otherKey = "other"
    /// The key for frames whose code could not be read: protected (802.11w), the body encrypted.
    public static let unknownKey = "unknown"
    /// A reason not read, in words: a protected frame's.
    public static let unknownReason = "UNKNOWN (a protected frame, 802.11w: its reason is encrypted)"
    /// The distinct codes a count map keeps (`CodeCounts`): the standard's tables name fewer.
    public static let mostCodesKept = 32

    /// "4 (inactivity)", or the number alone when the table does not name it.
    public static func reason(_ code: String) -> String { named(code, reasons) }
    public static func btmStatus(_ code: String) -> String { named(code, btmStatuses) }
    public static func authAlgorithm(_ code: String) -> String { named(code, authAlgorithms) }

    static func named<K: FixedWidthInteger>(_ code: String, _ table: [K: String]) -> String {
        if code == otherKey { return "other codes (past the first \(mostCodesKept))" }
        if code == unknownKey { return "unknown (protected frames)" }
        guard let k = K(code), let name = table[k] else { return code }
        return "\(code) (\(name))"
    }
}
