/// A DHCP message (RFC 2131 over BOOTP, RFC 951; options RFC 2132): what a join needs to time
/// the exchange and name the lease. Bytes in, a value out: nil when the fixed header or the magic
/// cookie is missing; an option that runs past the end stops the walk and sets `malformed`.
public struct DHCPMessage: Equatable, Sendable {
    public init(op: UInt8, xid: UInt32) {
        self.op = op
        self.xid = xid
    }

    /// Option 53's values (RFC 2132 9.6).
    public enum MessageType: UInt8, Codable, Sendable, CustomStringConvertible {
        case discover = 1, offer, request, decline, ack, nak, release, inform

        public var description: String {
            switch self {
            case .discover: return "DISCOVER"
            case .offer: return "OFFER"
            case .request: return "REQUEST"
            case .decline: return "DECLINE"
            case .ack: return "ACK"
            case .nak: return "NAK"
            case .release: return "RELEASE"
            case .inform: return "INFORM"
            }
        }

        /// Sent by the client (the rest by a server).
        public var fromClient: Bool { [.discover, .request, .decline, .release, .inform].contains(self) }
    }

    /// 1 BOOTREQUEST, 2 BOOTREPLY.
    public var op: UInt8
    public var xid: UInt32
    public var clientMAC: MACAddress?

    /// Whether this message is `station`'s client's (its chaddr), as far as is known: true when
    /// either address is not.
    public func isOf(_ station: MACAddress?) -> Bool { station == nil || clientMAC == nil || clientMAC == station }
    /// `yiaddr`: the address offered or acknowledged.
    public var yourAddress: IPAddress?
    /// `ciaddr`: the client's address when it renews or rebinds.
    public var clientAddress: IPAddress?
    /// nil without option 53 (plain BOOTP) or with a value RFC 2132 does not define.
    public var messageType: MessageType?
    /// Option 51, seconds.
    public var leaseSeconds: UInt32?
    /// Option 54.
    public var serverIdentifier: IPAddress?
    /// Option 50: the address a REQUEST asks for (INIT-REBOOT and SELECTING).
    public var requestedAddress: IPAddress?
    /// Option 3: the first router.
    public var router: IPAddress?
    /// Option 121 (RFC 3442) was given: the client then ignores option 3, its routes are those.
    public var classlessRoutes = false
    /// An option ran past the end, or no end option came.
    public var malformed = false

    static let cookie: UInt32 = 0x6382_5363

    public static func parse(_ b: UnsafeRawBufferPointer) -> DHCPMessage? {
        guard let op = b.u8(at: 0), let hlen = b.u8(at: 2), let xid = b.u32be(at: 4), b.u32be(at: 236) == cookie else { return nil }
        func address(_ o: Int) -> IPAddress? {
            guard let s = b.slice(o, 4), s.contains(where: { $0 != 0 }) else { return nil }
            return IPAddress(bytes: Array(s))
        }
        var m = DHCPMessage(op: op, xid: xid)
        m.clientAddress = address(12)
        m.yourAddress = address(16)
        if hlen == 6 { m.clientMAC = b.mac(at: 28) }
        var o = 240
        var ended = false
        while let code = b.u8(at: o) {
            if code == 0 {
                o += 1
                continue
            }
            if code == 255 {
                ended = true
                break
            }
            guard let len = b.u8(at: o + 1), let v = b.slice(o + 2, Int(len)) else {
                m.malformed = true
                break
            }
            switch code {
            case 53: if len == 1 { m.messageType = MessageType(rawValue: v[0]) } else { m.malformed = true }
            case 51: if len == 4 { m.leaseSeconds = v.u32be(at: 0) } else { m.malformed = true }
            case 54: if len == 4 { m.serverIdentifier = IPAddress(bytes: Array(v)) } else { m.malformed = true }
            case 50: if len == 4 { m.requestedAddress = IPAddress(bytes: Array(v)) } else { m.malformed = true }
            case 3: if len >= 4, len % 4 == 0 { m.router = IPAddress(bytes: Array(v.prefix(4))) } else { m.malformed = true }
            case 121: m.classlessRoutes = true
            default: break
            }
            o += 2 + Int(len)
        }
        if !ended { m.malformed = true }
        return m
    }
}
