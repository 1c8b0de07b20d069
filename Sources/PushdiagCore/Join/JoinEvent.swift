/// One thing seen during a rejoin, on the run's one clock (`timeNs`: nanoseconds since the
/// epoch, anchored to the monotonic clock): an nl80211 event, an rtnetlink change, a packet on
/// the interface, or a milestone of pushdiag's own push session. The analysis turns a list of
/// them into steps; nothing else decides a step's time.
public struct JoinEvent: Equatable, Sendable {
    public var timeNs: Int64
    public var kind: Kind

    public init(_ timeNs: Int64, _ kind: Kind) {
        self.timeNs = timeNs
        self.kind = kind
    }

    public enum Kind: Equatable, Sendable {
        /// Where the cycle starts, in words: pushdiag's RECONNECT, the link set up, or (passive)
        /// the loss that began a rejoin by itself.
        case cycleStart(String)
        /// The association went (nl80211 `DISCONNECT`).
        case disconnected(reason: UInt16?, byAP: Bool)
        /// `NL80211_CMD_TRIGGER_SCAN`.
        case scanStarted
        /// `NL80211_CMD_NEW_SCAN_RESULTS` or, aborted, `NL80211_CMD_SCAN_ABORTED`.
        case scanFinished(aborted: Bool)
        /// `NL80211_CMD_AUTHENTICATE`: the AP's authentication frame, its status, algorithm and
        /// transaction sequence number (`Authentication` reads them).
        case authenticated(bssid: MACAddress?, status: UInt16?, algorithm: UInt16? = nil, transaction: UInt16? = nil)
        /// `NL80211_CMD_ASSOCIATE`: the (re)association response, its status and BSS Max Idle.
        case associated(bssid: MACAddress?, status: UInt16?, maxIdle: BSSMaxIdle?)
        /// `NL80211_CMD_CONNECT`: the connection as a whole (full-MAC drivers report only this).
        case connected(bssid: MACAddress?, status: UInt16?, timedOut: Bool)
        /// `NL80211_CMD_PORT_AUTHORIZED`: the driver finished the key handshake itself.
        case portAuthorized
        /// rtnetlink `IFLA_OPERSTATE` (RFC 2863: 2 down, 5 dormant, 6 up).
        case operstate(UInt8)
        /// An EAPOL packet on the interface.
        case eapol(EAPOLPacket)
        /// An EAPOL packet the station sent over nl80211's control port (wpa_supplicant 2.10 on a
        /// mac80211 driver), from its TX status event: whether the AP acknowledged it. The AP's
        /// own EAPOL frames (EAP requests and Success, messages 1 and 3) are not seen this way.
        case eapolSent(EAPOLPacket, acked: Bool)
        /// A DHCP message on the interface.
        case dhcp(DHCPMessage)
        /// rtnetlink `RTM_NEWADDR` / `RTM_DELADDR` on the interface ("10.40.0.2/24").
        case addressAdded(String)
        case addressRemoved(String)
        /// rtnetlink `RTM_NEWNEIGH`: the gateway's entry and its state.
        case gateway(IPAddress, NeighbourState)
        /// A DNS query or answer on the interface, with the server's address.
        case dns(DNSMessage, server: IPAddress)
        /// A TCP segment on the interface (its header): the push connection's handshake and data
        /// at the kernel's times.
        case tcp(TCPSegment)
        /// pushdiag's own push session.
        case push(PushMilestone)
        /// The push is made again from its start, and why: the DHCP client began after the first
        /// push had started, which therefore went over the address from before (a phone's push
        /// provider starts once its address is configured). The steps are those of the last push.
        case pushAgain(String)
        /// A step that pushdiag's own session or a source could not carry out or see, and why.
        case stepFailed(JoinStep, String)
        case notVisible(JoinStep, String)
        /// The cycle's time ran out.
        case cycleEnd
        /// `--find-ap-idle`: a rung's silence begins (pushdiag sends nothing for `idleS` seconds),
        /// its time is up, and the rung ends (after the push that checks the association, or the
        /// rejoin after a drop). `APIdle` reads them.
        case silenceStart(idleS: Double)
        case silenceEnd
        case rungEnd
        /// A frame the station sent on the interface (its Ethernet source is the station's
        /// address), in words ("ARP", "IPv4 UDP to 10.40.0.1"): what ends a silence.
        case stationSent(String)
        /// The station's keep-alive: an empty IPv4 frame to the AP, as wpa_supplicant sends one
        /// at the AP's BSS Max Idle Period (802.11v) so that the AP keeps a silent station.
        case keepAliveSent
        /// The station's frames sent to its AP as nl80211 counts them (`NL80211_STA_INFO_TX_PACKETS`,
        /// read by pushdiag at a rung's start and end): every frame mac80211 sends, the null and
        /// management frames no packet socket sees included.
        case stationCounters(txPackets: UInt32)
    }

    /// The milestones of pushdiag's push session, each taken where the session crosses it.
    public enum PushMilestone: Equatable, Sendable {
        case resolveStarted(String)
        /// The name resolved, to the address the session connects to.
        case resolved(IPAddress)
        case tcpStarted(IPAddress)
        case tcpConnected
        case tlsDone
        case helloDone
        case heartbeatSent
        case heartbeatAnswered
    }
}

extension JoinEvent.Kind {
    /// An address added or removed, when it is of `family` (`AF_INET`, `AF_INET6`): a dual-stack
    /// interface's addresses come and go apart (a link flap removes the IPv6 ones and keeps the
    /// IPv4 one), and each step follows one family.
    public func address(family: UInt8) -> (added: Bool, text: String)? {
        let (added, text): (Bool, String)
        switch self {
        case .addressAdded(let a): (added, text) = (true, a)
        case .addressRemoved(let a): (added, text) = (false, a)
        default: return nil
        }
        // "10.40.0.2/24": the address before the prefix length; "?/64" (not decoded) is of none.
        return IPAddress(String(text.prefix { $0 != "/" }))?.family == family ? (added, text) : nil
    }
}

/// What a cycle's analysis needs to know besides its events: what the server and the network
/// use, so that a step they do not use is "not used" rather than missing.
public struct JoinCycleSetup: Sendable, Equatable {
    /// The push server is a name (else the DNS step is not used).
    public var resolvesName: Bool
    public var tls: Bool
    /// The protocol sends a hello (MQTT CONNECT, the WebSocket upgrade).
    public var hello: Bool
    /// The station's own address: DHCP messages of other clients (their chaddr), which the
    /// interface sees broadcast through the AP, are not its exchange. nil: not known (a recording
    /// made before join kept it), every client's counts.
    public var station: MACAddress? = nil

}

extension JoinCycleSetup {
    /// What the connection `o` uses: a name to resolve (the host is not an address), TLS, and a
    /// hello when its protocol's client opens with one.
    public init(_ o: HeartbeatOptions) {
        var client = o.proto.definition.client(o, clientID: "pushdiag-join")
        self.init(resolvesName: IPAddress(o.endpoint.host) == nil, tls: o.tls != nil, hello: client.hello() != nil)
    }
}
