import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// `ip route get` for each destination through rtnetlink, with the egress link chain and the
/// gateway's neighbour entry. Works without privileges.
public enum RouteChecker {
    static func messages(_ buffers: [[UInt8]], _ body: (Netlink.Message) -> Void) {
        for buf in buffers {
            buf.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { body($0) } }
        }
    }

    /// A gateway the kernel has no settled neighbour entry for is sent a datagram, so that its
    /// resolution shows whether it answers (up to `resolutionLimitNs`; `stop` ends the wait).
    public static func check(_ destinations: [String], transport: NetlinkTransport, stop: () -> Bool = { false }) throws(NetlinkError) -> RouteSetReport {
        var links: [RTNetlink.Link]?
        var neighbours: [UInt8: [RTNetlink.Neighbour]] = [:]
        var reports: [RouteReport] = []
        for d in destinations {
            let address: IPAddress
            switch Resolver.resolve(d) {
            case .success(let a): address = a
            case .failure(let why):
                reports.append(RouteAnalysis.unknown(destination: d, error: why.description))
                continue
            }
            var route: RTNetlink.Route?
            var code: Int32?
            messages(try transport.exchange(RTNetlink.routeRequest(to: address, sequence: 0), dump: false)) { m in
                if let r = RTNetlink.route(m) { route = r }
                if let c = m.errorCode, c != 0 { code = c }
            }
            if links == nil {
                var all: [RTNetlink.Link] = []
                messages(try transport.exchange(RTNetlink.linkDumpRequest(sequence: 0), dump: true)) { m in
                    if let l = RTNetlink.link(m) { all.append(l) }
                }
                links = all
            }
            if route?.gateway != nil, neighbours[address.family] == nil {
                neighbours[address.family] = try neighbourDump(family: address.family, transport: transport)
            }
            var resolution: String?
            if let gw = route?.gateway, let oif = route?.outputInterface {
                func entry() -> RTNetlink.Neighbour? { neighbours[address.family]?.first { $0.address == gw && $0.ifindex == oif } }
                if unknown(entry()) {
                    resolution = try resolve(gw, interface: oif, transport: transport, stop: stop) { neighbours[gw.family] = $0 }
                }
            }
            var report = RouteAnalysis.report(
                destination: d, address: address, route: route, routeError: code, links: links ?? [], neighbours: neighbours[address.family] ?? [])
            report.gatewayResolution = resolution
            reports.append(report)
        }
        return RouteSetReport(routes: reports)
    }

    static func neighbourDump(family: UInt8, transport: NetlinkTransport) throws(NetlinkError) -> [RTNetlink.Neighbour] {
        var all: [RTNetlink.Neighbour] = []
        messages(try transport.exchange(RTNetlink.neighbourDumpRequest(family: family, sequence: 0), dump: true)) { m in
            if let n = RTNetlink.neighbour(m) { all.append(n) }
        }
        return all
    }

    /// No entry, one whose resolution is under way, or one that failed some time ago: whether
    /// the gateway answers now is not known. (STALE, DELAY and PROBE entries were confirmed once
    /// and the kernel re-checks them itself; PERMANENT and NOARP need no answer.)
    static func unknown(_ n: RTNetlink.Neighbour?) -> Bool {
        guard let n else { return true }
        return n.state == 0 || n.state == RTNetlink.nudIncomplete || n.state == RTNetlink.nudFailed
    }

    /// Resolution under way.
    static func pending(_ n: RTNetlink.Neighbour?) -> Bool { n == nil || n!.state == 0 || n!.state == RTNetlink.nudIncomplete }

    /// How long resolution may take: the kernel's defaults give up after 3 solicitations 1 s
    /// apart (`mcast_solicit`, `retrans_time_ms`).
    public static let resolutionLimitNs: Int64 = 3_500_000_000

    /// Sends the gateway a datagram (live) and reads the neighbour table every 100 ms until the
    /// entry settles or the limit passes; `update` gets each dump. A replay reads the dumps the
    /// recording holds in the same way, by its times. Returns what happened, for the report.
    ///
    /// Times are those of the replies received (`lastReceived`: from the last dump before the
    /// datagram to the last dump read), which the recording holds to the nanosecond, so the
    /// replay reports the same milliseconds as the live run. (The clock read after a reply is a
    /// little later live than the recorded time, which once put 3,118 ms live against 3,117 in
    /// the replay.)
    static func resolve(
        _ gw: IPAddress, interface oif: Int32, transport: NetlinkTransport, stop: () -> Bool, update: ([RTNetlink.Neighbour]) -> Void
    ) throws(NetlinkError) -> String {
        let start = transport.lastReceived
        if !transport.isReplay, let e = NeighbourNudge.send(to: gw, scope: UInt32(bitPattern: oif)) {
            return "could not send it a datagram to start address resolution: \(e)"
        }
        var state: RTNetlink.Neighbour?
        repeat {
            if !transport.isReplay, !Clock.sleep(ms: 100, stop: stop) { break }
            let all: [RTNetlink.Neighbour]
            do { all = try neighbourDump(family: gw.family, transport: transport) } catch .replay(_) where transport.isReplay { break }
            update(all)
            state = all.first { $0.address == gw && $0.ifindex == oif }
            // (The datagram turns a failed entry incomplete at once: the kernel resolves anew.)
        } while pending(state) && transport.lastReceived - start < resolutionLimitNs
        let ms = (transport.lastReceived - start) / 1_000_000
        if stop() {
            let so = state.map { NeighbourState(nud: $0.state).rawValue } ?? "no entry"
            return "sent it a datagram: interrupted after \((transport.now - start) / 1_000_000) ms, \(so)"
        }
        switch state.map({ NeighbourState(nud: $0.state) }) {
        case .failed?: return "sent it a datagram: no answer to address resolution (\(ms) ms)"
        case let s? where !pending(state): return "sent it a datagram: \(s) after \(ms) ms"
        default: return "sent it a datagram: still unresolved after \(ms) ms"
        }
    }
}
