import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Makes the kernel resolve a gateway's link-layer address (ARP, or IPv6 neighbour discovery)
/// by sending it one UDP datagram to the discard port: a datagram to an address without a
/// neighbour entry starts resolution, which ends reachable or failed. Needs no privilege; the
/// gateway sees one packet to port 9, which it drops.
enum NeighbourNudge {
    /// `scope`: the egress interface index, for an IPv6 link-local gateway. Returns the errno
    /// when the datagram could not be handed to the kernel.
    static func send(to a: IPAddress, scope: UInt32) -> Errno? {
        let address = SocketAddress(a, port: 9, scope: a.bytes.count == 16 ? scope : 0)
        let fd = Glibc.socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return Errno.current }
        defer { close(fd) }
        let sent = address.withSockaddr { sendto(fd, "pushdiag", 8, Int32(MSG_NOSIGNAL), $0, $1) }
        // EAGAIN: the datagram waits for the resolution it started, as wanted.
        if sent < 0, Errno.current != .wouldBlock { return Errno.current }
        return nil
    }
}
