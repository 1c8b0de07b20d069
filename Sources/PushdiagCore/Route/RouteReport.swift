/// The report model of `pushdiag route`: the path the kernel would take to each push server.
public struct RouteReport: Codable, Sendable, Equatable {
    /// As given on the command line.
    public var destination: String
    @Nullable public var address: IPAddress?
    /// `unicast`, `local`, `unreachable`, `blackhole`, `prohibit`, or null without a route.
    @Nullable public var routeType: String?
    @Nullable public var interface: String?
    @Nullable public var source: IPAddress?
    @Nullable public var gateway: IPAddress?
    /// The gateway's neighbour state as `ip neigh` names it (reachable, stale, failed, …), "none"
    /// when the kernel has no entry yet; null without a gateway.
    @Nullable public var gatewayState: NeighbourState?
    /// When the kernel's entry did not say whether the gateway answers (none, incomplete, failed
    /// earlier) and pushdiag sent it a datagram to make the kernel resolve it: what came of it
    /// ("sent it a datagram: reachable after 3 ms"); null when the entry already said.
    @Nullable public var gatewayResolution: String?
    /// The VLAN id when the egress interface, or a device below it, is a VLAN; null when untagged.
    @Nullable public var vlanId: Int?
    @Nullable public var mtu: Int?
    /// The egress interface and the devices below it ("wlan0.20", "wlan0").
    public var devices: [String]
    public var findings: [Finding]
    public var status: Severity
    @Nullable public var error: String?
}

public struct RouteSetReport: Codable, Sendable, Equatable {
    public var routes: [RouteReport]
    public var status: Severity
    public init(routes: [RouteReport]) {
        self.routes = routes
        status = routes.map(\.status).max() ?? .ok
    }
}

public enum RouteAnalysis {
    public static func typeName(_ t: UInt8) -> String {
        switch t {
        case RTNetlink.rtnUnicast: return "unicast"
        case RTNetlink.rtnLocal: return "local"
        case RTNetlink.rtnBlackhole: return "blackhole"
        case RTNetlink.rtnUnreachable: return "unreachable"
        case RTNetlink.rtnProhibit: return "prohibit"
        case 3: return "broadcast"
        case 5: return "multicast"
        default: return "type \(t)"
        }
    }

    /// One destination's report from the kernel's answers. `routeError` is the negative errno
    /// of a failed `RTM_GETROUTE` (ENETUNREACH when no route matches).
    public static func report(
        destination: String, address: IPAddress, route: RTNetlink.Route?, routeError: Int32?,
        links: [RTNetlink.Link], neighbours: [RTNetlink.Neighbour]
    ) -> RouteReport {
        var r = RouteReport(
            destination: destination, address: address, routeType: nil, interface: nil, source: nil, gateway: nil,
            gatewayState: nil, gatewayResolution: nil, vlanId: nil, mtu: nil, devices: [], findings: [], status: .ok, error: nil)
        let subject = destination == address.description ? destination : "\(destination) (\(address))"
        guard let route, route.type == RTNetlink.rtnUnicast || route.type == RTNetlink.rtnLocal else {
            let why = route.map { "the route is \(typeName($0.type))" } ?? routeError.map { Errno.describe(-$0) } ?? "no answer"
            r.routeType = route.map { typeName($0.type) }
            r.findings.append(
                Finding(
                    check: .route, severity: .critical, subject: subject, value: nil, threshold: nil, unit: "route", source: "rtnetlink",
                    message: "no route to \(subject): \(why); devices on this network cannot reach the push server"))
            r.status = .critical
            return r
        }
        r.routeType = typeName(route.type)
        r.source = route.preferredSource
        r.gateway = route.gateway
        let byIndex = Dictionary(links.map { ($0.index, $0) }, uniquingKeysWith: { a, _ in a })
        if let oif = route.outputInterface, let link = byIndex[oif] {
            r.interface = link.name
            r.mtu = (route.mtu ?? link.mtu).map(Int.init)
            // The device chain: the egress link, then each lower device (IFLA_LINK).
            var seen = Set<Int32>()
            var current: RTNetlink.Link? = link
            while let l = current, !seen.contains(l.index), seen.count < 8 {
                seen.insert(l.index)
                r.devices.append(l.name ?? "ifindex \(l.index)")
                if r.vlanId == nil, let v = l.vlanID { r.vlanId = Int(v) }
                // IFLA_LINK means "lower device" only for stacked kinds (for a veth it is the peer).
                let stacked = ["vlan", "macvlan", "macvtap", "ipvlan", "ipvtap"].contains(l.kind ?? "")
                current = stacked ? l.parent.flatMap { $0 != l.index ? byIndex[$0] : nil } : nil
            }
        } else if let oif = route.outputInterface {
            r.interface = "ifindex \(oif)"
        }
        if let gw = route.gateway {
            let n = neighbours.first { $0.address == gw && $0.ifindex == route.outputInterface }
            let state = n.map { NeighbourState(nud: $0.state) } ?? .noEntry
            r.gatewayState = state
            if state == .failed {
                r.findings.append(
                    Finding(
                        check: .route, severity: .critical, subject: subject, value: nil, threshold: nil, unit: "route", source: "rtnetlink",
                        message:
                            "the gateway \(gw) on \(r.interface ?? "?") does not answer (neighbour state failed): nothing leaves this network towards \(subject)"
                    ))
            } else if state == .incomplete {
                r.findings.append(
                    Finding(
                        check: .route, severity: .warning, subject: subject, value: nil, threshold: nil, unit: "route", source: "rtnetlink",
                        message: "the gateway \(gw) on \(r.interface ?? "?") has not answered address resolution yet (incomplete)"))
            }
        }
        r.status = r.findings.map(\.severity).max() ?? .ok
        return r
    }

    /// A destination that could not be checked (name resolution failed, netlink error).
    public static func unknown(destination: String, error: String) -> RouteReport {
        RouteReport(
            destination: destination, address: nil, routeType: nil, interface: nil, source: nil, gateway: nil, gatewayState: nil, gatewayResolution: nil,
            vlanId: nil, mtu: nil, devices: [], findings: [], status: .unknown, error: error)
    }
}
