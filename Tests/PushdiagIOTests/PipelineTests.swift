import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The two-thread reader gives exactly what the one-thread reader gives.
struct PipelineTests {
    static func files() -> [String] {
        var paths = ["retries-above-15pct.pcap", "roam-ft.pcap", "capture-truncated.pcap"].map { TestPaths.fixtures.appendingPathComponent($0).path }
        if TestPaths.hasSharedPcaps, let all = try? FileManager.default.subpathsOfDirectory(atPath: TestPaths.sharedPcaps.path) {
            paths += all.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".cap") }.sorted().map { TestPaths.sharedPcaps.appendingPathComponent($0).path }
        }
        return paths
    }

    @Test func pipelinedReadEqualsSequentialRead() throws {
        var options = CaptureAnalyzer.Options()
        options.checkFCS = true
        var multiBatch = 0
        for path in Self.files() {
            let one = CaptureFileAnalysis.analyze(path: path, options: options, pipelineThreshold: .max)
            // The smallest batches, so files of a few MB cross many batch boundaries.
            let two = CaptureFileAnalysis.analyze(path: path, options: options, pipelineThreshold: 0, pipelineBatchBytes: 0)
            #expect(one.report(file: path) == two.report(file: path), "\(path)")
            #expect(one.error == two.error, "\(path)")
            if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 1 << 19 { multiBatch += 1 }
        }
        if TestPaths.hasSharedPcaps { #expect(multiBatch > 0, "some file should span several batches") }
    }

    /// A classic file whose records outgrow its snapshot length part way: the pipelined reader
    /// walks the blocks itself up to the first such record and lets libpcap read from there on,
    /// which cuts them to the snapshot length as it would have from the start.
    @Test func libpcapReadsOnFromTheFirstUnusualRecord() throws {
        let source = try PcapFile(path: TestPaths.fixtures.appendingPathComponent("retries-above-15pct.pcap").path)
        var records: [(Int64, [UInt8], Int)] = []
        try source.forEachRecord {
            records.append(($0.timestampNs, Array($0.bytes), $0.originalLength))
            return true
        }
        let snap = 120  // the fixture: a 108-byte beacon, then 151-byte data frames
        let firstLong = try #require(records.firstIndex { $0.1.count > snap })
        #expect(firstLong > 0 && records.count > firstLong + 1, "the fixture should have short records before a long one")
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("snap-\(snap).pcap").path
        let writer = try PcapWriter(path: path, linkType: source.linkType, snapLength: Int32(snap))
        for (ts, bytes, original) in records { writer.write(timestampNs: ts, bytes: bytes, originalLength: original) }
        try writer.close()

        let one = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: .max)
        let two = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: 0)
        #expect(one.analyzer.frames == records.count)
        #expect(one.report(file: path) == two.report(file: path))
        #expect(one.error == nil && two.error == nil)
    }

    /// One record above the snapshot length early in a long file: libpcap reads it and a stint
    /// after it, then blocks take over again; both readers give the same report.
    @Test func blocksTakeOverAgainAfterLibpcapsStint() throws {
        let source = try PcapFile(path: TestPaths.fixtures.appendingPathComponent("retries-above-15pct.pcap").path)
        var records: [(Int64, [UInt8], Int)] = []
        try source.forEachRecord {
            records.append(($0.timestampNs, Array($0.bytes), $0.originalLength))
            return true
        }
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("one-long-record.pcap").path
        let writer = try PcapWriter(path: path, linkType: source.linkType, snapLength: 200)
        var written = 0
        for pass in 0..<(2 * PcapFile.libpcapStint / records.count + 2) {
            for (i, (ts, bytes, original)) in records.enumerated() {
                // The 101st record carries 300 bytes: libpcap cuts it to the snapshot length.
                let long = pass == 0 && i == 100
                writer.write(
                    timestampNs: ts + Int64(pass) * 3_600_000_000_000, bytes: long ? bytes + [UInt8](repeating: 0, count: 300 - bytes.count) : bytes,
                    originalLength: long ? 300 : original)
                written += 1
            }
        }
        try writer.close()

        let one = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: .max)
        let two = CaptureFileAnalysis.analyze(path: path, options: .init(), pipelineThreshold: 0, pipelineBatchBytes: 0)
        #expect(one.analyzer.frames == written && written > PcapFile.libpcapStint + 200)
        #expect(one.report(file: path) == two.report(file: path))
        #expect(one.error == nil && two.error == nil)
    }

    @Test func stoppingEarlyReleasesTheReader() throws {
        let file = try PcapFile(path: TestPaths.fixtures.appendingPathComponent("retries-above-15pct.pcap").path)
        var seen = 0
        let n = try file.forEachRecordPipelined { _ in
            seen += 1
            return seen < 7
        }
        #expect(n == 7 && seen == 7)
    }
}
