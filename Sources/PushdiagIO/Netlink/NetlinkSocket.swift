private import CNetlink
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A netlink socket opened through libnl. Owns its `nl_sock`, freed once. Requests are built and
/// replies decoded in PushdiagCore; this type only moves bytes.
public final class NetlinkSocket {
    private let sock: OpaquePointer
    public let netlinkProtocol: UInt16

    /// Opens a socket of `protocol` (NETLINK_GENERIC for nl80211, NETLINK_ROUTE for routes).
    public init(protocol proto: UInt16) throws(NetlinkError) {
        guard let s = nl_socket_alloc() else { throw .io("cannot allocate a netlink socket: out of memory") }
        sock = s
        netlinkProtocol = proto
        let rc = proto == Netlink.protocolGeneric ? genl_connect(s) : nl_connect(s, Int32(proto))
        guard rc == 0 else {
            let reason = String(cString: nl_geterror(rc))
            nl_socket_free(s)
            throw .io("cannot open a netlink socket (protocol \(proto)): \(reason)")
        }
        nl_socket_disable_seq_check(s)
        _ = nl_socket_set_buffer_size(s, 1 << 20, 1 << 20)
    }

    deinit { nl_socket_free(sock) }

    /// The port id the kernel addresses replies to.
    public var portID: UInt32 { nl_socket_get_local_port(sock) }

    public func send(_ message: [UInt8]) throws(NetlinkError) {
        let rc = message.withUnsafeBytes { b in
            nl_sendto(sock, UnsafeMutableRawPointer(mutating: b.baseAddress), b.count)
        }
        guard rc >= 0 else { throw .io("cannot send a netlink request: \(String(cString: nl_geterror(rc)))") }
    }

    /// Joins a multicast group (from the family's group table).
    public func join(group: UInt32) throws(NetlinkError) {
        let rc = nl_socket_add_membership(sock, Int32(group))
        guard rc == 0 else { throw .io("cannot join netlink multicast group \(group): \(String(cString: nl_geterror(rc)))") }
    }

    /// The next buffer the kernel sends (it may hold several messages), or nil when nothing
    /// arrives within `timeoutMs` (negative: wait indefinitely).
    public func receive(timeoutMs: Int32) throws(NetlinkError) -> [UInt8]? {
        var pfd = pollfd(fd: nl_socket_get_fd(sock), events: Int16(CNetlink_POLLIN()), revents: 0)
        while true {
            let n = poll(&pfd, 1, timeoutMs)
            if n == 0 { return nil }
            if n < 0 {
                if CNetlink_errno() == EINTR { return nil }
                throw .io("poll on the netlink socket failed: \(Errno.describe(CNetlink_errno()))")
            }
            break
        }
        var addr = sockaddr_nl()
        var buf: UnsafeMutablePointer<UInt8>?
        let n = nl_recv(sock, &addr, &buf, nil)
        defer { free(buf) }
        guard n > 0, let buf else {
            if n == 0 { return nil }
            throw .io("cannot receive from netlink: \(String(cString: nl_geterror(n)))")
        }
        return Array(UnsafeBufferPointer(start: buf, count: Int(n)))
    }
}
