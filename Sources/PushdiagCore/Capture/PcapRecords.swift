/// Classic pcap records (pcap-savefile(5)) as they lie in a file, end to end: a 16-byte header
/// (seconds, microseconds or nanoseconds, captured length, original length) and the captured
/// bytes.
///
/// The pipelined reader reads whole blocks of a file and walks them with this instead of asking
/// libpcap for each record, which costs as much as the analysis of the record. It takes only the
/// records libpcap would hand over unchanged: little-endian files of version 2.4 with the
/// ordinary 16-byte record header. A record libpcap treats specially (a captured length above the
/// snapshot length, which libpcap cuts or refuses; a time field with its top bit set, which
/// libpcap versions read differently) or one cut short by the end of the file stops the walk,
/// and the reader lets libpcap read on from that record, so its errors and its handling of odd
/// files stay exactly libpcap's.
public struct PcapRecords: Sendable, Equatable {
    /// The largest captured length taken: the file's snapshot length as libpcap adjusted it.
    public var snapshotLength: Int
    /// Nanoseconds per unit of the header's fraction field: 1000 in microsecond files, 1 in
    /// nanosecond ones.
    public var fractionScale: Int64

    public static let fileHeaderLength = 24
    public static let recordHeaderLength = 16

    /// The layout of a file whose first bytes are `header`, when its records can be walked here:
    /// a little-endian classic pcap file of version 2.4 (magic a1b2c3d4 for microseconds,
    /// a1b23c4d for nanoseconds). `snapshotLength` is libpcap's (`pcap_snapshot`), which replaces
    /// a zero or oversized one in the header by the link type's maximum.
    public static func layout(fileHeader header: UnsafeRawBufferPointer, snapshotLength: Int) -> PcapRecords? {
        guard let magic = header.u32le(at: 0), let major = header.u16le(at: 4), let minor = header.u16le(at: 6),
            major == 2, minor == 4, snapshotLength > 0
        else { return nil }
        switch magic {
        case 0xA1B2_C3D4: return PcapRecords(snapshotLength: snapshotLength, fractionScale: 1000)
        case 0xA1B2_3C4D: return PcapRecords(snapshotLength: snapshotLength, fractionScale: 1)
        default: return nil
        }
    }

    /// How far the whole, ordinary records at the start of `bytes` reach.
    public struct Run: Sendable, Equatable {
        /// Bytes of whole ordinary records.
        public var length: Int
        public var records: Int
        /// A record follows that libpcap must read: unusual, or not whole although `bytes` was
        /// long enough to hold it (so only the end of the file can have cut it).
        public var stoppedAtUnusual: Bool
    }

    /// Walks the record headers at the start of `bytes`. A record that does not fit in `bytes`
    /// ends the run; it is unusual only when it would have fitted had the bytes not run out, which
    /// the caller tells from whether it read as many bytes as it asked for.
    public func run(in bytes: UnsafeRawBufferPointer) -> Run {
        var o = 0
        var records = 0
        let count = bytes.count
        while count - o >= Self.recordHeaderLength {
            let seconds = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self))
            let fraction = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self))
            let captured = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
            if captured > snapshotLength || (seconds | fraction) & 0x8000_0000 != 0 {
                return Run(length: o, records: records, stoppedAtUnusual: true)
            }
            guard count - o - Self.recordHeaderLength >= captured else { break }
            o += Self.recordHeaderLength + captured
            records += 1
        }
        return Run(length: o, records: records, stoppedAtUnusual: false)
    }

    /// Calls `body` with each record of `bytes`, which must be a run `run(in:)` accepted whole:
    /// time in nanoseconds, captured bytes and original length. Stops early, returning false,
    /// when `body` returns false. Inlinable, so the reader's loop and `body` compile into one.
    @inlinable @inline(__always)
    public func forEach(in bytes: UnsafeRawBufferPointer, _ body: (Int64, UnsafeRawBufferPointer, Int) -> Bool) -> Bool {
        var o = 0
        let count = bytes.count
        let base = bytes.baseAddress
        while count - o >= 16 {
            let seconds = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self))
            let fraction = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self))
            let captured = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
            let original = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o + 12, as: UInt32.self)))
            let start = o + 16
            guard count - start >= captured else { return true }  // not a whole run: stop safely
            let ts = Int64(seconds) &* 1_000_000_000 &+ Int64(fraction) &* fractionScale
            if !body(ts, UnsafeRawBufferPointer(start: base.map { $0 + start }, count: captured), original) { return false }
            o = start + captured
        }
        return true
    }
}
