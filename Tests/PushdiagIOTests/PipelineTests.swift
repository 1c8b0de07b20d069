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
