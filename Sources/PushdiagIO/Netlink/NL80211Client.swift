import PushdiagCore

/// nl80211 over a transport (the kernel or a recording): resolves the family, runs the dumps
/// pushdiag needs and decodes replies and events with PushdiagCore's decoders.
public final class NL80211Client {
    public let transport: NetlinkTransport
    public private(set) var family = GenericNetlink.Family(id: 0, name: "nl80211", groups: [:])

    public init(transport: NetlinkTransport) throws(NetlinkError) {
        self.transport = transport
        let replies = try transport.exchange(GenericNetlink.getFamilyRequest(name: "nl80211", sequence: 0), dump: false)
        var found: GenericNetlink.Family?
        var code: Int32?
        for buf in replies {
            try Self.messages(buf) { m in
                if let f = GenericNetlink.family(m) { found = f }
                if let c = m.errorCode, c != 0 { code = c }
            }
        }
        if let f = found {
            family = f
        } else if code == -2 {
            throw .unavailable("nl80211 is not available: this kernel has no cfg80211 (no Wi-Fi driver is loaded)")
        } else {
            throw .kernel(code: code ?? -61, request: "nl80211 family look-up")
        }
    }

    static func messages(_ buf: [UInt8], _ body: (Netlink.Message) throws(NetlinkError) -> Void) throws(NetlinkError) {
        var failure: NetlinkError?
        buf.withUnsafeBytes { b in
            do throws(NetlinkError) { try Netlink.forEachMessage(b, body) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The bytes of a request, as `run` sends them (a replay counts the recorded ones like it).
    public func request(_ command: NL80211.Command, dump: Bool, ifindex: UInt32? = nil, mac: MACAddress? = nil, flags: [UInt16] = []) -> [UInt8] {
        NL80211.request(family: family.id, command: command, dump: dump, sequence: 0, ifindex: ifindex, mac: mac, flags: flags)
    }

    /// Tells a replay which interface the questions are about (`--interface`, or the one
    /// chosen), so that it can answer a dump of every interface from recorded answers about that
    /// one alone (`iw dev IF info`, wpa_supplicant's own). Nothing live.
    public func focus(on interface: NetlinkRequestMeaning.Interface?) {
        if let replay = transport as? ReplayNetlink, interface != nil || replay.interfaceAtHand == nil { replay.interfaceAtHand = interface }
    }

    /// The note a report carries when a replay answered dumps from per-object answers.
    public var replayNote: String? {
        guard let replay = transport as? ReplayNetlink, !replay.perObjectCommands.isEmpty else { return nil }
        return NetlinkRequestMeaning.perObjectNote(replay.perObjectCommands)
    }

    /// Runs one request and decodes every nl80211 message of the reply.
    func run(
        _ command: NL80211.Command, dump: Bool, ifindex: UInt32? = nil, mac: MACAddress? = nil, flags: [UInt16] = [], what: String
    ) throws(NetlinkError) -> [NL80211.Event] {
        try run(request(command, dump: dump, ifindex: ifindex, mac: mac, flags: flags), dump: dump, what: what)
    }

    func run(_ request: [UInt8], dump: Bool, what: String) throws(NetlinkError) -> [NL80211.Event] {
        var events: [NL80211.Event] = []
        var code: Int32 = 0
        for buf in try transport.exchange(request, dump: dump) {
            try Self.messages(buf) { m in
                if let c = m.errorCode {
                    if c != 0 { code = c }
                } else if m.type == family.id, let e = NL80211.decode(m) {
                    events.append(e)
                }
            }
        }
        if code != 0 {
            switch -code {
            case 1, 13: throw .kernel(code: code, request: "\(what) (needs CAP_NET_ADMIN)")
            default: throw .kernel(code: code, request: what)
            }
        }
        return events
    }

    public func interfaces() throws(NetlinkError) -> [NL80211.Interface] {
        try run(.getInterface, dump: true, what: "listing wireless interfaces").compactMap {
            if case .interface(let i) = $0 { return i }
            return nil
        }
    }

    /// Every radio with its interface types and combinations (a split dump, merged).
    public func wiphys() throws(NetlinkError) -> [NL80211.Wiphy] {
        var out: [NL80211.Wiphy] = []
        for e in try run(.getWiphy, dump: true, flags: [NL80211.Attr.splitWiphyDump], what: "listing the radios") {
            guard case .wiphy(let w) = e else { continue }
            if let i = out.firstIndex(where: { $0.index == w.index }) { out[i].merge(w) } else { out.append(w) }
        }
        return out
    }

    /// The survey of every channel the driver reports; empty when it reports none.
    public func survey(ifindex: UInt32) throws(NetlinkError) -> [NL80211.SurveyEntry] {
        do {
            return try run(.getSurvey, dump: true, ifindex: ifindex, flags: [NL80211.Attr.surveyRadioStats], what: "reading the channel survey").compactMap {
                if case .survey(_, let s) = $0 { return s }
                return nil
            }
        } catch .kernel(let code, _) where code == -95 {
            return []  // EOPNOTSUPP: the driver keeps no survey
        }
    }

    public func stations(ifindex: UInt32) throws(NetlinkError) -> [NL80211.Station] {
        try run(.getStation, dump: true, ifindex: ifindex, what: "reading station counters").compactMap {
            if case .station(let s) = $0 { return s }
            return nil
        }
    }

    /// GET_STATION for one peer (some drivers return an empty dump but answer this).
    public func station(ifindex: UInt32, mac: MACAddress) throws(NetlinkError) -> NL80211.Station? {
        do {
            return try run(.getStation, dump: false, ifindex: ifindex, mac: mac, what: "reading station \(mac)").compactMap {
                if case .station(let s) = $0 { return s }
                return nil
            }.first
        } catch .kernel(let code, _) where code == -2 || code == -19 {
            return nil
        }
    }

    /// The kernel's cached scan results (no new scan is triggered).
    public func scan(ifindex: UInt32) throws(NetlinkError) -> [NL80211.ScanBSS] {
        try run(.getScan, dump: true, ifindex: ifindex, what: "reading the scan cache").compactMap {
            if case .scanBSS(_, let b) = $0 { return b }
            return nil
        }
    }

    /// Asks the kernel for a scan of `frequencies` (every channel when empty), as
    /// `iw dev IF scan trigger` does; false when a scan was already running (EBUSY). Needs
    /// CAP_NET_ADMIN (the error says so).
    public func triggerScan(ifindex: UInt32, frequencies: [UInt32]) throws(NetlinkError) -> Bool {
        do {
            _ = try run(
                NL80211.triggerScan(family: family.id, sequence: 0, ifindex: ifindex, frequencies: frequencies), dump: false, what: "triggering a scan")
            return true
        } catch .kernel(let code, _) where code == -16 {
            return false
        }
    }

    /// Joins the multicast groups of nl80211 events ("mlme", "scan", "config").
    public func subscribe(_ groups: [String] = ["mlme", "scan", "config"]) throws(NetlinkError) {
        for g in groups {
            guard let id = family.groups[g] else { continue }
            try transport.join(group: id)
        }
    }

    /// The next nl80211 event with its time, or nil on timeout / end of a replay.
    public func nextEvent(timeoutMs: Int32) throws(NetlinkError) -> (time: Int64, events: [NL80211.Event])? {
        guard let buf = try transport.nextEvent(timeoutMs: timeoutMs) else { return nil }
        var events: [NL80211.Event] = []
        try Self.messages(buf) { m in
            if m.type == family.id, let e = NL80211.decode(m) { events.append(e) }
        }
        return (transport.lastReceived, events)
    }
}
