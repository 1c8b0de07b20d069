/// What a station's own interface shows of a rejoin, from an Ethernet frame as a packet socket
/// or libpcap gives it on a managed Wi-Fi interface (DLT_EN10MB): EAPOL (0x888E), DHCP (UDP
/// 67/68) and DNS (UDP 53) over IPv4 or IPv6, and TCP segments' headers (the push connection's
/// handshake and data, timed by the kernel), one 802.1Q tag allowed. Anything else, or a header
/// that does not fit, is nil.
public enum StationPacket: Equatable, Sendable {
    case eapol(EAPOLPacket)
    case dhcp(DHCPMessage)
    case dns(DNSMessage, source: IPAddress, destination: IPAddress)
    case tcp(TCPSegment)

    public static func parse(ethernet b: UnsafeRawBufferPointer) -> StationPacket? {
        guard var type = b.u16be(at: 12) else { return nil }
        var o = 14
        if type == 0x8100 {
            guard let inner = b.u16be(at: 16) else { return nil }
            type = inner
            o = 18
        }
        let payload = b.suffix(from: o)
        switch type {
        case 0x888E: return EAPOLPacket.parse(payload).map(StationPacket.eapol)
        case 0x0800: return ipv4(payload)
        case 0x86DD: return ipv6(payload)
        default: return nil
        }
    }

    /// An IPv4 packet's UDP datagram: the header length from IHL, the total length bounding it,
    /// later fragments skipped (they hold no UDP header).
    static func ipv4(_ b: UnsafeRawBufferPointer) -> StationPacket? {
        guard let vihl = b.u8(at: 0), vihl >> 4 == 4, let total = b.u16be(at: 2), let frag = b.u16be(at: 6), let proto = b.u8(at: 9) else { return nil }
        let ihl = Int(vihl & 0x0F) * 4
        guard ihl >= 20, frag & 0x1FFF == 0, let src = b.slice(12, 4), let dst = b.slice(16, 4) else { return nil }
        let end = min(Int(total), b.count)
        guard end >= ihl, let body = b.slice(ihl, end - ihl) else { return nil }
        return transport(proto, body, source: IPAddress(bytes: Array(src)), destination: IPAddress(bytes: Array(dst)))
    }

    /// An IPv6 packet whose next header is UDP or TCP (no extension headers: DHCPv6, DNS and a
    /// plain TCP connection send none).
    static func ipv6(_ b: UnsafeRawBufferPointer) -> StationPacket? {
        guard let v = b.u8(at: 0), v >> 4 == 6, let length = b.u16be(at: 4), let next = b.u8(at: 6), let src = b.slice(8, 16), let dst = b.slice(24, 16)
        else { return nil }
        let body = b.suffix(from: 40)
        return transport(
            next, body.slice(0, min(Int(length), body.count)) ?? body, source: IPAddress(bytes: Array(src)), destination: IPAddress(bytes: Array(dst)))
    }

    static func transport(_ proto: UInt8, _ b: UnsafeRawBufferPointer, source: IPAddress?, destination: IPAddress?) -> StationPacket? {
        switch proto {
        case 17: return udp(b, source: source, destination: destination)
        case 6:
            guard let source, let destination else { return nil }
            return TCPSegment.parse(b, source: source, destination: destination).map(StationPacket.tcp)
        default: return nil
        }
    }

    static func udp(_ b: UnsafeRawBufferPointer, source: IPAddress?, destination: IPAddress?) -> StationPacket? {
        guard let sport = b.u16be(at: 0), let dport = b.u16be(at: 2), let length = b.u16be(at: 4), length >= 8 else { return nil }
        let data = b.slice(8, min(Int(length), b.count) - 8) ?? b.suffix(from: 8)
        if (sport == 67 || sport == 68) && (dport == 67 || dport == 68) { return DHCPMessage.parse(data).map(StationPacket.dhcp) }
        if sport == 53 || dport == 53, let source, let destination {
            return DNSMessage.parse(data).map { .dns($0, source: source, destination: destination) }
        }
        return nil
    }
}

/// A TCP segment's header as the station's interface saw it: who to whom, the flags and how many
/// bytes of data it carried (the data itself is not kept).
public struct TCPSegment: Equatable, Sendable {
    public var source: IPAddress
    public var destination: IPAddress
    public var sourcePort: UInt16
    public var destinationPort: UInt16
    public var syn: Bool
    public var ack: Bool
    public var fin: Bool
    public var rst: Bool
    public var payloadLength: Int

    public init(source: IPAddress, destination: IPAddress, sourcePort: UInt16, destinationPort: UInt16, syn: Bool, ack: Bool, payloadLength: Int) {
        (self.source, self.destination, self.sourcePort, self.destinationPort) = (source, destination, sourcePort, destinationPort)
        (self.syn, self.ack, fin, rst, self.payloadLength) = (syn, ack, false, false, payloadLength)
    }

    /// RFC 9293 3.1: ports, the data offset (at least 5 words, within the segment) and the flags.
    static func parse(_ b: UnsafeRawBufferPointer, source: IPAddress, destination: IPAddress) -> TCPSegment? {
        guard let sport = b.u16be(at: 0), let dport = b.u16be(at: 2), let off = b.u8(at: 12), let flags = b.u8(at: 13) else { return nil }
        let header = Int(off >> 4) * 4
        guard header >= 20, header <= b.count else { return nil }
        var s = TCPSegment(
            source: source, destination: destination, sourcePort: sport, destinationPort: dport, syn: flags & 0x02 != 0, ack: flags & 0x10 != 0,
            payloadLength: b.count - header)
        s.fin = flags & 0x01 != 0
        s.rst = flags & 0x04 != 0
        return s
    }
}

/// The BSS Max Idle Period element (ID 90, IEEE 802.11-2020 9.4.2.78) of an association
/// response: how long the AP keeps a silent station, in units of 1000 TUs (1.024 s), and whether
/// only protected frames keep it alive.
public struct BSSMaxIdle: Equatable, Sendable, Codable {
    public init(periodUnits: UInt16, protectedKeepAliveRequired: Bool) {
        self.periodUnits = periodUnits
        self.protectedKeepAliveRequired = protectedKeepAliveRequired
    }

    public var periodUnits: UInt16
    public var protectedKeepAliveRequired: Bool

    /// Seconds: units × 1000 TU × 1.024 ms.
    public var seconds: Double { Double(periodUnits) * 1.024 }

    /// The element among a frame's elements, as the one element walk reads it; nil when absent
    /// or of the wrong length.
    public static func find(_ elements: UnsafeRawBufferPointer) -> BSSMaxIdle? { ElementSummary.parse(elements).bssMaxIdle }

    /// From a (re)association response frame as nl80211's ASSOCIATE event carries it: a
    /// 24-byte management header, then capability, status and AID, then the elements.
    public static func inAssociationResponse(_ frame: UnsafeRawBufferPointer) -> BSSMaxIdle? {
        guard let fc = frame.u8(at: 0), fc & 0x0C == 0, fc >> 4 == 1 || fc >> 4 == 3, frame.count >= 30 else { return nil }
        return find(frame.suffix(from: 30))
    }
}
