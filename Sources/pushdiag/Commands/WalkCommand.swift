import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct WalkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "walk",
        abstract: "Hold a push connection while walking through the building: which roam cost which heartbeats, and where the signal fell short.",
        discussion: """
            Holds one push connection as a device does (heartbeat's protocols, TLS and reconnect \
            schedule) on --interval, samples the link over nl80211 on --sample, and follows \
            roams and disconnects as they happen, all on one clock. Each roam is joined with \
            what the push connection saw across it (push gap, lost heartbeats, kept, \
            reconnected or lost) and graded: an 802.11r roam is OK up to \(NumberText.format(ThresholdRow.ftGap.warning)) ms of link gap, a warning up to \
            \(NumberText.format(ThresholdRow.ftGap.critical!)) ms; any other roam OK up to \(NumberText.format(ThresholdRow.roamGap.warning)) ms, a warning up to \(NumberText.format(ThresholdRow.roamGap.critical!)) ms; \
            a change of SSID or of band is at least a warning; a connection not kept is critical. Samples weaker than \(NumberText.format(ThresholdRow.signal.warning)) dBm \
            are a warning, than \(NumberText.format(ThresholdRow.signal.critical!)) dBm critical (\(IOSRoamingRule.triggerWords)); more than \
            \(NumberText.format(WalkThresholds().stickySeconds)) s below the critical level with a BSS of the same SSID \(NumberText.format(Double(WalkThresholds().stickyMarginDb))) dB stronger \
            in a scan cache entry at most \(NumberText.format(IOSRoamingRule.staleAfter.value / 1000)) s old is a sticky client. Through an iPhone's eyes, iOS's \
            roaming rules applied to the samples and the scan cache (--signal-offset): predicted \
            roams, sticky zones, coverage holes and coverage per place. A heartbeat lost or \(NumberText.format(ThresholdRow.stallMargin.warning)) ms \
            over the run's p95 is a stall, named by what the link did then (own scan, channel \
            switch, radar, roam, disconnect, interface change, or nothing seen here). Places: \
            --location, then a line typed on standard input (Enter) names the place from then on; \
            SIGUSR1 adds an unnamed mark. Runs until --duration, SIGINT or SIGTERM. Exit status: \
            0 OK, 1 WARNING, 2 CRITICAL (also a server unreachable at the start), 3 could not run \
            (no such interface, no nl80211) or only in part (the interface went away, an output \
            failed). --html writes the timeline as a web page; --history appends the walk to \
            report's SQLite history.
            """
    )

    @Argument(help: ArgumentHelp("The push server, HOST[:PORT] ([v6]:PORT for IPv6); with --replay, the recording's.", valueName: "HOST[:PORT]"))
    var target: String?

    @Option(
        help: ArgumentHelp("The Wi-Fi interface to follow (with --replay, the recording's).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Time between heartbeats (short enough to see a roam's gap).", valueName: "D"))
    var interval: String = "250ms"

    @Option(parsing: .unconditional, help: ArgumentHelp("Time between samples of the link.", valueName: "D"))
    var sample: String = DurationText.format(WalkSettings.defaultSampleMs / 1000)

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this long (default: until interrupted).", valueName: "D"))
    var duration: String?

    @Option(help: ArgumentHelp("The place at the start (\"ward 3 east\").", valueName: "TEXT"))
    var location: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("A disconnect followed by a connect to another BSS of the same SSID within this long is a roam.", valueName: "D"))
    var roamWindow: String = DurationText.format(RoamTracker.defaultWindowSeconds)

    @OptionGroup var connection: HeldConnectionOptions
    @OptionGroup var limits: WalkThresholdOptions
    @OptionGroup var lens: IPhoneLensOptions

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(
        help: ArgumentHelp("Write the walk to DIR (nl80211.pcap: the netlink traffic; push.jsonl: the push connection's log) to replay it.", valueName: "DIR"),
        completion: .directory)
    var record: String?

    @Option(help: ArgumentHelp("Report a walk recorded with --record DIR instead of walking.", valueName: "DIR"), completion: .directory)
    var replay: String?

    @Option(
        help: ArgumentHelp("Also write the walk as a web page: the timeline of signal and round trip, places, roams by grade.", valueName: "FILE"),
        completion: .file())
    var html: String?

    @Option(
        help: ArgumentHelp("Append the walk to this SQLite history (the one report writes), to compare a site's walks.", valueName: "FILE"), completion: .file()
    )
    var history: String?

    func settings() throws -> WalkSettings {
        if replay == nil {
            guard target != nil else { throw ValidationError("a walk needs the push server: pushdiag walk --interface IF HOST[:PORT]") }
            guard interface != nil else { throw ValidationError("a walk needs --interface (the Wi-Fi interface to follow)") }
        } else if let (flag, _) = [("--record", record), ("--location", location), ("--duration", duration)].first(where: { $0.1 != nil }) {
            throw ValidationError("\(flag) and --replay cannot be combined")  // a replay is the recording's walk
        }
        // A replay takes the server and interface from its recording; heartbeats back to back would flood the server.
        let o = try connection.options(target: target ?? "recorded:1", interval: interval, shortestInterval: 0.01)
        var s = WalkSettings(interface: interface ?? "", heartbeat: o)
        s.sampleMs = try parseDuration(sample, option: "--sample", atLeast: 0.05) * 1000
        s.durationSeconds = try duration.map { try parseDuration($0, option: "--duration") }
        s.roamWindowSeconds = try parseDuration(roamWindow, option: "--roam-window")
        (s.location, s.recordDirectory) = (location, record)
        s.scanEverySeconds = try lens.scanEverySeconds(replaying: replay != nil)
        return s
    }

    func validate() throws {
        _ = try settings()
        _ = (try limits.thresholds(), try lens.lens())
        for (flag, file) in [("--html", html), ("--history", history)] where file?.isEmpty == true { throw ValidationError("\(flag) needs a file name") }
    }

    func run() throws {
        StopSignal.install()
        BrokenPipe.ignore()
        let s = try settings()
        let limits = try self.limits.thresholds()
        let timeline: WalkTimeline = try unknownOnFailure(json: format == .json ? .object : nil) {
            if let replay { return try WalkRunner.replay(directory: replay, settings: s) }
            if let record { try WalkRunner.createRecordDirectory(record) }
            let runner = WalkRunner(s, stop: { StopSignal.isRequested })
            LiveView().follow(runner)
            runner.followPlaces()
            return try NetlinkSource.with(protocol: Netlink.protocolGeneric, record: record.map { $0 + "/nl80211.pcap" }, replay: nil) { transport in
                try NetlinkSource.with(protocol: Netlink.protocolRoute, record: record.map { $0 + "/rtnetlink.pcap" }, replay: nil) { route in
                    try runner.run(transport: transport, route: route)
                }
            }
        }
        for f in [timeline.failure.map { "\(timeline.server): \($0)" }, timeline.linkFailure].compactMap({ $0 }) { diagnose(f) }
        let report = WalkReport.assemble(timeline, thresholds: limits, lens: try lens.lens())
        let output = format == .json ? try JSONRenderer.render(report) : WalkTextRenderer.render(report)
        // Every output asked for is written whatever became of the others.
        var failed = false
        if let html {
            do throws(StoreError) { try AtomicFile.write(WalkHTMLRenderer(limits: limits).render(report), to: html) } catch {
                diagnose("--html: \(error)")
                failed = true
            }
        }
        if let history {
            let json = try JSONRenderer.render(report, pretty: false)
            do throws(StoreError) {
                let lock = try AtomicFile.lock(history)
                defer { withExtendedLifetime(lock) {} }
                try HistoryStore(path: history).append(walk: report, json: json)
            } catch {
                diagnose("--history: \(error)")
                failed = true
            }
        }
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(failed ? max(report.status, .unknown).exitCode : report.status.exitCode)
    }
}
