private import CPcap
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a capture could not be read, or not read to its end.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    /// libpcap could not open it (missing, unreadable, not a capture).
    case cannotOpen(path: String, reason: String)
    case unsupportedLinkType(path: String, linkType: Int32, name: String)
    /// The file ends inside record `frame` (1-based).
    case truncated(path: String, frame: Int, detail: String)
    /// Any other read error at record `frame`.
    case readError(path: String, frame: Int, detail: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .unsupportedLinkType(let path, let lt, let name):
            return
                "cannot analyse \(path): unsupported link type \(lt) (\(name)); pushdiag reads 802.11 captures: radiotap (127), IEEE802_11 (105), PPI (192), PRISM_HEADER (119), IEEE802_11_RADIO_AVS (163)"
        case .truncated(let path, let frame, let detail):
            return "\(path): truncated record at frame \(frame) (\(detail)); results cover the \(frame - 1) frames before it"
        case .readError(let path, let frame, let detail):
            return "\(path): cannot read frame \(frame) (\(detail)); results cover the \(frame - 1) frames before it"
        }
    }
}

/// One record as libpcap hands it over: borrowed bytes, valid only inside the callback.
public struct CaptureRecord {
    /// Held within ±`CaptureFrame.mostNs` (`CaptureFrame.held`): a pcapng interface's offset and
    /// resolution can put a time anywhere an Int64 reaches, and every reader of records (the
    /// capture analysis, the netlink replays) subtracts two records' times.
    public var timestampNs: Int64
    public var bytes: UnsafeRawBufferPointer
    public var originalLength: Int

    @inline(__always)
    public init(timestampNs: Int64, bytes: UnsafeRawBufferPointer, originalLength: Int) {
        self.timestampNs = CaptureFrame.held(timestampNs)
        self.bytes = bytes
        self.originalLength = originalLength
    }
}

/// An open capture file (pcap or pcapng) read through libpcap. Owns its `pcap_t`, closed once.
///
/// Used by one thread at a time: `forEachRecordPipelined` hands the handle to its reader thread
/// and waits for it before returning.
public final class PcapFile: @unchecked Sendable {
    private let handle: OpaquePointer
    var rawHandle: OpaquePointer { handle }
    /// Bytes consumed when the pipelined reader last handed over a batch.
    var lastPipelinedPosition: Int64 = 0
    public let path: String
    /// The file's link-layer header type (LINKTYPE_ value).
    public let linkType: Int32
    /// Size of the file in bytes, for progress; 0 when unknown.
    public let size: Int64
    /// How to walk the file's records without libpcap, when it is a classic pcap file whose
    /// records libpcap hands over unchanged (`PcapRecords`); nil for pcapng and other formats.
    let records: PcapRecords?
    /// The file is pcapng, whose blocks the pipelined reader walks itself (`PcapngBlocks`).
    let isPcapng: Bool

    public init(path: String) throws(CaptureError) {
        self.path = path
        var errbuf = [CChar](repeating: 0, count: Int(CPcap_ERRBUF_SIZE()))
        guard let h = pcap_open_offline_with_tstamp_precision(path, CPcap_TSTAMP_PRECISION_NANO(), &errbuf) else {
            var reason = String(decoding: errbuf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // libpcap names the file itself ("x.pcap: No such file or directory"); the error says it once.
            if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
            throw .cannotOpen(path: path, reason: reason.isEmpty ? "unknown error" : reason)
        }
        handle = h
        linkType = pcap_datalink(h)
        var st = stat()
        size = stat(path, &st) == 0 ? Int64(st.st_size) : 0
        records = Self.recordLayout(h)
        isPcapng = Self.startsWithSectionHeader(h)
    }

    /// Whether the file libpcap opened begins with a pcapng section header block.
    private static func startsWithSectionHeader(_ h: OpaquePointer) -> Bool {
        guard let f = pcap_file(h) else { return false }
        var type: UInt32 = 0
        let n = withUnsafeMutableBytes(of: &type) { pread(fileno(f), $0.baseAddress, 4, 0) }
        return n == 4 && type == PcapngBlocks.sectionHeader
    }

    /// The classic layout of the file libpcap opened, read from its header with `pread` (which
    /// leaves libpcap's stream where it is). libpcap's snapshot length is capped at 262144, the
    /// largest it accepts for the 802.11 link types, so no record it would refuse is taken.
    private static func recordLayout(_ h: OpaquePointer) -> PcapRecords? {
        guard let f = pcap_file(h), pcap_is_swapped(h) == 0 else { return nil }
        var header = [UInt8](repeating: 0, count: PcapRecords.fileHeaderLength)
        let n = header.withUnsafeMutableBytes { pread(fileno(f), $0.baseAddress, $0.count, 0) }
        guard n == PcapRecords.fileHeaderLength else { return nil }
        return header.withUnsafeBytes { PcapRecords.layout(fileHeader: $0, snapshotLength: min(Int(pcap_snapshot(h)), 262_144)) }
    }

    deinit { pcap_close(handle) }

    /// libpcap's name for a link type ("IEEE802_11_RADIO"), or "unknown".
    public static func linkTypeName(_ linkType: Int32) -> String {
        guard let p = pcap_datalink_val_to_name(linkType) else { return "unknown" }
        return String(cString: p)
    }

    /// Bytes of the file consumed so far (for progress), or 0 for pcapng and unknown positions.
    /// During a pipelined read, from the consumer's side: up to the batch being analysed.
    public var analysedPosition: Int64 { lastPipelinedPosition }

    /// Bytes of the file libpcap has consumed so far, or 0 for pcapng and unknown positions.
    public var position: Int64 {
        guard let f = pcap_file(handle) else { return 0 }
        let p = ftello(f)
        return p < 0 ? 0 : Int64(p)
    }

    /// The next record (its bytes valid until the next call), nil at the end of the file.
    public func next(frame: Int) throws(CaptureError) -> CaptureRecord? {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while true {
            let rc = pcap_next_ex(handle, &header, &data)
            if rc == 1, let hdr = header?.pointee, let data {
                let ts = CaptureFrame.nanoseconds(seconds: Int64(hdr.ts.tv_sec), fraction: Int64(hdr.ts.tv_usec))  // opened for nanoseconds
                return CaptureRecord(timestampNs: ts, bytes: UnsafeRawBufferPointer(start: data, count: Int(hdr.caplen)), originalLength: Int(hdr.len))
            }
            if rc == CPcap_ERROR_BREAK() { return nil }
            if rc == 0 { continue }
            throw readError(frame: frame)
        }
    }

    /// The error libpcap reports for record `frame` (1-based).
    func readError(frame: Int) -> CaptureError {
        let detail = String(cString: pcap_geterr(handle))
        if detail.contains("truncated") {
            return .truncated(path: path, frame: frame, detail: detail)
        }
        return .readError(path: path, frame: frame, detail: detail)
    }

    /// Calls `body` for every record until the end of the file, returning the number of records.
    /// Stops early when `body` returns false. A read error throws after the records before it
    /// were delivered.
    @discardableResult
    public func forEachRecord(_ body: (CaptureRecord) -> Bool) throws(CaptureError) -> Int {
        var n = 0
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while true {
            let rc = pcap_next_ex(handle, &header, &data)
            if rc == 1, let hdr = header?.pointee, let data {
                n += 1
                let ts = CaptureFrame.nanoseconds(seconds: Int64(hdr.ts.tv_sec), fraction: Int64(hdr.ts.tv_usec))  // opened for nanoseconds
                let rec = CaptureRecord(timestampNs: ts, bytes: UnsafeRawBufferPointer(start: data, count: Int(hdr.caplen)), originalLength: Int(hdr.len))
                if !body(rec) { return n }
            } else if rc == CPcap_ERROR_BREAK() {
                return n
            } else if rc == 0 {
                continue  // live capture timeout; not for files
            } else {
                throw readError(frame: n + 1)
            }
        }
    }
}

/// Writes a pcap file through libpcap's own dumper, to a temporary name renamed into place when
/// closed, so a reader never sees half a file.
public final class PcapWriter {
    private let dead: OpaquePointer
    private let dumper: OpaquePointer
    public let path: String
    private let temporaryPath: String
    private var closed = false

    /// `atomic`: write to a temporary name and rename it into place when closed (for reports
    /// and fixtures); otherwise write in place (for recordings flushed record by record).
    public init(path: String, linkType: Int32, snapLength: Int32 = 262_144, atomic: Bool = true) throws(CaptureError) {
        self.path = path
        temporaryPath = atomic ? path + ".tmp-\(getpid())" : path
        guard let d = pcap_open_dead_with_tstamp_precision(linkType, snapLength, CPcap_TSTAMP_PRECISION_NANO()) else {
            throw .cannotOpen(path: path, reason: "pcap_open_dead failed")
        }
        guard let w = pcap_dump_open(d, temporaryPath) else {
            var reason = String(cString: pcap_geterr(d))
            // libpcap names the file it tried (the temporary one); the error names the file asked for.
            if reason.hasPrefix(temporaryPath + ": ") { reason.removeFirst(temporaryPath.count + 2) }
            pcap_close(d)
            throw .cannotOpen(path: path, reason: reason)
        }
        dead = d
        dumper = w
    }

    public func write(timestampNs: Int64, bytes: [UInt8], originalLength: Int? = nil) {
        var hdr = pcap_pkthdr()
        hdr.ts.tv_sec = Int(timestampNs / 1_000_000_000)
        hdr.ts.tv_usec = Int(timestampNs % 1_000_000_000)
        hdr.caplen = UInt32(bytes.count)
        hdr.len = UInt32(originalLength ?? bytes.count)
        bytes.withUnsafeBufferPointer { buf in
            pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &hdr, buf.baseAddress)
        }
    }

    public func flush() { pcap_dump_flush(dumper) }

    /// Flushes, closes and renames the file into place.
    public func close() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        pcap_dump_flush(dumper)
        pcap_dump_close(dumper)
        pcap_close(dead)
        guard temporaryPath == path || rename(temporaryPath, path) == 0 else {
            throw .cannotOpen(path: path, reason: Errno.current.description)
        }
    }

    /// Closes without keeping what was written: an atomic writer's temporary file is removed
    /// and the file at `path` stays as it was. (Also what happens to a writer never closed.)
    public func discard() {
        guard !closed else { return }
        closed = true
        pcap_dump_close(dumper)
        pcap_close(dead)
        if temporaryPath != path { unlink(temporaryPath) }
    }

    deinit { discard() }
}
