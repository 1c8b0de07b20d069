import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// pcapng in the pipelined reader (#30 part 5): every shared capture and fixture, converted by
/// editcap, reads the same through pushdiag's own block walker as through libpcap, and as its
/// classic pcap form; damaged pcapng files stop at the same record either way.
@Suite(.enabled(if: TestPaths.which("editcap") != nil, "editcap is not installed: the pcapng comparison is skipped"))
struct PcapngReaderTests {
    /// `editcap -F pcapng` of `path` into `dir`; nil when editcap refuses it.
    static func convert(_ path: String, into dir: URL, as name: String) throws -> String? {
        let out = dir.appendingPathComponent(name.replacingOccurrences(of: "/", with: "_") + ".pcapng").path
        let r = try run(TestPaths.which("editcap")!, ["-F", "pcapng", path, out], timeout: 120)
        return r.status == 0 && FileManager.default.fileExists(atPath: out) ? out : nil
    }

    /// Classic captures with a record above their snapshot length (26 bytes in a file whose
    /// record has 86), which libpcap reads whole as pcap and refuses as pcapng.
    static let exceptions: Set<String> = ["tcpdump/tests__ieee802.11_meshhdr-oobr.pcap"]

    /// The same kind of failure at the same record (the texts differ: libpcap's or the walker's).
    static func sameFailure(_ a: CaptureError?, _ b: CaptureError?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.truncated(_, let x, _), .truncated(_, let y, _)), (.readError(_, let x, _), .readError(_, let y, _)): return x == y
        case (.some(let x), .some(let y)): return x == y
        default: return false
        }
    }

    /// The report of what was read, without the error (whose text names the reader's view of it).
    static func comparable(_ o: CaptureFileAnalysis.Outcome) -> CaptureReport {
        o.analyzer.report(file: "capture", linkType: o.linkType.map(Int.init), linkTypeName: o.linkTypeName)
    }

    @Test func everyCaptureReadsTheSameAsPcapng() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = CaptureAnalyzer.Options()
        options.checkFCS = true
        var compared = 0
        var frames = 0
        var refused: [String] = []
        var differences: [String] = []
        for (path, name) in try OracleTests.capturesAndFixtures() {
            guard let ng = try Self.convert(path, into: dir, as: name) else {
                refused.append(name)
                continue
            }
            let classic = CaptureFileAnalysis.analyze(path: path, options: options)
            let libpcap = CaptureFileAnalysis.analyze(path: ng, options: options, pipelineThreshold: .max)
            // The smallest batches, so that blocks cross batch boundaries often.
            let ours = CaptureFileAnalysis.analyze(path: ng, options: options, pipelineThreshold: 0, pipelineBatchBytes: 0)
            if Self.comparable(ours) != Self.comparable(libpcap) || !Self.sameFailure(ours.error, libpcap.error) {
                differences.append(
                    "\(name): pcapng through libpcap \(libpcap.analyzer.frames) frames (\(libpcap.error?.description ?? "no error")), pipelined \(ours.analyzer.frames) (\(ours.error?.description ?? "no error"))"
                )
            }
            // editcap writes the records up to a cut: the pcapng form is whole, its counts the same.
            // Except where libpcap reads the two forms differently: a classic record longer than
            // the file's snapshot length is read whole, a pcapng one refused (by both readers).
            let refusedAsPcapng = libpcap.error.map { "\($0)".contains("bigger than snaplen") } ?? false
            if Self.comparable(ours) != Self.comparable(classic) && !(refusedAsPcapng && Self.exceptions.contains(name)) {
                differences.append("\(name): pcap \(classic.analyzer.frames) frames, pcapng pipelined \(ours.analyzer.frames)")
            }
            compared += 1
            frames += ours.analyzer.frames
        }
        #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(20).joined(separator: "\n"))")
        #expect(compared > (TestPaths.hasSharedPcaps ? 200 : 10), "refused by editcap: \(refused)")
        print(
            "pcapng: \(compared) captures, \(frames) frames the same through libpcap, the pipelined reader and as classic pcap; editcap refused \(refused.count)"
        )
    }

    /// A file of two big-endian sections, with nanosecond, 2^-20 s and offset microsecond
    /// interfaces, simple packet blocks and blocks to skip, larger than a batch: the same report
    /// as libpcap's.
    @Test func builtSectionsReadAsLibpcapReadsThem() throws {
        let source = try PcapFile(path: TestPaths.fixtures.appendingPathComponent("retries-above-15pct.pcap").path)
        var records: [(Int64, [UInt8])] = []
        try source.forEachRecord {
            records.append(($0.timestampNs, Array($0.bytes)))
            return true
        }
        var f = PcapngBuilder()
        let lt = UInt16(source.linkType)
        for pass in 0..<40 {
            f.section(bigEndian: true)
            f.interface(linkType: lt, tsresol: 9)
            f.interface(linkType: lt, tsresol: 0x80 | 24)
            f.interface(linkType: lt, tsoffset: 3600)
            f.block(0x0000_0005, [UInt8](repeating: 1, count: 40))  // interface statistics
            for (i, (ts, bytes)) in records.enumerated() {
                let t = UInt64(ts) + UInt64(pass) * 60_000_000_000
                switch i % 4 {
                case 0: f.enhancedPacket(interface: 0, units: t, bytes)
                case 1: f.enhancedPacket(interface: 1, units: t / 1_000_000_000 << 24 | (t % 1_000_000_000) << 24 / 1_000_000_000, bytes)
                case 2: f.packet(interface: 2, units: t / 1000, bytes)
                default: f.simplePacket(bytes)
                }
            }
        }
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sections.pcapng").path
        try Data(f.bytes).write(to: URL(fileURLWithPath: path))
        #expect(f.bytes.count > 1 << 20, "the file should span several batches")
        let libpcap = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: .max)
        let ours = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: 0, pipelineBatchBytes: 0)
        #expect(libpcap.error == nil && ours.error == nil, "\(String(describing: libpcap.error)) \(String(describing: ours.error))")
        #expect(ours.analyzer.frames == records.count * 40)
        #expect(ours.report(file: path) == libpcap.report(file: path))
    }

    /// Damaged pcapng files (bytes changed in block headers and bodies, files cut short): the
    /// pipelined reader delivers the same records as libpcap and fails at the same record, for
    /// the same kind of reason (truncated or not).
    @Test func damagedFilesStopWhereLibpcapStops() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sources = try ["roam-types.pcap", "steering-btm-deauth.pcap"].map { name in
            let ng = try #require(try Self.convert(TestPaths.fixtures.appendingPathComponent(name).path, into: dir, as: name))
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: ng)))
        }
        var random = SeededRandom(seed: 30)
        var differences: [String] = []
        var failed = 0
        let cases = 400
        for i in 0..<cases {
            var bytes = sources[i % sources.count]
            let pick = Int(random.next() * 4)
            switch pick {
            case 0:  // cut anywhere
                bytes.removeLast(Int(random.next() * Double(bytes.count - 1)) + 1)
            case 1:  // a length field of some block to a random small value
                let at = Int(random.next() * Double(bytes.count / 4)) * 4
                bytes[at] = UInt8(random.next() * 256)
            default:  // a few random bytes
                for _ in 0..<(1 + Int(random.next() * 4)) {
                    bytes[Int(random.next() * Double(bytes.count))] = UInt8(random.next() * 256)
                }
            }
            let path = dir.appendingPathComponent("damaged-\(i).pcapng").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let libpcap = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: .max)
            let ours = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: 0, pipelineBatchBytes: 0)
            if libpcap.error != nil { failed += 1 }
            // libpcap refuses a later section header of the other byte order; the walker reads on.
            if case .readError(_, _, let detail) = libpcap.error, detail.contains("different byte orders") { continue }
            let same = Self.comparable(ours) == Self.comparable(libpcap) && Self.sameFailure(ours.error, libpcap.error)
            if !same {
                differences.append(
                    "case \(i) (\(pick)): libpcap \(libpcap.analyzer.frames) frames, \(libpcap.error?.description ?? "no error"); pipelined \(ours.analyzer.frames), \(ours.error?.description ?? "no error")"
                )
            }
            try? FileManager.default.removeItem(atPath: path)
        }
        #expect(differences.isEmpty, "\(differences.count) of \(cases):\n\(differences.prefix(15).joined(separator: "\n"))")
        #expect(failed > cases / 4, "the damage should make libpcap fail often (\(failed) of \(cases))")
    }
}
