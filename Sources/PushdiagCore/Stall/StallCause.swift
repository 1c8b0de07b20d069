/// What a bad heartbeat (lost, or slower than the run's p95 by the `stall_margin` row) overlapped
/// on this machine's link; the raw value is the reports' spelling.
///
/// When several overlap, the first in `allCases` wins: the one that took more of the link away,
/// or caused the others. A disconnect takes the link away whole, and the scans the supplicant runs
/// while disconnected are its search for an AP; a roam's reassociation likewise; radar forces a
/// channel switch; a channel switch is the network's doing and outranks this machine's scan, so
/// the share this machine caused itself is a lower bound; an rtnetlink change mostly follows one of
/// the above and stands alone only when nl80211 said nothing.
public enum StallCause: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    case disconnect
    case roam
    case radar
    case channelSwitch = "channel_switch"
    /// This machine was scanning (its own scan, whoever of its processes asked).
    case ownScan = "own_scan"
    case linkChange = "link_change"
    /// Nothing seen here: the network or the server.
    case noneSeen = "none_seen"

    /// This machine caused it itself.
    public var isOwn: Bool { self == .ownScan }

    /// For text and HTML: the reason in words.
    public var words: String {
        switch self {
        case .disconnect: return "the link was down (disconnected)"
        case .roam: return "a roam"
        case .radar: return "radar (DFS)"
        case .channelSwitch: return "a channel switch"
        case .ownScan: return "this machine was scanning"
        case .linkChange: return "an interface change (rtnetlink)"
        case .noneSeen: return "nothing seen here: the network or the server"
        }
    }
}
