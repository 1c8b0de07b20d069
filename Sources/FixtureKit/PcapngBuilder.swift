/// pcapng files byte by byte, in either byte order, for the tests of the pcapng reader: section
/// headers, interface descriptions with `if_tsresol` and `if_tsoffset`, enhanced, simple and
/// (obsolete) packet blocks, and any other block. Each block's lengths and padding are written
/// as the specification says unless a test asks otherwise.
public struct PcapngBuilder: Sendable {
    /// The file so far (a test may damage it).
    public var bytes: [UInt8] = []
    /// The byte order of the section being written.
    public private(set) var bigEndian = false

    public init() {}

    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] {
        let le: [UInt8] = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        return bigEndian ? le.reversed() : le
    }
    func u64(_ v: UInt64) -> [UInt8] {
        bigEndian ? u32(UInt32(v >> 32)) + u32(UInt32(v & 0xFFFF_FFFF)) : u32(UInt32(v & 0xFFFF_FFFF)) + u32(UInt32(v >> 32))
    }
    static func padded(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (4 - b.count % 4) % 4) }

    /// A block of `type` around `body` (padded to 4 bytes); `trailer` replaces the trailing length.
    public mutating func block(_ type: UInt32, _ body: [UInt8], trailer: UInt32? = nil) {
        let b = Self.padded(body)
        let length = UInt32(12 + b.count)
        bytes += u32(type) + u32(length) + b + u32(trailer ?? length)
    }

    /// A section header: its byte-order magic in `bigEndian`'s order, version 1.0 unless told.
    public mutating func section(bigEndian: Bool, major: UInt16 = 1, minor: UInt16 = 0) {
        self.bigEndian = bigEndian
        block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + u16(major) + u16(minor) + u64(UInt64.max))
    }

    /// One option: code, length, value padded.
    public func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] { u16(code) + u16(UInt16(value.count)) + Self.padded(value) }

    /// An interface: `tsresol` is the option's byte (6: microseconds, 9: nanoseconds, 0x80|n:
    /// 2^-n), `tsoffset` seconds; `extra` more options before the end of options.
    public mutating func interface(linkType: UInt16, snapLength: UInt32 = 0, tsresol: UInt8? = nil, tsoffset: Int64? = nil, extra: [UInt8] = []) {
        var options = extra
        if let tsresol { options += option(9, [tsresol]) }
        if let tsoffset { options += option(14, u64(UInt64(bitPattern: tsoffset))) }
        if !options.isEmpty { options += option(0, []) }
        block(1, u16(linkType) + u16(0) + u32(snapLength) + options)
    }

    /// An enhanced packet block: time in the interface's units, captured bytes, original length.
    public mutating func enhancedPacket(interface: UInt32 = 0, units: UInt64, _ data: [UInt8], original: Int? = nil, options: [UInt8] = []) {
        block(
            6,
            u32(interface) + u32(UInt32(units >> 32)) + u32(UInt32(units & 0xFFFF_FFFF)) + u32(UInt32(data.count)) + u32(UInt32(original ?? data.count))
                + Self.padded(data) + options)
    }

    /// A simple packet block (no time, interface 0).
    public mutating func simplePacket(_ data: [UInt8], original: Int? = nil) {
        block(3, u32(UInt32(original ?? data.count)) + data)
    }

    /// The obsolete packet block.
    public mutating func packet(interface: UInt16 = 0, units: UInt64, _ data: [UInt8]) {
        block(
            2, u16(interface) + u16(0) + u32(UInt32(units >> 32)) + u32(UInt32(units & 0xFFFF_FFFF)) + u32(UInt32(data.count)) + u32(UInt32(data.count)) + data)
    }
}
