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

    public static func check(_ destinations: [String], transport: NetlinkTransport) throws(NetlinkError) -> RouteSetReport {
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
                var all: [RTNetlink.Neighbour] = []
                messages(try transport.exchange(RTNetlink.neighbourDumpRequest(family: address.family, sequence: 0), dump: true)) { m in
                    if let n = RTNetlink.neighbour(m) { all.append(n) }
                }
                neighbours[address.family] = all
            }
            reports.append(
                RouteAnalysis.report(
                    destination: d, address: address, route: route, routeError: code, links: links ?? [],
                    neighbours: neighbours[address.family] ?? []))
        }
        return RouteSetReport(routes: reports)
    }
}
