/// One step of a rejoin, from the association's end to the push connection's first answered
/// heartbeat, in the order a device goes through them. The raw value is the JSON's `name`.
public enum JoinStep: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    /// nl80211 `TRIGGER_SCAN` to `NEW_SCAN_RESULTS` (or `SCAN_ABORTED`).
    case scan
    /// The scan's end to `NL80211_CMD_AUTHENTICATE` (the AP's answer, mac80211 drivers).
    case authentication
    /// Authentication to `NL80211_CMD_ASSOCIATE` (or `CONNECT` on a full-MAC driver).
    case association
    /// 802.1X: the first EAP packet to EAP-Success (WPA2-Enterprise only).
    case eap
    /// The 4-way handshake: association (or EAP-Success) to message 4, the port authorized or
    /// the interface's operstate up.
    case keyHandshake = "key_handshake"
    /// DHCP: the first DISCOVER or REQUEST to the ACK.
    case dhcp
    /// The address usable: rtnetlink's `RTM_NEWADDR` on the interface.
    case address
    /// The gateway's neighbour entry REACHABLE (rtnetlink `RTM_NEWNEIGH`).
    case gateway
    /// The push server's name resolved.
    case dns
    /// TCP connect to the push server.
    case tcpConnect = "tcp_connect"
    /// The TLS handshake.
    case tls
    /// The protocol's hello (MQTT CONNECT/CONNACK, the WebSocket upgrade).
    case hello
    /// The first heartbeat answered: push-ready.
    case firstHeartbeat = "first_heartbeat"

    /// A step of pushdiag's own push session (DNS to the first heartbeat), which it makes again
    /// when the DHCP client began after it (`JoinEvent.Kind.pushAgain`).
    public var isPushSession: Bool { group == .name || group == .push }

    /// The group the step is graded in.
    public var group: JoinGroup {
        switch self {
        case .scan, .authentication, .association: return .link
        case .eap, .keyHandshake: return .keys
        case .dhcp, .address, .gateway: return .address
        case .dns: return .name
        case .tcpConnect, .tls, .hello, .firstHeartbeat: return .push
        }
    }
}

/// What became of a step in one cycle. The raw value is the JSON's `status`.
public enum JoinStepStatus: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    /// Seen from start to end: its duration is measured.
    case ok
    /// The manager did without it (a kept lease, scan results reused).
    case skipped
    /// The network or the server does not use it (EAP on a pre-shared key, TLS on a plain server).
    case notUsed = "not_used"
    /// It cannot be seen from here: the detail names the privilege or the source missing.
    case notVisible = "not_visible"
    /// It began and did not succeed (a refused association, a DHCP NAK, no answer in time).
    case failed
    /// The cycle ended before it (an earlier step failed, or the cycle's time ran out).
    case notReached = "not_reached"
}

/// The groups the steps are graded in, each with its threshold row.
public enum JoinGroup: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    case link, keys, address, name, push

    public var steps: [JoinStep] { JoinStep.allCases.filter { $0.group == self } }

    /// The row that grades the group's span, and the check its finding is named by (the row's
    /// own name): one table, so that the two cannot drift apart.
    private var graded: (row: ThresholdRow, check: CheckName) {
        switch self {
        case .link: return (.joinLink, .joinLink)
        case .keys: return (.joinKeys, .joinKeys)
        case .address: return (.joinAddress, .joinAddress)
        case .name: return (.joinName, .joinName)
        case .push: return (.joinPush, .joinPush)
        }
    }

    /// The row that grades the group's span.
    public var row: ThresholdRow { graded.row }

    public var check: CheckName { graded.check }
}
