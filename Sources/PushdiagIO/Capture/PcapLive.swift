private import CPcap
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A live capture on a monitor interface through libpcap, optionally written to a file as it
/// goes (to a temporary name, renamed into place when the capture ends).
public final class PcapLive {
    private let handle: OpaquePointer
    private var dumper: OpaquePointer?
    private var writePath: String?
    private var temporaryPath: String?
    public let interface: String
    public let linkType: Int32

    public init(interface: String, snapLength: Int32 = 262_144) throws(CaptureError) {
        self.interface = interface
        var errbuf = [CChar](repeating: 0, count: Int(CPcap_ERRBUF_SIZE()))
        guard let h = pcap_create(interface, &errbuf) else {
            throw .cannotOpen(path: interface, reason: String(decoding: errbuf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        pcap_set_snaplen(h, snapLength)
        pcap_set_timeout(h, 200)
        pcap_set_immediate_mode(h, 1)
        let rc = pcap_activate(h)
        if rc < 0 {
            let reason: String
            switch rc {
            case CPcap_ERROR_PERM_DENIED(): reason = "permission denied (capturing needs CAP_NET_RAW; run as root or grant it)"
            case CPcap_ERROR_NO_SUCH_DEVICE(): reason = "no such interface"
            case CPcap_ERROR_IFACE_NOT_UP(): reason = "the interface is down (ip link set \(interface) up)"
            default: reason = String(cString: pcap_geterr(h))
            }
            pcap_close(h)
            throw .cannotOpen(path: interface, reason: reason)
        }
        handle = h
        linkType = pcap_datalink(h)
    }

    deinit {
        if let dumper { pcap_dump_close(dumper) }
        if let temporaryPath { unlink(temporaryPath) }
        pcap_close(handle)
    }

    /// Also write every record to `path` (renamed into place by `finish`).
    public func write(to path: String) throws(CaptureError) {
        let tmp = path + ".tmp-\(getpid())"
        guard let d = pcap_dump_open(handle, tmp) else { throw .cannotOpen(path: path, reason: String(cString: pcap_geterr(handle))) }
        dumper = d
        writePath = path
        temporaryPath = tmp
    }

    /// Delivers records until `seconds` have passed or `stop()` says so.
    public func capture(seconds: Double, stop: () -> Bool, _ body: (CaptureRecord) -> Void) throws(CaptureError) -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let deadline = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 + seconds
        var n = 0
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while !stop() {
            clock_gettime(CLOCK_MONOTONIC, &ts)
            if Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 >= deadline { break }
            let rc = pcap_next_ex(handle, &header, &data)
            if rc == 1, let hdr = header, let data {
                n += 1
                if let dumper { pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), hdr, data) }
                let h = hdr.pointee
                body(
                    CaptureRecord(
                        timestampNs: CaptureFrame.nanoseconds(seconds: Int64(h.ts.tv_sec), fraction: Int64(h.ts.tv_usec) * 1000),
                        bytes: UnsafeRawBufferPointer(start: data, count: Int(h.caplen)), originalLength: Int(h.len)))
            } else if rc == 0 {
                continue
            } else {
                throw .readError(path: interface, frame: n + 1, detail: String(cString: pcap_geterr(handle)))
            }
        }
        return n
    }

    /// Closes the written file and renames it into place.
    public func finish() throws(CaptureError) {
        guard let dumper, let writePath, let temporaryPath else { return }
        pcap_dump_close(dumper)
        self.dumper = nil
        self.temporaryPath = nil
        guard rename(temporaryPath, writePath) == 0 else { throw .cannotOpen(path: writePath, reason: Errno.current.description) }
    }
}
