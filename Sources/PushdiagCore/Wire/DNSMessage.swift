/// A DNS message's header and first question (RFC 1035 4.1): enough to pair a query with its
/// answer (identifier and name) and to say how it ended (the response code). Bytes in, a value
/// out: nil when the 12-byte header is missing; a name that runs past the end, points forward
/// or loops leaves `name` nil.
public struct DNSMessage: Equatable, Sendable {
    public var id: UInt16
    public var isResponse: Bool
    /// 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED (RFC 1035 4.1.1, RFC 6895).
    public var rcode: UInt8
    /// The message was cut (TC).
    public var truncated: Bool
    public var questionCount: UInt16
    public var answerCount: UInt16
    /// The first question's name, lowercased, without the root's dot ("push.ward.example").
    public var name: String?
    /// The first question's type (1 A, 28 AAAA).
    public var qtype: UInt16?

    public static func parse(_ b: UnsafeRawBufferPointer) -> DNSMessage? {
        guard b.count >= 12, let id = b.u16be(at: 0), let flags = b.u16be(at: 2), let qd = b.u16be(at: 4), let an = b.u16be(at: 6) else { return nil }
        var m = DNSMessage(
            id: id, isResponse: flags & 0x8000 != 0, rcode: UInt8(flags & 0x000F), truncated: flags & 0x0200 != 0, questionCount: qd, answerCount: an)
        if qd > 0, let (name, end) = readName(b, at: 12) {
            m.name = name
            m.qtype = b.u16be(at: end)
        }
        return m
    }

    /// A name at `offset` and where the bytes after it start; pointers (RFC 1035 4.1.4) are
    /// followed backwards only, so a loop cannot keep it reading. Names over 255 bytes are refused.
    static func readName(_ b: UnsafeRawBufferPointer, at offset: Int) -> (String, Int)? {
        var labels: [String] = []
        var o = offset
        var end: Int?
        var total = 0
        while let len = b.u8(at: o) {
            if len == 0 {
                return (labels.joined(separator: "."), end ?? o + 1)
            }
            if len & 0xC0 == 0xC0 {
                guard let low = b.u8(at: o + 1) else { return nil }
                let target = Int(len & 0x3F) << 8 | Int(low)
                guard target < o else { return nil }
                if end == nil { end = o + 2 }
                o = target
                continue
            }
            guard len & 0xC0 == 0, let label = b.slice(o + 1, Int(len)) else { return nil }
            total += Int(len) + 1
            guard total <= 255 else { return nil }
            labels.append(String(decoding: label.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self))
            o += 1 + Int(len)
        }
        return nil
    }

    /// The response code's name (RFC 6895's registry).
    public static func rcodeName(_ r: UInt8) -> String {
        switch r {
        case 0: return "NOERROR"
        case 1: return "FORMERR"
        case 2: return "SERVFAIL"
        case 3: return "NXDOMAIN"
        case 4: return "NOTIMP"
        case 5: return "REFUSED"
        default: return "rcode \(r)"
        }
    }
}
