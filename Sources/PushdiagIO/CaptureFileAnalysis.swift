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

    /// `progress` is called about every 64k records with (bytes read, file size).
    public static func analyze(path: String, options: CaptureAnalyzer.Options, progress: ((Int64, Int64) -> Void)? = nil) -> Outcome {
        var analyzer = CaptureAnalyzer(options: options)
        let file: PcapFile
        do {
            file = try PcapFile(path: path)
        } catch {
            return Outcome(analyzer: analyzer, linkType: nil, linkTypeName: nil, error: error)
        }
        let name = PcapFile.linkTypeName(file.linkType)
        guard let lt = LinkType(rawValue: file.linkType) else {
            return Outcome(analyzer: analyzer, linkType: file.linkType, linkTypeName: name,
                           error: .unsupportedLinkType(path: path, linkType: file.linkType, name: name))
        }
        var outcome = Outcome(analyzer: analyzer, linkType: file.linkType, linkTypeName: name, error: nil)
        do {
            var n = 0
            try file.forEachRecord { rec in
                analyzer.ingest(linkType: lt, timestampNs: rec.timestampNs, packet: rec.bytes, originalLength: rec.originalLength)
                n &+= 1
                if let progress, n & 0xFFFF == 0 { progress(file.position, file.size) }
                return true
            }
        } catch {
            outcome.error = error
        }
        outcome.analyzer = analyzer
        return outcome
    }
}
