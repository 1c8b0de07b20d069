/// An IPv4 (4 bytes) or IPv6 (16 bytes) address: what a route, a neighbour and a socket speak of.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible, Codable {
    public var bytes: [UInt8]
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }
    /// `AF_INET` or `AF_INET6`.
    public var family: UInt8 { bytes.count == 4 ? RTNetlink.afInet : RTNetlink.afInet6 }
    public var description: String { IPText.format(bytes) }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) carries; any other as is.
    public var unmapped: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return self }
        return IPAddress(bytes: Array(bytes[12..<16]))!
    }

    /// What a limit per client counts one client by: its address, an IPv4 address a mapped
    /// IPv6 one carries as that IPv4 address. (An IPv6 host can take other addresses of its
    /// subnet, RFC 8981's temporary ones; counting by /64 instead lumps a whole LAN, two
    /// Prometheus replicas on one subnet sharing one share, so each address counts alone.)
    public var client: String { unmapped.description }

    /// The /64 of an IPv6 address ("2001:db8:1:2::/64"); nil for IPv4 (a mapped one too).
    public var subnet64: String? {
        let a = unmapped
        guard a.bytes.count == 16 else { return nil }
        return IPText.format(Array(a.bytes[0..<8]) + [UInt8](repeating: 0, count: 8)) + "/64"
    }

    /// A literal address, or nil when `text` is not one.
    public init?(_ text: String) {
        guard let b = IPText.parse(text) else { return nil }
        bytes = b
    }
    public init(from decoder: any Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let b = IPText.parse(s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an IP address: \(s)"))
        }
        bytes = b
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// Addresses as text, both ways, without Foundation: RFC 5952 for IPv6.
public enum IPText {
    public static func format(_ b: [UInt8]) -> String {
        if b.count == 4 { return b.map(String.init).joined(separator: ".") }
        guard b.count == 16 else { return "?" }
        // Typed step by step: as one inferred expression it took the type checker 1.8 s.
        let groups: [UInt16] = (0..<8).map { (i: Int) -> UInt16 in
            let high = UInt16(b[2 * i])
            let low = UInt16(b[2 * i + 1])
            return high << 8 | low
        }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xFFFF {
            return "::ffff:" + b[12..<16].map(String.init).joined(separator: ".")
        }
        // The longest run of two or more zero groups becomes "::".
        var best = (start: -1, length: 0)
        var i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > best.length && j - i >= 2 { best = (i, j - i) }
                i = j
            } else {
                i += 1
            }
        }
        func hex(_ r: ArraySlice<UInt16>) -> String { r.map { String($0, radix: 16) }.joined(separator: ":") }
        if best.start < 0 { return hex(groups[...]) }
        return hex(groups[0..<best.start]) + "::" + hex(groups[(best.start + best.length)...])
    }

    public static func parse(_ s: String) -> [UInt8]? {
        let v4 = s.split(separator: ".", omittingEmptySubsequences: false)
        if v4.count == 4 && !s.contains(":") {
            var out: [UInt8] = []
            for p in v4 {
                guard !p.isEmpty, p.count <= 3, let n = UInt8(p) else { return nil }
                out.append(n)
            }
            return out
        }
        guard s.contains(":") else { return nil }
        // An IPv4 address as the last 32 bits (RFC 4291 2.2: "::ffff:10.0.0.1", as `format` writes it).
        var s = s
        if let colon = s.lastIndex(of: ":"), s[colon...].contains(".") {
            guard let v4 = parse(String(s[s.index(after: colon)...])), v4.count == 4 else { return nil }
            s = String(s[...colon]) + String(UInt16(v4[0]) << 8 | UInt16(v4[1]), radix: 16) + ":" + String(UInt16(v4[2]) << 8 | UInt16(v4[3]), radix: 16)
        }
        // Split on the one "::" (no Foundation in the core).
        var halves: [String] = []
        if let r = s.firstRange(of: "::") {
            halves = [String(s[..<r.lowerBound]), String(s[r.upperBound...])]
            guard !halves[1].contains("::") else { return nil }
        } else {
            halves = [s]
        }
        func groups(_ t: String) -> [UInt16]? {
            if t.isEmpty { return [] }
            var out: [UInt16] = []
            for g in t.split(separator: ":", omittingEmptySubsequences: false) {
                guard !g.isEmpty, g.count <= 4, let n = UInt16(g, radix: 16) else { return nil }
                out.append(n)
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}
