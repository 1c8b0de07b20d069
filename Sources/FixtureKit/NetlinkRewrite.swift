import PushdiagCore

/// Rebuilding nl80211 messages of a recording, for fixtures that need attributes added or
/// removed (lengths and padding are recomputed, which rewriting in place cannot do).
extension NetlinkFixtures {
    /// One attribute: its type (with the nested/byte-order flags as recorded), and either its
    /// value or, for the nested ones the rewrites look into, its children.
    public struct Attribute: Sendable, Equatable {
        public var type: UInt16
        public var value: [UInt8]
        public var children: [Attribute]?

        public init(type: UInt16, value: [UInt8]) {
            self.type = type
            self.value = value
        }

        public init(type: UInt16, children: [Attribute]) {
            self.type = type
            self.value = []
            self.children = children
        }

        public static func u32(_ type: UInt16, _ v: UInt32) -> Attribute {
            Attribute(type: type, value: (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) })
        }
        public static func u64(_ type: UInt16, _ v: UInt64) -> Attribute {
            Attribute(type: type, value: (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) })
        }

        /// The type without the NLA_F_NESTED / NLA_F_NET_BYTEORDER flags.
        public var kind: UInt16 { type & Netlink.attributeTypeMask }

        func encoded() -> [UInt8] {
            let payload = children.map { $0.flatMap { $0.encoded() } } ?? value
            let len = 4 + payload.count
            var out = [UInt8(len & 0xFF), UInt8(len >> 8), UInt8(type & 0xFF), UInt8(type >> 8)] + payload
            out += [UInt8](repeating: 0, count: Netlink.align(len) - len)
            return out
        }
    }

    /// One generic netlink message: its 16-byte header and 4-byte genl header as recorded, and
    /// its attributes.
    public struct Message: Sendable {
        public var header: [UInt8]
        public var attributes: [Attribute]
        /// A control message (error, done), kept as recorded.
        var raw: [UInt8]?
        public var command: UInt8 { header[16] }
        public var isRequest: Bool { header[6] & 0x01 != 0 }
        public var type: UInt16 { UInt16(header[4]) | UInt16(header[5]) << 8 }

        func encoded() -> [UInt8] {
            if let raw { return raw + [UInt8](repeating: 0, count: Netlink.align(raw.count) - raw.count) }
            var out = header + attributes.flatMap { $0.encoded() }
            put(UInt32(out.count), into: &out, at: 0)
            return out + [UInt8](repeating: 0, count: Netlink.align(out.count) - out.count)
        }
    }

    /// Attributes whose children the rewrites look into: station info, survey info, BSS.
    static let nested: Set<UInt16> = [NL80211.Attr.staInfo, NL80211.Attr.surveyInfo, NL80211.Attr.bss]

    static func parseAttributes(_ bytes: [UInt8], _ range: Range<Int>, nesting: Bool) -> [Attribute] {
        attributes(bytes, range).map { t, o, l in
            let raw = UInt16(bytes[o - 2]) | UInt16(bytes[o - 1]) << 8
            if nesting, nested.contains(t) { return Attribute(type: raw, children: parseAttributes(bytes, o..<(o + l), nesting: false)) }
            return Attribute(type: raw, value: Array(bytes[o..<(o + l)]))
        }
    }

    /// The messages of a record (control messages, errors and done, kept raw), or nil when the
    /// record does not parse (passed on as it is).
    static func decode(_ bytes: [UInt8]) -> [Message]? {
        var out: [Message] = []
        var o = NetlinkRecord.headerLength
        while bytes.count - o >= 20 {
            let len = Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
            guard len >= 16, o + len <= bytes.count else { return nil }
            let type = UInt16(bytes[o + 4]) | UInt16(bytes[o + 5]) << 8
            if type < 16 || len < 20 {
                out.append(Message(header: Array(bytes[o..<(o + 16)]), attributes: [], raw: Array(bytes[o..<(o + len)])))
                o += Netlink.align(len)
                continue
            }
            out.append(Message(header: Array(bytes[o..<(o + 20)]), attributes: parseAttributes(bytes, (o + 20)..<(o + len), nesting: true)))
            o += Netlink.align(len)
        }
        return o == bytes.count ? out : nil
    }

    /// Rewrites every generic netlink message of the recording with `body` (return nil to drop
    /// one); a record whose messages are all dropped is dropped. `body` also learns which
    /// request (by command) the recording last made, and how many of them it made so far.
    public static func rewrite(_ records: [Record], _ body: (inout Message, _ lastRequest: UInt8?, _ count: Int) -> Bool) -> [Record] {
        var lastRequest: UInt8?
        var counts: [UInt8: Int] = [:]
        return records.compactMap { r in
            guard let messages = decode(r.bytes), !messages.isEmpty else { return r }
            var kept: [Message] = []
            for var m in messages {
                if m.raw != nil {
                    kept.append(m)
                    continue
                }
                if m.isRequest {
                    lastRequest = m.command
                    counts[m.command, default: 0] += 1
                }
                if body(&m, lastRequest, lastRequest.map { counts[$0, default: 0] } ?? 0) { kept.append(m) }
            }
            guard !kept.isEmpty else { return nil }
            return Record(time: r.time, bytes: Array(r.bytes[0..<NetlinkRecord.headerLength]) + kept.flatMap { $0.encoded() })
        }
    }
}
