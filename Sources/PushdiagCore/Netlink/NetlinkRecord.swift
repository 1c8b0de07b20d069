/// Records of LINKTYPE_NETLINK (253) captures, as `nlmon` and `pushdiag --record` write them:
/// a 16-byte cooked header — packet type (2, network order: 0 to us, 4 sent by us), ARPHRD type
/// (2, network order, ARPHRD_NETLINK), 10 unused bytes, netlink protocol (2, network order) —
/// then one or more netlink messages.
public enum NetlinkRecord {
    public static let headerLength = 16
    /// `PACKET_HOST` and `PACKET_OUTGOING` of `<linux/if_packet.h>`.
    public static let packetHost: UInt16 = 0, packetOutgoing: UInt16 = 4

    public struct Parsed {
        public var outgoing: Bool
        public var netlinkProtocol: UInt16
        /// The netlink messages (borrowed).
        public var messages: UnsafeRawBufferPointer
    }

    public static func header(outgoing: Bool, netlinkProtocol: UInt16) -> [UInt8] {
        let type = outgoing ? packetOutgoing : packetHost
        return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(Netlink.arphrdNetlink >> 8), UInt8(Netlink.arphrdNetlink & 0xFF)]
            + [UInt8](repeating: 0, count: 10) + [UInt8(netlinkProtocol >> 8), UInt8(netlinkProtocol & 0xFF)]
    }

    public static func parse(_ b: UnsafeRawBufferPointer) -> Parsed? {
        guard b.count >= headerLength, b.u16be(at: 2) == Netlink.arphrdNetlink else { return nil }
        return Parsed(outgoing: b.u16be(at: 0) == packetOutgoing, netlinkProtocol: b.u16be(at: 14)!, messages: b.suffix(from: headerLength))
    }
}
