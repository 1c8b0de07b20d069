import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Analyse 802.11 capture files: retries, channel utilisation, 802.11r/k/v, roaming.",
        discussion: """
            Reads pcap and pcapng files with radiotap, PPI, Prism, AVS or plain 802.11 headers. \
            With several files, prints each file's result and their total. Exit status: 0 no \
            finding, 1 warning, 2 critical, 3 a file could not be analysed (completely) and \
            nothing critical was found.
            """
    )

    @Argument(help: ArgumentHelp("Capture files (pcap or pcapng).", valueName: "FILE"), completion: .file())
    var files: [String] = []

    @Option(
        help: ArgumentHelp("Capture live on this monitor interface instead of reading files.", valueName: "MON"), completion: .shellCommand("ls /sys/class/net")
    )
    var interface: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --interface: how long to capture (default 30s).", valueName: "D"))
    var duration: String?

    @Option(help: ArgumentHelp("With --interface: also write the frames to FILE (pcap).", valueName: "FILE"), completion: .file())
    var write: String?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .customLong("check-fcs"), help: "Recompute the FCS where the capture has one and count frames that fail.")
    var checkFCS = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Rows per table in text output (0: all).", valueName: "N"))
    var limit: Int = 20

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("A gap longer than D with no frame from a station is a silence (default 10s).", valueName: "D"))
    var silence: String = "10s"

    @Option(help: ArgumentHelp("Show only this station: its row, what happened to it, its roaming events.", valueName: "MAC"))
    var station: String?

    @OptionGroup var thresholds: ThresholdOptions
    /// A station's roams are graded on walk's link-gap rows.
    @OptionGroup var ftGap: RowFlags<FlagRows.FTGap>
    @OptionGroup var roamGap: RowFlags<FlagRows.RoamGap>

    /// The link-gap limits a station's roam is graded by: the flags over walk's defaults (no
    /// configuration file here, so a contradiction is the flags', said with their names).
    func roamLimits() throws -> WalkThresholds {
        let values = try ThresholdRow.flagLimits(ftGap.typed + roamGap.typed)
        switch WalkThresholds.resolve(values, flags: Set(values.keys)) {
        case .success(let t): return t
        case .failure(let e): throw ValidationError(e.description)
        }
    }

    func validate() throws {
        if interface != nil {
            guard files.isEmpty else { throw ValidationError("give capture files or --interface, not both") }
            _ = try parseDuration(duration ?? "30s", option: "--duration")
        } else {
            guard !files.isEmpty else { throw ValidationError("give at least one capture file, or --interface MON for a live capture") }
            guard write == nil else { throw ValidationError("--write goes with --interface") }
            guard duration == nil else { throw ValidationError("--duration goes with --interface (a file is read to its end)") }
        }
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
        guard try parseDuration(silence, option: "--silence") > 0 else { throw ValidationError("--silence must be longer than 0 (a gap of D with no frame)") }
        if let station, MACAddress(station) == nil { throw ValidationError("--station must be a MAC address (aa:bb:cc:dd:ee:ff), not '\(station)'") }
        _ = try roamLimits()
    }

    /// The report narrowed to `--station`'s station and its roaming events.
    func focus(_ r: CaptureReport) -> CaptureReport {
        guard let mac = station.flatMap(MACAddress.init) else { return r }
        var r = r
        r.stations = r.stations.filter { $0.mac == mac }
        r.roamingEvents = r.roamingEvents.filter { $0.station == mac }
        return r
    }

    func run() throws {
        var options = CaptureAnalyzer.Options()
        options.checkFCS = checkFCS
        options.thresholds = try thresholds.thresholds()
        options.stations.silenceNs = Int64(try parseDuration(silence, option: "--silence") * 1e9)
        options.stations.roamLimits = try roamLimits()
        let progress = Progress()
        var reports: [CaptureReport] = []
        var total = CaptureAnalyzer(options: options)
        if let interface {
            StopSignal.install()
            let seconds = try parseDuration(duration ?? "30s", option: "--duration")
            let outcome = CaptureFileAnalysis.analyzeLive(interface: interface, seconds: seconds, writeTo: write, options: options) { StopSignal.isRequested }
            if let e = outcome.error { diagnose(e.description) }
            reports.append(focus(outcome.report(file: interface)))
        }
        for path in files {
            let outcome = CaptureFileAnalysis.analyze(path: path, options: options) { done, size in
                if size > 0 { progress.update("\(path): \(done * 100 / size)%") }
            }
            progress.clear()
            if let e = outcome.error { diagnose(e.description) }
            reports.append(focus(outcome.report(file: path)))
            total.merge(outcome.analyzer)
        }

        let status: Severity
        let output: String
        if reports.count == 1 {
            status = reports[0].status
            output = format == .json ? try JSONRenderer.render(reports[0]) : CaptureTextRenderer(limit: limit, focused: station != nil).render(reports[0])
        } else {
            let errors = reports.compactMap(\.error)
            let anyTruncated = reports.contains { $0.truncated }
            let summary: String? = errors.isEmpty ? nil : "\(errors.count) of \(NumberText.count(reports.count, "file")) could not be read completely"
            var combined = focus(total.report(file: nil, truncated: anyTruncated, error: summary))
            combined.status = max(combined.status, reports.map(\.status).max() ?? .ok)
            let multi = MultiCaptureReport(files: reports, total: combined, status: combined.status)
            status = multi.status
            output = format == .json ? try JSONRenderer.render(multi) : CaptureTextRenderer(limit: limit, focused: station != nil).render(multi)
        }
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(status.exitCode)
    }
}
