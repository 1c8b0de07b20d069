import PushdiagCore

/// Runs the capture analyser over one file: open, check the link type, stream every record.
public enum CaptureFileAnalysis {
    public struct Outcome {
        public var analyzer: CaptureAnalyzer
        public var linkType: Int32?
        public var linkTypeName: String?
        public var error: CaptureError?

        public var truncated: Bool {
            if case .truncated = error { return true }
            return false
        }

        public func report(file: String) -> CaptureReport {
            analyzer.report(file: file, linkType: linkType.map(Int.init), linkTypeName: linkTypeName, truncated: truncated, error: error?.description)
        }
    }

    /// Files at least this large are read on a second thread while the first analyses.
    public static let pipelineThreshold: Int64 = 16 << 20

    /// `progress` is called about every 64k records with (bytes read, file size).
    /// `pipelineThreshold`: files this size or larger are read on a second thread.
    public static func analyze(
        path: String, options: CaptureAnalyzer.Options, pipelineThreshold: Int64 = pipelineThreshold,
        pipelineBatchBytes: Int = 4 << 20, progress: ((Int64, Int64) -> Void)? = nil
    ) -> Outcome {
        var analyzer = CaptureAnalyzer(options: options)
        let file: PcapFile
        do {
            file = try PcapFile(path: path)
        } catch {
            return Outcome(analyzer: analyzer, linkType: nil, linkTypeName: nil, error: error)
        }
        let name = PcapFile.linkTypeName(file.linkType)
        guard let lt = LinkType(rawValue: file.linkType) else {
            return Outcome(
                analyzer: analyzer, linkType: file.linkType, linkTypeName: name,
                error: .unsupportedLinkType(path: path, linkType: file.linkType, name: name))
        }
        var outcome = Outcome(analyzer: analyzer, linkType: file.linkType, linkTypeName: name, error: nil)
        do {
            var n = 0
            if file.size >= pipelineThreshold {
                try file.forEachFramePipelined(linkType: lt, batchBytes: pipelineBatchBytes) { frame in
                    analyzer.ingest(frame)
                    n &+= 1
                    if let progress, n & 0xFFFF == 0 { progress(file.analysedPosition, file.size) }
                    return true
                }
            } else {
                try file.forEachRecord { rec in
                    analyzer.ingest(linkType: lt, timestampNs: rec.timestampNs, packet: rec.bytes, originalLength: rec.originalLength)
                    n &+= 1
                    if let progress, n & 0xFFFF == 0 { progress(file.position, file.size) }
                    return true
                }
            }
        } catch {
            outcome.error = error
        }
        outcome.analyzer = analyzer
        return outcome
    }

    /// A live capture on a monitor interface for `seconds`, analysed as it arrives.
    public static func analyzeLive(
        interface: String, seconds: Double, writeTo path: String?, options: CaptureAnalyzer.Options,
        stop: () -> Bool = { false }
    ) -> Outcome {
        var analyzer = CaptureAnalyzer(options: options)
        let live: PcapLive
        do {
            live = try PcapLive(interface: interface)
            if let path { try live.write(to: path) }
        } catch {
            return Outcome(analyzer: analyzer, linkType: nil, linkTypeName: nil, error: error)
        }
        let name = PcapFile.linkTypeName(live.linkType)
        guard let lt = LinkType(rawValue: live.linkType) else {
            return Outcome(
                analyzer: analyzer, linkType: live.linkType, linkTypeName: name,
                error: .unsupportedLinkType(path: interface + " (not a monitor interface)", linkType: live.linkType, name: name))
        }
        var outcome = Outcome(analyzer: analyzer, linkType: live.linkType, linkTypeName: name, error: nil)
        do {
            _ = try live.capture(seconds: seconds, stop: stop) { rec in
                analyzer.ingest(linkType: lt, timestampNs: rec.timestampNs, packet: rec.bytes, originalLength: rec.originalLength)
            }
            try live.finish()
        } catch {
            outcome.error = error
        }
        outcome.analyzer = analyzer
        return outcome
    }
}
