/// What a netlink request asks, as far as the answer depends on it: the message type (the
/// generic-netlink family, or the rtnetlink message), the command, the dump flag and the
/// attributes that select the object asked about (interface, radio, peer MAC, destination).
/// Sequence numbers, port ids, acknowledgement flags and attributes that only shape the answer
/// are left out, so a request pushdiag makes equals the one `iw`, `ip` or wpa_supplicant made
/// for the same question. A replay matches requests by this.
public struct NetlinkRequestMeaning: Hashable, Sendable {
    public var netlinkProtocol: UInt16
    public var type: UInt16
    /// The generic-netlink command (nil for rtnetlink).
    public var command: UInt8?
    public var dump: Bool
    public var selectors: [Selector]

    /// One selecting value, raw as sent.
    public struct Selector: Hashable, Sendable {
        public var kind: Kind
        public var value: [UInt8]
    }

    public enum Kind: Hashable, Sendable {
        /// nl80211's `NL80211_ATTR_WIPHY`, `IFINDEX`, `IFNAME`, `MAC`, `WDEV`.
        case wiphy, ifindex, ifname, mac, wdev
        /// The controller's `CTRL_ATTR_FAMILY_ID` / `CTRL_ATTR_FAMILY_NAME`.
        case familyID, familyName
        /// rtnetlink: the address family of the header, the interface index of an `ifinfomsg` or
        /// `ndmsg`, `IFLA_IFNAME`, `RTA_DST`.
        case addressFamily, linkIndex, linkName, destination
    }

    /// nl80211's selecting attributes (by number, for any family that is not the controller:
    /// only nl80211 is asked over generic netlink).
    static let nl80211Selectors: [UInt16: Kind] = [1: .wiphy, 3: .ifindex, 4: .ifname, 6: .mac, 153: .wdev]

    /// The meaning of the first message of `b`; nil when it is not a whole request.
    public init?(_ b: UnsafeRawBufferPointer, protocol proto: UInt16) {
        guard b.count >= 16, let len = b.u32le(at: 0), len >= 16, Int(len) <= b.count else { return nil }
        let flags = b.u16le(at: 6)!
        guard flags & Netlink.flagRequest != 0 else { return nil }
        netlinkProtocol = proto
        type = b.u16le(at: 4)!
        dump = flags & Netlink.flagDump == Netlink.flagDump
        let body = UnsafeRawBufferPointer(rebasing: b[16..<Int(len)])
        var found: [Selector] = []
        func add(_ kind: Kind, _ v: UnsafeRawBufferPointer) { found.append(Selector(kind: kind, value: Array(v))) }
        if proto == Netlink.protocolGeneric {
            guard let c = body.u8(at: 0) else { return nil }
            command = c
            let attributes = body.suffix(from: min(4, body.count))
            if type == GenericNetlink.controlID {
                Netlink.forEachAttribute(attributes) { t, v in
                    if t == GenericNetlink.attrFamilyID { add(.familyID, v) }
                    if t == GenericNetlink.attrFamilyName { add(.familyName, UnsafeRawBufferPointer(rebasing: v.prefix { $0 != 0 })) }
                }
            } else {
                Netlink.forEachAttribute(attributes) { t, v in
                    if let k = Self.nl80211Selectors[t] { add(k, t == 4 ? UnsafeRawBufferPointer(rebasing: v.prefix { $0 != 0 }) : v) }
                }
            }
        } else if proto == Netlink.protocolRoute {
            command = nil
            // The family byte starts every rtnetlink header; AF_UNSPEC selects nothing.
            if let f = body.u8(at: 0), f != 0 { found.append(Selector(kind: .addressFamily, value: [f])) }
            switch type {
            case RTNetlink.getLink:  // ifinfomsg (16 bytes): index at 4
                if let i = body.u32le(at: 4), i != 0 { found.append(Selector(kind: .linkIndex, value: Self.le32(i))) }
                Netlink.forEachAttribute(body.suffix(from: min(16, body.count))) { t, v in
                    if t == RTNetlink.iflaIfname { add(.linkName, UnsafeRawBufferPointer(rebasing: v.prefix { $0 != 0 })) }
                }
            case RTNetlink.getRoute:  // rtmsg (12 bytes)
                Netlink.forEachAttribute(body.suffix(from: min(12, body.count))) { t, v in
                    if t == RTNetlink.rtaDst { add(.destination, v) }
                }
            case RTNetlink.getNeighbour:  // ndmsg (12 bytes): index at 4
                if let i = body.u32le(at: 4), i != 0 { found.append(Selector(kind: .linkIndex, value: Self.le32(i))) }
                Netlink.forEachAttribute(body.suffix(from: min(12, body.count))) { t, v in
                    if t == RTNetlink.ndaDst { add(.destination, v) }
                }
            default: break
            }
        } else {
            command = nil
        }
        selectors = found
    }

    public init?(_ bytes: [UInt8], protocol proto: UInt16) {
        guard let m = bytes.withUnsafeBytes({ Self($0, protocol: proto) }) else { return nil }
        self = m
    }

    /// The same question, asked about (possibly) another object: type, command, dump.
    public func sameQuestion(_ o: Self) -> Bool { netlinkProtocol == o.netlinkProtocol && type == o.type && command == o.command && dump == o.dump }

    /// Whether a recorded request (`self`) answers `asked`: the same question about the same
    /// object. A selector the recorded request leaves out is a wider question (a dump of every
    /// address family answers one of AF_INET); a recorded selector the asker does not send
    /// narrows the answer and does not match.
    public func answers(_ asked: Self) -> Bool {
        guard sameQuestion(asked) else { return false }
        for s in selectors where !asked.selectors.contains(s) { return false }
        for s in asked.selectors where !selectors.contains(s) {
            // Only the address family may be left out by the recorder.
            if s.kind != .addressFamily || selectors.contains(where: { $0.kind == .addressFamily }) { return false }
        }
        return true
    }

    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    /// "wlan2 (ifindex 5)", "wlan2 (wdev 0x0000000200000002)", "10.99.1.1", "phy 0": the objects
    /// asked about, for an error; `names` and `wdevNames` map interface indexes and wireless
    /// device ids to names where the recording told them.
    public func subject(names: [UInt32: String] = [:], wdevNames: [UInt64: String] = [:]) -> String {
        let parts = selectors.compactMap { s -> String? in
            let v = s.value
            func u32() -> UInt32? { v.count >= 4 ? UInt32(v[0]) | UInt32(v[1]) << 8 | UInt32(v[2]) << 16 | UInt32(v[3]) << 24 : nil }
            switch s.kind {
            case .ifindex, .linkIndex:
                guard let i = u32() else { return "interface ?" }
                return names[i].map { "\($0) (ifindex \(i))" } ?? "ifindex \(i)"
            case .ifname, .linkName, .familyName: return String(decoding: v, as: UTF8.self)
            case .wiphy: return u32().map { "phy \($0)" } ?? "phy ?"
            case .mac: return v.count == 6 ? v.map { String($0, radix: 16).leftPadded(to: 2) }.joined(separator: ":") : "MAC ?"
            case .wdev:
                let hex = "wdev 0x" + v.reversed().map { String($0, radix: 16).leftPadded(to: 2) }.joined()
                let id = v.count == 8 ? v.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : nil
                return id.flatMap { wdevNames[$0] }.map { "\($0) (\(hex))" } ?? hex
            case .familyID: return v.count >= 2 ? "family \(UInt16(v[0]) | UInt16(v[1]) << 8)" : "family ?"
            case .destination: return IPAddress(bytes: v)?.description ?? "address ?"
            case .addressFamily: return nil
            }
        }
        return parts.isEmpty ? "every object" : parts.joined(separator: ", ")
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
