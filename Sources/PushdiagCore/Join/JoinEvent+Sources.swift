/// What each source's messages mean to a join, in one place: nl80211 events, rtnetlink messages
/// and a station's packets → join events for one interface; anything else nil.
extension JoinEvent.Kind {
    /// An nl80211 event about `ifindex`.
    public static func nl80211(_ e: NL80211.Event, ifindex: UInt32) -> JoinEvent.Kind? {
        switch e {
        case .other(let cmd, let i) where i == ifindex:
            switch NL80211.Command(rawValue: cmd) {
            case .triggerScan?: return .scanStarted
            case .scanAborted?: return .scanFinished(aborted: true)
            case .portAuthorized?: return .portAuthorized
            default: return nil
            }
        case .newScanResults(let i, _) where i == ifindex: return .scanFinished(aborted: false)
        case .authenticate(let i, let bssid, let algorithm, let status, let transaction) where i == ifindex:
            return .authenticated(bssid: bssid, status: status, algorithm: algorithm, transaction: transaction)
        case .associate(let i, let bssid, let status, let idle) where i == ifindex: return .associated(bssid: bssid, status: status, maxIdle: idle)
        case .connect(let i, let bssid, let status, let timedOut, _) where i == ifindex: return .connected(bssid: bssid, status: status, timedOut: timedOut)
        case .disconnect(let i, let reason, let byAP) where i == ifindex: return .disconnected(reason: reason, byAP: byAP)
        case .controlPortTxStatus(let i, let frame, let acked) where i == ifindex:
            // The supplicant's EAPOL frame, as it handed it to nl80211 (an Ethernet header first).
            guard case .eapol(let p)? = frame.withUnsafeBytes({ StationPacket.parse(ethernet: $0) }) else { return nil }
            return .eapolSent(p, acked: acked)
        default: return nil
        }
    }

    /// An rtnetlink message about `ifindex`: its operstate, its addresses (not link-scope ones:
    /// IPv6's fe80:: address comes back with the link by itself and reaches no push server; and
    /// an IPv6 address is added when its duplicate address detection has passed, not while it is
    /// tentative), its neighbours (every neighbour: the caller keeps the gateway's).
    public static func rtnetlink(_ m: Netlink.Message, ifindex: Int32) -> JoinEvent.Kind? {
        if let l = RTNetlink.link(m), l.index == ifindex, !l.removed, let s = l.operstate { return .operstate(s) }
        if let a = RTNetlink.address(m), a.ifindex == ifindex {
            return a.isLinkScope || (!a.removed && a.isTentative) ? nil : a.removed ? .addressRemoved(a.text) : .addressAdded(a.text)
        }
        if let n = RTNetlink.neighbour(m), n.ifindex == ifindex, let address = n.address { return .gateway(address, NeighbourState(nud: n.state)) }
        return nil
    }

    /// A packet on the station's interface; a DNS message names the server (the query's
    /// destination, the answer's source).
    public static func packet(_ p: StationPacket) -> JoinEvent.Kind {
        switch p {
        case .eapol(let e): return .eapol(e)
        case .dhcp(let m): return .dhcp(m)
        case .dns(let m, let source, let destination): return .dns(m, server: m.isResponse ? source : destination)
        case .tcp(let s): return .tcp(s)
        }
    }

    /// A frame the station sent (its Ethernet source is `station`): its keep-alive, or any other in
    /// words for a silence's detail; nil for any other frame or one too short for an Ethernet header.
    public static func stationFrame(ethernet b: UnsafeRawBufferPointer, station: MACAddress) -> JoinEvent.Kind? {
        guard b.mac(at: 6) == station, var type = b.u16be(at: 12) else { return nil }
        var o = 14
        if type == 0x8100, let inner = b.u16be(at: 16) {
            type = inner
            o = 18
        }
        let names: [UInt8: String] = [1: "ICMP", 2: "IGMP", 6: "TCP", 17: "UDP", 58: "ICMPv6"]
        func ip(_ version: String, proto: UInt8?, destination: [UInt8]?) -> String {
            let p = proto.map { names[$0] ?? "protocol \($0)" } ?? "?"
            return "\(version) \(p)" + (destination.flatMap(IPAddress.init(bytes:)).map { " to \($0)" } ?? "")
        }
        switch type {
        case 0x0806: return .stationSent("ARP")
        case 0x888E: return .stationSent("EAPOL")
        // wpa_supplicant's keep-alive (WNM) is an IPv4 frame with nothing after its Ethernet header.
        case 0x0800 where b.count == o: return .keepAliveSent
        case 0x0800: return .stationSent(ip("IPv4", proto: b.u8(at: o + 9), destination: b.slice(o + 16, 4).map(Array.init)))
        case 0x86DD: return .stationSent(ip("IPv6", proto: b.u8(at: o + 6), destination: b.slice(o + 24, 16).map(Array.init)))
        default: return .stationSent("ethertype 0x" + String(type, radix: 16))
        }
    }
}

extension JoinEvent {
    /// Every rtnetlink message of `buffers` about `ifindex`, at `time` (when they were received:
    /// the same live and in a replay).
    public static func rtnetlink(_ buffers: [[UInt8]], ifindex: Int32, time: Int64) -> [JoinEvent] {
        var out: [JoinEvent] = []
        for buf in buffers {
            buf.withUnsafeBytes { b in
                try? Netlink.forEachMessage(b) { m in if let k = Kind.rtnetlink(m, ifindex: ifindex) { out.append(JoinEvent(time, k)) } }
            }
        }
        return out
    }
}

/// wpa_supplicant's `STATUS` reply: `key=value` lines (wpa_state, bssid, ssid, ip_address, …).
public enum WPAStatus {
    public static func parse(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            out[String(line[..<eq])] = String(line[line.index(after: eq)...])
        }
        return out
    }
}
