import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Host names to addresses, as this machine resolves them (`getaddrinfo`, so /etc/hosts, DNS and
/// nsswitch as configured): for push-server connections, listeners and route checks alike.
public enum Resolver {
    /// The first address `getaddrinfo` gives for a name; a literal address is returned as is.
    public static func resolve(_ host: String) -> Result<IPAddress, ConnectionFailure> {
        addresses(host).map { $0[0] }
    }

    /// Every IPv4 and IPv6 address `getaddrinfo` gives for a name, in its order, each once
    /// (never empty on success); a literal address alone.
    public static func addresses(_ host: String) -> Result<[IPAddress], ConnectionFailure> {
        if let a = IPAddress(host) { return .success([a]) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var res: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, nil, &hints, &res)
        guard rc == 0, let first = res else { return .failure(.resolve(host: host, reason: String(cString: gai_strerror(rc)))) }
        defer { freeaddrinfo(res) }
        var found: [IPAddress] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let ai = p {
            if let sa = ai.pointee.ai_addr, let a = SocketAddress(sa)?.address, !found.contains(a) { found.append(a) }
            p = ai.pointee.ai_next
        }
        return found.isEmpty ? .failure(.resolve(host: host, reason: "no IPv4 or IPv6 address")) : .success(found)
    }
}

/// An IP address and port as the socket calls take them (`sockaddr_in` or `sockaddr_in6`).
struct SocketAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    /// `scope`: the interface index of an IPv6 link-local address (`sin6_scope_id`).
    init(_ a: IPAddress, port: UInt16, scope: UInt32 = 0) {
        withUnsafeMutableBytes(of: &storage) { raw in
            if a.bytes.count == 4 {
                var sin = sockaddr_in()
                sin.sin_family = sa_family_t(AF_INET)
                sin.sin_port = port.bigEndian
                withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: a.bytes) }
                withUnsafeBytes(of: sin) { raw.copyMemory(from: $0) }
                length = socklen_t(MemoryLayout<sockaddr_in>.size)
            } else {
                var sin6 = sockaddr_in6()
                sin6.sin6_family = sa_family_t(AF_INET6)
                sin6.sin6_port = port.bigEndian
                sin6.sin6_scope_id = scope
                withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: a.bytes) }
                withUnsafeBytes(of: sin6) { raw.copyMemory(from: $0) }
                length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            }
        }
    }

    /// The address of an IPv4 or IPv6 `sockaddr`; nil for another family.
    init?(_ sa: UnsafePointer<sockaddr>) {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET: length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case AF_INET6: length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        default: return nil
        }
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(length))) }
    }

    /// A socket's own address (getsockname) or its peer's (getpeername); nil when the kernel
    /// does not say, or for a family other than IPv4 and IPv6.
    init?(of fd: Int32, peer: Bool) {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                (peer ? getpeername(fd, sa, &length) : getsockname(fd, sa, &length)) == 0
            }
        }
        guard ok, family == AF_INET || family == AF_INET6 else { return nil }
    }

    var family: Int32 { Int32(storage.ss_family) }

    /// sin_port and sin6_port are both at offset 2, in network order.
    var port: UInt16 { withUnsafeBytes(of: storage) { UInt16($0[2]) << 8 | UInt16($0[3]) } }

    var address: IPAddress? {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET: return IPAddress(bytes: Array(raw[4..<8]))  // sin_family, sin_port, sin_addr
            case AF_INET6: return IPAddress(bytes: Array(raw[8..<24]))  // …, sin6_flowinfo, sin6_addr
            default: return nil
            }
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }
}
