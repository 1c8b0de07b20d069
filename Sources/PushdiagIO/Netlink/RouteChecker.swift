import PushdiagCore
#if canImport(Glibc)
import Glibc
#endif

/// `ip route get` for each destination through rtnetlink, with the egress link chain and the
/// gateway's neighbour entry. Works without privileges.
public enum RouteChecker {
    /// The first address `getaddrinfo` gives for a name (a literal address is returned as is).
    public static func resolve(_ host: String) -> Result<IPAddress, NetlinkError> {
        if let b = IPText.parse(host), let a = IPAddress(bytes: b) { return .success(a) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var res: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &res)
        guard rc == 0, let first = res else { return .failure(.unavailable("cannot resolve \(host): \(String(cString: gai_strerror(rc)))")) }
        defer { freeaddrinfo(res) }
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let ai = p {
            if ai.pointee.ai_family == AF_INET, let sa = ai.pointee.ai_addr {
                let bytes = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
                if let a = IPAddress(bytes: bytes) { return .success(a) }
            }
            if ai.pointee.ai_family == AF_INET6, let sa = ai.pointee.ai_addr {
                let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
                if let a = IPAddress(bytes: bytes) { return .success(a) }
            }
            p = ai.pointee.ai_next
        }
        return .failure(.unavailable("cannot resolve \(host): no IPv4 or IPv6 address"))
    }

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
            switch resolve(d) {
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
            reports.append(RouteAnalysis.report(destination: d, address: address, route: route, routeError: code, links: links ?? [],
                                                neighbours: neighbours[address.family] ?? []))
        }
        return RouteSetReport(routes: reports)
    }
}
