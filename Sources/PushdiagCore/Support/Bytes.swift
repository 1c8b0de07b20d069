/// Bounds-checked, allocation-free reads from borrowed bytes.
///
/// Every read names its byte order and returns `nil` when the bytes run short, so a
/// truncated record can never be read past its end.
extension UnsafeRawBufferPointer {
    @inline(__always)
    public func u8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < count else { return nil }
        return self[offset]
    }

    @inline(__always)
    public func u16le(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    public func u16be(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    public func u32le(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    public func u32be(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    public func u64le(at offset: Int) -> UInt64? {
        guard offset >= 0, offset <= count - 8 else { return nil }
        return UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// Six bytes as a MAC address, or nil when fewer remain.
    @inline(__always)
    public func mac(at offset: Int) -> MACAddress? {
        guard offset >= 0, offset <= count - 6 else { return nil }
        let high = UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let low = UInt16(bigEndian: loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self))
        return MACAddress(rawValue: UInt64(high) << 16 | UInt64(low))
    }

    /// A borrowed sub-range, or nil when it does not fit.
    @inline(__always)
    public func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard offset >= 0, length >= 0, offset <= count - length else { return nil }
        return UnsafeRawBufferPointer(rebasing: self[offset..<(offset + length)])
    }

    /// Everything from `offset` on (empty when past the end).
    @inline(__always)
    public func suffix(from offset: Int) -> UnsafeRawBufferPointer {
        let start = Swift.min(Swift.max(offset, 0), count)
        return UnsafeRawBufferPointer(rebasing: self[start..<count])
    }
}

/// A 48-bit IEEE MAC address held in an integer, so tables can key on it without hashing bytes.
public struct MACAddress: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    public static let broadcast = MACAddress(rawValue: 0xFFFF_FFFF_FFFF)

    /// Group (multicast/broadcast) addresses have the I/G bit of the first octet set.
    public var isGroup: Bool { (rawValue >> 40) & 0x01 != 0 }

    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            v = v << 8 | UInt64(b)
        }
        self.init(rawValue: v)
    }

    public init(bytes: [UInt8]) {
        var v: UInt64 = 0
        for b in bytes.prefix(6) { v = v << 8 | UInt64(b) }
        self.init(rawValue: v)
    }

    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (40 - 8 * UInt64($0))) } }

    public var description: String {
        var s = ""
        s.reserveCapacity(17)
        let hex: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        for i in 0..<6 {
            let b = Int((rawValue >> (40 - 8 * UInt64(i))) & 0xFF)
            if i > 0 { s.append(":") }
            s.append(hex[b >> 4])
            s.append(hex[b & 0xF])
        }
        return s
    }

    public static func < (a: MACAddress, b: MACAddress) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let mac = MACAddress(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a MAC address: \(text)"))
        }
        self = mac
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
