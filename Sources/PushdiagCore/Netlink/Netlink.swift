/// Netlink framing (RFC 3549, `<linux/netlink.h>`): messages, generic-netlink headers and
/// attributes, read from borrowed bytes with every length checked, and built into byte arrays.
///
/// Values are in host byte order (little-endian on the machines pushdiag runs on).
public enum Netlink {
    /// `NLMSG_NOOP`, `NLMSG_ERROR`, `NLMSG_DONE`.
    public static let noop: UInt16 = 1, error: UInt16 = 2, done: UInt16 = 3
    /// `NLM_F_REQUEST`, `NLM_F_MULTI`, `NLM_F_ACK`, `NLM_F_DUMP`, `NLM_F_DUMP_INTR`.
    public static let flagRequest: UInt16 = 1, flagMulti: UInt16 = 2, flagAck: UInt16 = 4, flagDump: UInt16 = 0x300, flagDumpInterrupted: UInt16 = 16
    /// `NETLINK_ROUTE`, `NETLINK_GENERIC`.
    public static let protocolRoute: UInt16 = 0, protocolGeneric: UInt16 = 16
    /// `NLA_F_NESTED`, `NLA_F_NET_BYTEORDER` and the mask that leaves the type.
    public static let attributeTypeMask: UInt16 = 0x3FFF
    /// `ARPHRD_NETLINK`, in the cooked header of LINKTYPE_NETLINK records.
    public static let arphrdNetlink: UInt16 = 824

    public static func align(_ n: Int) -> Int { (n + 3) & ~3 }

    /// One message, borrowed from the buffer it was read from.
    public struct Message {
        public var type: UInt16
        public var flags: UInt16
        public var sequence: UInt32
        public var portID: UInt32
        /// Everything after the 16-byte header.
        public var payload: UnsafeRawBufferPointer

        /// The error code of an `NLMSG_ERROR` message (0 is an acknowledgement), nil otherwise.
        public var errorCode: Int32? {
            guard type == Netlink.error, let v = payload.u32le(at: 0) else { return nil }
            return Int32(bitPattern: v)
        }

        /// Generic netlink: command, and the attributes after the 4-byte genl header.
        public var genlCommand: UInt8? { payload.u8(at: 0) }
        public var genlAttributes: UnsafeRawBufferPointer { payload.suffix(from: 4) }
    }

    /// Calls `body` for each message of a buffer (a `recv` may return several). Throws at the
    /// first message whose length does not fit, after the ones before it were delivered.
    public static func forEachMessage(_ b: UnsafeRawBufferPointer, _ body: (Message) throws(NetlinkError) -> Void) throws(NetlinkError) {
        var o = 0
        while b.count - o >= 16 {
            let len = Int(b.u32le(at: o)!)
            guard len >= 16, len <= b.count - o else {
                throw .malformed("message at byte \(o) claims \(len) bytes, \(b.count - o) left")
            }
            let m = Message(
                type: b.u16le(at: o + 4)!, flags: b.u16le(at: o + 6)!, sequence: b.u32le(at: o + 8)!,
                portID: b.u32le(at: o + 12)!, payload: UnsafeRawBufferPointer(rebasing: b[(o + 16)..<(o + len)]))
            try body(m)
            o += align(len)
        }
        if o < b.count, !b[o...].allSatisfy({ $0 == 0 }) {
            throw .malformed("\(b.count - o) stray bytes after the last message")
        }
    }

    /// Whether a received buffer answers the request with `sequence` (sent from `port`, when
    /// known), and whether it ends it: NLMSG_DONE for a dump, the acknowledgement or error
    /// otherwise. A malformed buffer that is ours ends the exchange.
    public static func replyProgress(_ b: UnsafeRawBufferPointer, sequence: UInt32, port: UInt32?, dump: Bool) -> (ours: Bool, finished: Bool, malformed: Bool)
    {
        var ours = false
        var finished = false
        do {
            try forEachMessage(b) { (m: Message) throws(NetlinkError) in
                guard m.sequence == sequence, port == nil || port == 0 || m.portID == port else { return }
                ours = true
                if m.type == done || m.type == error || (!dump && m.flags & flagMulti == 0) { finished = true }
            }
        } catch {
            return (ours, ours, true)
        }
        return (ours, finished, false)
    }

    /// Calls `body` for each attribute (type without flags, value). Returns false when the list
    /// ends in an attribute whose length does not fit; the ones before it were delivered.
    @discardableResult
    public static func forEachAttribute(_ b: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) -> Bool {
        var o = 0
        while b.count - o >= 4 {
            let len = Int(b.u16le(at: o)!)
            guard len >= 4, len <= b.count - o else { return false }
            body(b.u16le(at: o + 2)! & attributeTypeMask, UnsafeRawBufferPointer(rebasing: b[(o + 4)..<(o + len)]))
            o += align(len)
        }
        return o >= b.count || b.count - o < 4 && b[o...].allSatisfy { $0 == 0 }
    }
}

/// Why a netlink exchange or recording could not be used.
public enum NetlinkError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    /// The kernel answered with an error (negative errno).
    case kernel(code: Int32, request: String)
    case io(String)
    case unavailable(String)
    case replay(String)

    public var description: String {
        switch self {
        case .malformed(let s): return "malformed netlink message: \(s)"
        case .kernel(let code, let request): return "\(request): kernel reports: \(Errno.describe(-code))"
        case .io(let s): return s
        case .unavailable(let s): return s
        case .replay(let s): return s
        }
    }
}

/// Attribute values, checked against the length their type needs (iw's policy idea): a value of
/// the wrong length reads as absent, never as zero or as a neighbour's bytes.
extension UnsafeRawBufferPointer {
    public var nlU8: UInt8? { count >= 1 ? self[0] : nil }
    public var nlU16: UInt16? { count >= 2 ? u16le(at: 0) : nil }
    public var nlU32: UInt32? { count >= 4 ? u32le(at: 0) : nil }
    /// u64 attributes are 4-aligned in the message, so read unaligned.
    public var nlU64: UInt64? { count >= 8 ? u64le(at: 0) : nil }
    public var nlS8: Int8? { count >= 1 ? Int8(bitPattern: self[0]) : nil }
    public var nlS32: Int32? { count >= 4 ? Int32(bitPattern: u32le(at: 0)!) : nil }
    public var nlMAC: MACAddress? { count == 6 ? mac(at: 0) : nil }
    /// A NUL-terminated (or not) string.
    /// A name (an interface's, a family's) up to its NUL, printable (`SSIDText`: control
    /// characters and bytes that are not UTF-8 as \xNN).
    public var nlString: String { SSIDText.render(Array(prefix(while: { $0 != 0 }))) }
    public var nlBytes: [UInt8] { Array(self) }
}

/// Builds one netlink message: header, optional generic-netlink header, attributes.
public struct NetlinkMessageBuilder {
    public private(set) var bytes: [UInt8]

    public init(type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32 = 0) {
        bytes = [UInt8](repeating: 0, count: 16)
        put16(type, at: 4)
        put16(flags, at: 6)
        put32(sequence, at: 8)
        put32(portID, at: 12)
    }

    mutating func put16(_ v: UInt16, at o: Int) {
        bytes[o] = UInt8(v & 0xFF)
        bytes[o + 1] = UInt8(v >> 8)
    }

    mutating func put32(_ v: UInt32, at o: Int) {
        for i in 0..<4 { bytes[o + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
    }

    mutating func appendRaw(_ b: [UInt8]) { bytes += b }

    /// The generic netlink header: command, version.
    public mutating func genl(command: UInt8, version: UInt8 = 1) {
        bytes += [command, version, 0, 0]
    }

    public mutating func attribute(_ type: UInt16, _ value: [UInt8]) {
        let len = 4 + value.count
        bytes += [UInt8(len & 0xFF), UInt8(len >> 8), UInt8(type & 0xFF), UInt8(type >> 8)] + value
        bytes += [UInt8](repeating: 0, count: Netlink.align(len) - len)
    }

    public mutating func attribute(_ type: UInt16, u32 v: UInt32) {
        attribute(type, (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) })
    }

    public mutating func attribute(_ type: UInt16, string s: String) {
        attribute(type, Array(s.utf8) + [0])
    }

    /// The finished message with its length filled in.
    public func finish() -> [UInt8] {
        var b = self
        b.put32(UInt32(bytes.count), at: 0)
        return b.bytes
    }
}
