/// pcapng blocks (the pcapng specification; what Wireshark and dumpcap write by default) as they
/// lie in a file, walked for the pipelined reader the way libpcap's sf-pcapng.c reads them, so a
/// file gives the same records and stops at the same record either way.
///
/// A block is a type, a total length, a body and the total length again. Read here: the section
/// header block (its byte-order magic sets the byte order of the blocks after it; a section's
/// interfaces are forgotten at the next one), interface description blocks (link type, snapshot
/// length, and the `if_tsresol` and `if_tsoffset` options: a power of 10 or of 2, microseconds
/// when absent), and enhanced, simple and (obsolete) packet blocks. Other blocks (name
/// resolution, statistics, decryption secrets, custom) are skipped after their lengths are
/// checked. As in libpcap, every interface must share the first one's link type and snapshot
/// length (pushdiag analyses one link type per file), and a record longer than the snapshot
/// length is an error. Unlike libpcap, a later section may change the byte order, which the
/// specification allows (libpcap stops there: "the file has sections with different byte
/// orders").
public struct PcapngBlocks: Sendable {
    /// One interface description block.
    public struct Interface: Sendable, Equatable {
        public var linkType: UInt16
        public var snapLength: UInt32
        /// Timestamp units per second (`if_tsresol`; 1,000,000 when absent).
        public var unitsPerSecond: UInt64
        /// The resolution is a negative power of 2 rather than of 10.
        public var binary: Bool
        /// Seconds added to every timestamp (`if_tsoffset`).
        public var offsetSeconds: Int64
    }

    public static let sectionHeader: UInt32 = 0x0A0D_0D0A
    public static let interfaceDescription: UInt32 = 1
    public static let packet: UInt32 = 2
    public static let simplePacket: UInt32 = 3
    public static let enhancedPacket: UInt32 = 6
    static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    /// libpcap's limits: the first section header (BT_SHB_INSANE_MAX) and any block
    /// (INITIAL_MAX_BLOCKSIZE, above what the 802.11 link types' snapshot length needs).
    public static let firstSectionHeaderMaxLength = 1 << 20
    public static let maxBlockLength = 16 << 20
    /// The largest snapshot length libpcap keeps for the 802.11 link types (MAXIMUM_SNAPLEN); a
    /// zero or larger one in an interface block means this.
    public static let maxSnapshotLength = 262_144

    /// The section's byte order.
    public private(set) var bigEndian = false
    public private(set) var sections = 0
    /// The current section's interfaces.
    public private(set) var interfaces: [Interface] = []
    /// The first interface's link type and adjusted snapshot length, which every other must share.
    public private(set) var linkType: UInt16?
    public private(set) var snapshotLength = 0

    public init() {}

    /// Why the walk stopped.
    public enum Stop: Sendable, Equatable {
        /// Every byte was walked; the bytes ended on a block boundary.
        case end
        /// The next block is not whole in the bytes: this many bytes from its start are needed
        /// (12 when its header is not whole).
        case needs(Int)
        case failure(PcapngError)
    }

    public struct Walk: Sendable, Equatable {
        /// Bytes of whole blocks walked.
        public var length: Int
        public var packets: Int
        public var stop: Stop
    }

    /// Walks the whole blocks at the start of `bytes`, which lie at `fileOffset` in the file,
    /// calling `packet` with each record: time in nanoseconds, the offset of its captured bytes
    /// in `bytes`, its captured and original lengths.
    public mutating func walk(_ bytes: UnsafeRawBufferPointer, at fileOffset: Int64, _ packet: (Int64, Int, Int, Int) -> Void) -> Walk {
        var o = 0
        var packets = 0
        let count = bytes.count
        while true {
            let left = count - o
            if left == 0 { return Walk(length: o, packets: packets, stop: .end) }
            if left < 12 { return Walk(length: o, packets: packets, stop: .needs(12)) }
            var big = bigEndian
            var type = Self.load32(bytes, o, big)
            if type == Self.sectionHeader {
                switch UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)) {
                case Self.byteOrderMagic: big = false
                case Self.byteOrderMagic.byteSwapped: big = true
                case let magic:
                    return fail(.badByteOrderMagic(magic), type, fileOffset, o, packets)
                }
            } else if sections == 0 {
                return fail(.noSectionHeader, type, fileOffset, o, packets)
            }
            type = Self.load32(bytes, o, big)
            let length = Self.load32(bytes, o + 4, big)
            if length < 12 { return fail(.lengthTooShort(length), type, fileOffset, o, packets) }
            // libpcap reads the file's first section header apart (pcap_ng_check_header), without
            // these two checks: so does the walk.
            let firstSection = type == Self.sectionHeader && sections == 0
            if length % 4 != 0, !firstSection { return fail(.lengthNotMultipleOf4(length), type, fileOffset, o, packets) }
            let limit = firstSection ? Self.firstSectionHeaderMaxLength : Self.maxBlockLength
            if Int(length) > limit { return fail(.lengthTooLong(length, limit: limit), type, fileOffset, o, packets) }
            if left < Int(length) { return Walk(length: o, packets: packets, stop: .needs(Int(length))) }
            let trailer = Self.load32(bytes, o + Int(length) - 4, big)
            if trailer != length, !firstSection { return fail(.trailerMismatch(header: length, trailer: trailer), type, fileOffset, o, packets) }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(o + 8)..<(o + Int(length) - 4)])
            let kind: PcapngError.Kind?
            switch type {
            case Self.sectionHeader: kind = section(body, big)
            case Self.interfaceDescription: kind = interface(body)
            case Self.enhancedPacket, Self.simplePacket, Self.packet:
                switch record(type, body) {
                case .success(let r):
                    packet(r.timestampNs, o + 8 + r.dataOffset, r.captured, r.original)
                    packets += 1
                    kind = nil
                case .failure(let e): kind = e
                }
            default: kind = nil
            }
            if let kind { return fail(kind, type, fileOffset, o, packets) }
            o += Int(length)
        }
    }

    private func fail(_ kind: PcapngError.Kind, _ type: UInt32, _ fileOffset: Int64, _ o: Int, _ packets: Int) -> Walk {
        Walk(length: o, packets: packets, stop: .failure(PcapngError(kind: kind, blockType: type, offset: fileOffset + Int64(o))))
    }

    /// A block too large for the reader's buffer, of which only its first 12 bytes and its
    /// trailer were read: nil when it may be skipped (a block the records do not need, whose
    /// trailer matches), else why not.
    public func oversizedBlock(header: UnsafeRawBufferPointer, trailer: UInt32, at fileOffset: Int64, bufferBytes: Int) -> PcapngError? {
        guard header.count >= 12 else { return PcapngError(kind: .lengthTooShort(0), blockType: 0, offset: fileOffset) }
        let type = Self.load32(header, 0, bigEndian)
        let length = Self.load32(header, 4, bigEndian)
        let swapped = bigEndian ? UInt32(bigEndian: trailer) : UInt32(littleEndian: trailer)
        switch type {
        case Self.sectionHeader, Self.interfaceDescription, Self.enhancedPacket, Self.simplePacket, Self.packet:
            return PcapngError(kind: .largerThanBuffer(length, buffer: bufferBytes), blockType: type, offset: fileOffset)
        default:
            guard swapped == length else {
                return PcapngError(kind: .trailerMismatch(header: length, trailer: swapped), blockType: type, offset: fileOffset)
            }
            return nil
        }
    }

    @inline(__always)
    static func load32(_ b: UnsafeRawBufferPointer, _ at: Int, _ big: Bool) -> UInt32 {
        let v = b.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        return big ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
    }

    @inline(__always)
    static func load16(_ b: UnsafeRawBufferPointer, _ at: Int, _ big: Bool) -> UInt16 {
        let v = b.loadUnaligned(fromByteOffset: at, as: UInt16.self)
        return big ? UInt16(bigEndian: v) : UInt16(littleEndian: v)
    }

    /// A section header's body: byte-order magic, version, section length. libpcap opens only
    /// versions 1.0 and 1.2 and, after the first section, checks the major version alone.
    private mutating func section(_ body: UnsafeRawBufferPointer, _ big: Bool) -> PcapngError.Kind? {
        guard body.count >= 16 else { return .bodyTooShort }
        let major = Self.load16(body, 4, big)
        let minor = Self.load16(body, 6, big)
        if major != 1 || (sections == 0 && minor != 0 && minor != 2) { return .unsupportedVersion(major: major, minor: minor) }
        bigEndian = big
        sections += 1
        interfaces.removeAll(keepingCapacity: true)
        return nil
    }

    /// libpcap's adjustment of a snapshot length (pcapint_adjust_snapshot) for the 802.11 types.
    static func adjusted(_ snap: UInt32) -> Int { snap == 0 || snap > UInt32(maxSnapshotLength) ? maxSnapshotLength : Int(snap) }

    private mutating func interface(_ body: UnsafeRawBufferPointer) -> PcapngError.Kind? {
        guard body.count >= 8 else { return .bodyTooShort }
        let big = bigEndian
        let lt = Self.load16(body, 0, big)
        let snap = Self.load32(body, 4, big)
        if let first = linkType {
            if lt != first { return .otherLinkType(lt, first: first) }
            if Self.adjusted(snap) != snapshotLength { return .otherSnapshotLength(snap, first: snapshotLength) }
        }
        var iface = Interface(linkType: lt, snapLength: snap, unitsPerSecond: 1_000_000, binary: false, offsetSeconds: 0)
        var sawResolution = false
        var sawOffset = false
        var p = 8
        options: while p < body.count {
            guard body.count - p >= 4 else { return .bodyTooShort }
            let code = Self.load16(body, p, big)
            let length = Self.load16(body, p + 2, big)
            let padded = (Int(length) + 3) / 4 * 4
            p += 4
            guard body.count - p >= padded else { return .bodyTooShort }
            switch code {
            case 0:  // opt_endofopt
                if length != 0 { return .badOption(code: code, length: length) }
                break options
            case 9:  // if_tsresol
                if length != 1 || sawResolution { return .badOption(code: code, length: length) }
                sawResolution = true
                let v = body[p]
                if v & 0x80 != 0 {
                    guard v & 0x7F <= 63 else { return .resolutionTooFine(v) }
                    iface.binary = true
                    iface.unitsPerSecond = 1 << UInt64(v & 0x7F)
                } else {
                    guard v <= 19 else { return .resolutionTooFine(v) }
                    iface.unitsPerSecond = (0..<v).reduce(1) { r, _ in r &* 10 }
                }
            case 14:  // if_tsoffset
                if length != 8 || sawOffset { return .badOption(code: code, length: length) }
                sawOffset = true
                let v = body.loadUnaligned(fromByteOffset: p, as: UInt64.self)
                iface.offsetSeconds = Int64(bitPattern: big ? UInt64(bigEndian: v) : UInt64(littleEndian: v))
            default: break
            }
            p += padded
        }
        if linkType == nil {
            linkType = lt
            snapshotLength = Self.adjusted(snap)
        }
        interfaces.append(iface)
        return nil
    }

    struct Record {
        var timestampNs: Int64
        var dataOffset: Int
        var captured: Int
        var original: Int
    }

    /// A packet block's record, in libpcap's order of checks.
    @inline(__always)
    private func record(_ type: UInt32, _ body: UnsafeRawBufferPointer) -> Result<Record, PcapngError.Kind> {
        let big = bigEndian
        let iface: UInt32
        let units: UInt64
        var captured: UInt32
        let original: UInt32
        let dataOffset: Int
        if type == Self.simplePacket {
            guard body.count >= 4 else { return .failure(.bodyTooShort) }
            iface = 0
            original = Self.load32(body, 0, big)
            captured = original
            if Int(captured) > snapshotLength { captured = UInt32(snapshotLength) }
            units = 0
            dataOffset = 4
        } else {
            guard body.count >= 20 else { return .failure(.bodyTooShort) }
            iface = type == Self.enhancedPacket ? Self.load32(body, 0, big) : UInt32(Self.load16(body, 0, big))
            units = UInt64(Self.load32(body, 4, big)) << 32 | UInt64(Self.load32(body, 8, big))
            captured = Self.load32(body, 12, big)
            original = Self.load32(body, 16, big)
            dataOffset = 20
        }
        guard Int(iface) < interfaces.count else { return .failure(.unknownInterface(iface, interfaces: interfaces.count)) }
        guard Int(captured) <= snapshotLength else { return .failure(.capturedAboveSnapshot(captured, snapshot: snapshotLength)) }
        guard body.count - dataOffset >= Int(captured) else { return .failure(.bodyTooShort) }
        let ts = Self.nanoseconds(units, interfaces[Int(iface)])
        return .success(Record(timestampNs: ts, dataOffset: dataOffset, captured: Int(captured), original: Int(original)))
    }

    /// A timestamp in nanoseconds as libpcap gives it when asked for nanoseconds: whole seconds
    /// plus the offset, the fraction scaled in unsigned 64-bit arithmetic (wrapping where
    /// libpcap's does), then `tv_sec` and an `int` fraction as PcapFile combines them (held at
    /// Int64's bounds: `CaptureFrame.nanoseconds`).
    @inline(__always)
    public static func nanoseconds(_ units: UInt64, _ i: Interface) -> Int64 {
        let r = i.unitsPerSecond
        let seconds = units / r &+ UInt64(bitPattern: i.offsetSeconds)
        var fraction = units % r
        if r != 1_000_000_000 {
            if i.binary {
                fraction = fraction &* 1_000_000_000 / r
            } else if r > 1_000_000_000 {
                fraction /= r / 1_000_000_000
            } else {
                fraction &*= 1_000_000_000 / r
            }
        }
        return CaptureFrame.nanoseconds(seconds: Int64(bitPattern: seconds), fraction: Int64(Int32(truncatingIfNeeded: fraction)))
    }
}

/// Why a pcapng file cannot be read on from a block: its type and where it starts in the file.
public struct PcapngError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Error, Sendable, Equatable {
        case noSectionHeader
        case badByteOrderMagic(UInt32)
        case lengthTooShort(UInt32)
        case lengthNotMultipleOf4(UInt32)
        case lengthTooLong(UInt32, limit: Int)
        case trailerMismatch(header: UInt32, trailer: UInt32)
        /// The file ends inside the block.
        case truncated(needed: Int, left: Int)
        case unsupportedVersion(major: UInt16, minor: UInt16)
        /// A field, an option or the captured bytes run past the block's end.
        case bodyTooShort
        case badOption(code: UInt16, length: UInt16)
        case resolutionTooFine(UInt8)
        case otherLinkType(UInt16, first: UInt16)
        case otherSnapshotLength(UInt32, first: Int)
        case unknownInterface(UInt32, interfaces: Int)
        case capturedAboveSnapshot(UInt32, snapshot: Int)
        /// Needed whole (a packet, interface or section block) and larger than the reader's buffer.
        case largerThanBuffer(UInt32, buffer: Int)
    }

    public var kind: Kind
    public var blockType: UInt32
    /// The block's first byte in the file.
    public var offset: Int64

    public init(kind: Kind, blockType: UInt32, offset: Int64) {
        self.kind = kind
        self.blockType = blockType
        self.offset = offset
    }

    public var blockName: String {
        switch blockType {
        case PcapngBlocks.sectionHeader: return "section header block"
        case PcapngBlocks.interfaceDescription: return "interface description block"
        case PcapngBlocks.packet: return "packet block"
        case PcapngBlocks.simplePacket: return "simple packet block"
        case PcapngBlocks.enhancedPacket: return "enhanced packet block"
        default: return "pcapng block of type 0x" + String(blockType, radix: 16)
        }
    }

    public var description: String {
        let why: String
        switch kind {
        case .noSectionHeader: why = "no section header block before it"
        case .badByteOrderMagic(let m): why = "bad byte-order magic 0x\(String(m, radix: 16))"
        case .lengthTooShort(let l): why = "total length \(l) is below 12"
        case .lengthNotMultipleOf4(let l): why = "total length \(l) is not a multiple of 4"
        case .lengthTooLong(let l, let limit): why = "total length \(l) is above the \(limit) bytes libpcap accepts"
        case .trailerMismatch(let h, let t): why = "total length \(h) in the header but \(t) in the trailer"
        case .truncated(let needed, let left): why = "runs past the end of the file (needed \(needed) bytes, \(left) left)"
        case .unsupportedVersion(let major, let minor): why = "unsupported version \(major).\(minor)"
        case .bodyTooShort: why = "a field, option or the captured bytes run past the block's end"
        case .badOption(let code, let length): why = "bad or repeated option \(code) of \(length) bytes"
        case .resolutionTooFine(let v): why = "timestamp resolution 0x\(String(v, radix: 16)) is too fine"
        case .otherLinkType(let lt, let first): why = "link type \(lt) differs from the first interface's \(first)"
        case .otherSnapshotLength(let s, let first): why = "snapshot length \(s) differs from the first interface's \(first)"
        case .unknownInterface(let i, let n): why = "interface \(i) is not among the section's \(n)"
        case .capturedAboveSnapshot(let c, let s): why = "captured length \(c) is above the snapshot length \(s)"
        case .largerThanBuffer(let l, let b): why = "\(l) bytes, larger than the reader's \(b)-byte buffer"
        }
        return "\(blockName) at byte \(offset): \(why)"
    }
}
