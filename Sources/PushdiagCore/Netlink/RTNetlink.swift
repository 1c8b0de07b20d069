/// rtnetlink (`<linux/rtnetlink.h>`, `<linux/if_link.h>`, `<linux/neighbour.h>`): the route the
/// kernel would take to a destination (as `ip route get`), the egress link and its lower-device
/// chain (VLAN ids), and the neighbour state of the gateway. Numbers mirror the kernel headers; a
/// test compares them with the C values.
public enum RTNetlink {
    public static let newLink: UInt16 = 16, getLink: UInt16 = 18, newRoute: UInt16 = 24, getRoute: UInt16 = 26
    public static let newNeighbour: UInt16 = 28, getNeighbour: UInt16 = 30
    public static let delLink: UInt16 = 17, newAddress: UInt16 = 20, delAddress: UInt16 = 21, getAddress: UInt16 = 22
    /// Multicast groups (`RTNLGRP_*`): links, IPv4 and IPv6 addresses.
    public static let groupLink: UInt32 = 1, groupIPv4Address: UInt32 = 5, groupIPv6Address: UInt32 = 9
    /// `RTNLGRP_NEIGH`: neighbour entries (the gateway's state).
    public static let groupNeighbour: UInt32 = 3
    /// `RT_SCOPE_LINK`: an address good on its own link only.
    public static let scopeLink: UInt8 = 253
    /// `IFA_*`.
    public static let ifaAddress: UInt16 = 1, ifaLocal: UInt16 = 2, ifaFlags: UInt16 = 8
    /// include/uapi/linux/if_addr.h
    public static let ifaFlagDADFailed: UInt32 = 0x08, ifaFlagTentative: UInt32 = 0x40
    /// `RTA_*`.
    public static let rtaDst: UInt16 = 1, rtaOIF: UInt16 = 4, rtaGateway: UInt16 = 5, rtaPrefSrc: UInt16 = 7, rtaMetrics: UInt16 = 8
    public static let rtaTable: UInt16 = 15, rtaVia: UInt16 = 18, rtaxMTU: UInt16 = 2
    /// `RTN_*` route types.
    public static let rtnUnicast: UInt8 = 1, rtnLocal: UInt8 = 2, rtnBlackhole: UInt8 = 6, rtnUnreachable: UInt8 = 7, rtnProhibit: UInt8 = 8
    /// `IFLA_*`.
    public static let iflaAddress: UInt16 = 1, iflaIfname: UInt16 = 3, iflaMTU: UInt16 = 4, iflaLink: UInt16 = 5
    public static let iflaCarrier: UInt16 = 33
    public static let iflaOperstate: UInt16 = 16, iflaLinkinfo: UInt16 = 18, iflaInfoKind: UInt16 = 1, iflaInfoData: UInt16 = 2, iflaVLANID: UInt16 = 1
    public static let ndaDst: UInt16 = 1
    /// `NUD_INCOMPLETE`, `NUD_REACHABLE`, `NUD_FAILED`.
    public static let nudIncomplete: UInt16 = 0x01, nudReachable: UInt16 = 0x02, nudFailed: UInt16 = 0x20
    /// `AF_INET`, `AF_INET6`; `RTM_F_LOOKUP_TABLE`.
    public static let afInet: UInt8 = 2, afInet6: UInt8 = 10
    public static let lookupTable: UInt32 = 0x1000

    public struct Route: Equatable, Sendable {
        public var type: UInt8
        public var table: UInt32?
        public var outputInterface: Int32?
        public var gateway: IPAddress?
        public var preferredSource: IPAddress?
        public var mtu: UInt32?
    }

    public struct Link: Equatable, Sendable {
        public var index: Int32
        public var name: String?
        public var mtu: UInt32?
        /// The lower device (`IFLA_LINK`), for VLANs and macvlans.
        public var parent: Int32?
        /// `IFLA_INFO_KIND` ("vlan", "veth", "bridge", …).
        public var kind: String?
        public var vlanID: UInt16?
        public var operstate: UInt8?
        /// `IFLA_CARRIER`: 1 when the link has carrier (for Wi-Fi: associated).
        public var carrier: UInt8?
        /// An `RTM_DELLINK`: the interface went away.
        public var removed = false
    }

    /// An address of an interface (`RTM_NEWADDR` / `RTM_DELADDR`).
    public struct Address: Equatable, Sendable {
        public var ifindex: Int32
        public var prefixLength: UInt8
        public var address: IPAddress?
        public var removed: Bool
        /// `ifa_scope`: 0 universe (global), 253 link (IPv6's fe80::/10), 254 host.
        public var scope: UInt8 = 0
        /// Good only on its own link (an IPv6 link-local address): no route to a push server.
        public var isLinkScope: Bool { scope == RTNetlink.scopeLink }
        /// `IFA_F_*`: the header's 8 bits, or IFA_FLAGS' 32 when the kernel sends it.
        public var flags: UInt32 = 0
        /// IPv6 duplicate address detection has not finished (IFA_F_TENTATIVE) or found the
        /// address in use (IFA_F_DADFAILED): not usable yet, or ever. The kernel announces the
        /// address again without the flag once DAD has passed.
        public var isTentative: Bool { flags & (RTNetlink.ifaFlagTentative | RTNetlink.ifaFlagDADFailed) != 0 }
        /// "10.40.0.2/24", as `ip addr` writes it.
        public var text: String { "\(address?.description ?? "?")/\(prefixLength)" }
    }

    public struct Neighbour: Equatable, Sendable {
        public var ifindex: Int32
        public var address: IPAddress?
        public var state: UInt16
    }

    /// `ip route get ADDRESS`.
    public static func routeRequest(to a: IPAddress, sequence: UInt32) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: getRoute, flags: Netlink.flagRequest, sequence: sequence)
        b.raw([a.family, UInt8(a.bytes.count * 8), 0, 0, 0, 0, 0, 0] + le32(lookupTable))
        b.attribute(rtaDst, a.bytes)
        return b.finish()
    }

    public static func linkDumpRequest(sequence: UInt32) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: getLink, flags: Netlink.flagRequest | Netlink.flagDump, sequence: sequence)
        b.raw([UInt8](repeating: 0, count: 16))
        return b.finish()
    }

    public static func addressDumpRequest(sequence: UInt32) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: getAddress, flags: Netlink.flagRequest | Netlink.flagDump, sequence: sequence)
        b.raw([UInt8](repeating: 0, count: 8))
        return b.finish()
    }

    public static func neighbourDumpRequest(family: UInt8, sequence: UInt32) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: getNeighbour, flags: Netlink.flagRequest | Netlink.flagDump, sequence: sequence)
        b.raw([family] + [UInt8](repeating: 0, count: 11))
        return b.finish()
    }

    public static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    public static func route(_ m: Netlink.Message) -> Route? {
        guard m.type == newRoute, m.payload.count >= 12 else { return nil }
        var r = Route(type: m.payload[7])
        Netlink.forEachAttribute(m.payload.suffix(from: 12)) { t, v in
            switch t {
            case rtaOIF: r.outputInterface = v.nlS32
            case rtaGateway: r.gateway = IPAddress(bytes: v.nlBytes)
            case rtaVia: if v.count >= 2 { r.gateway = IPAddress(bytes: Array(v.suffix(from: 2))) }  // family u16, address
            case rtaPrefSrc: r.preferredSource = IPAddress(bytes: v.nlBytes)
            case rtaTable: r.table = v.nlU32
            case rtaMetrics: Netlink.forEachAttribute(v) { mt, mv in if mt == rtaxMTU { r.mtu = mv.nlU32 } }
            default: break
            }
        }
        return r
    }

    public static func link(_ m: Netlink.Message) -> Link? {
        guard m.type == newLink || m.type == delLink, m.payload.count >= 16, let index = m.payload.u32le(at: 4) else { return nil }
        var l = Link(index: Int32(bitPattern: index))
        l.removed = m.type == delLink
        Netlink.forEachAttribute(m.payload.suffix(from: 16)) { t, v in
            switch t {
            case iflaIfname: l.name = v.nlString
            case iflaMTU: l.mtu = v.nlU32
            case iflaLink: l.parent = v.nlS32
            case iflaOperstate: l.operstate = v.nlU8
            case iflaCarrier: l.carrier = v.nlU8
            case iflaLinkinfo:
                Netlink.forEachAttribute(v) { it, iv in
                    if it == iflaInfoKind { l.kind = iv.nlString }
                    if it == iflaInfoData, l.kind == "vlan" {
                        Netlink.forEachAttribute(iv) { dt, dv in if dt == iflaVLANID { l.vlanID = dv.nlU16 } }
                    }
                }
            default: break
            }
        }
        return l
    }

    /// An address message; the local address (`IFA_LOCAL`) where there is one (on a
    /// point-to-point link `IFA_ADDRESS` is the peer's), else `IFA_ADDRESS`.
    public static func address(_ m: Netlink.Message) -> Address? {
        guard m.type == newAddress || m.type == delAddress, m.payload.count >= 8, let index = m.payload.u32le(at: 4) else { return nil }
        var a = Address(ifindex: Int32(bitPattern: index), prefixLength: m.payload[1], address: nil, removed: m.type == delAddress, scope: m.payload[3])
        a.flags = UInt32(m.payload[m.payload.startIndex + 2])
        var local: IPAddress?
        Netlink.forEachAttribute(m.payload.suffix(from: 8)) { t, v in
            if t == ifaLocal { local = IPAddress(bytes: v.nlBytes) }
            if t == ifaAddress { a.address = IPAddress(bytes: v.nlBytes) }
            if t == ifaFlags, let f = v.nlU32 { a.flags = f }
        }
        if let local { a.address = local }
        return a
    }

    public static func neighbour(_ m: Netlink.Message) -> Neighbour? {
        guard m.type == newNeighbour, m.payload.count >= 12, let ifindex = m.payload.u32le(at: 4), let state = m.payload.u16le(at: 8) else { return nil }
        var n = Neighbour(ifindex: Int32(bitPattern: ifindex), state: state)
        Netlink.forEachAttribute(m.payload.suffix(from: 12)) { t, v in if t == ndaDst { n.address = IPAddress(bytes: v.nlBytes) } }
        return n
    }

}

/// A neighbour entry's state (`NUD_*`), named as `ip neigh` names it; `none` for no state bit.
public enum NeighbourState: String, Codable, Sendable, RawValueDescribed {
    case permanent, noarp, reachable, stale, delay, probe, failed, incomplete
    case noEntry = "none"

    /// The first of the entry's `NUD_*` bits in the order `ip neigh` reads them.
    public init(nud s: UInt16) {
        let bits: [(UInt16, NeighbourState)] = [
            (0x80, .permanent), (0x40, .noarp), (RTNetlink.nudReachable, .reachable), (0x04, .stale), (0x08, .delay),
            (0x10, .probe), (RTNetlink.nudFailed, .failed), (RTNetlink.nudIncomplete, .incomplete),
        ]
        self = bits.first { s & $0.0 != 0 }?.1 ?? .noEntry
    }
}

extension NetlinkMessageBuilder {
    /// A fixed header (rtmsg, ifinfomsg, ndmsg) right after the netlink header.
    public mutating func raw(_ bytes: [UInt8]) { appendRaw(bytes) }
}

/// IP addresses as text: IPv4 dotted quads, IPv6 as RFC 5952 writes them.
