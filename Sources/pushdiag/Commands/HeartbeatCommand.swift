import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

extension HeartbeatProtocol: ExpressibleByArgument {}

extension SimplePush.ByteOrder: ExpressibleByArgument {}

struct HeartbeatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartbeat",
        abstract: "Measure heartbeat round trips to a push server, and how the connection behaves when it breaks.",
        discussion: """
            Protocols: \(HeartbeatProtocol.allCases.map(\.definition.summary).joined(separator: ", ")). After a loss (the server closes, \
            or --misses heartbeats go unanswered) it reconnects on --reconnect-schedule, like a \
            client SDK, and reports each attempt. Exit status: 0 OK, 1 WARNING, 2 CRITICAL (also a \
            server that refuses the connection, does not answer it, fails TLS or breaks its protocol: \
            devices cannot use it either), 3 could not check (a name that does not resolve here). \
            Options only some modes use are refused by the others (\(modeHelp)).
            """
    )

    @Argument(help: ArgumentHelp("The push server, HOST[:PORT] ([v6]:PORT for IPv6).", valueName: "HOST[:PORT]"))
    var target: String

    // Optional, the defaults said in the help: a mode that does not use them refuses them.
    @Option(parsing: .unconditional, help: ArgumentHelp("Number of heartbeats (default \(HeartbeatOptions.defaultCount)).", valueName: "N"))
    var count: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Time between heartbeats (default \(DurationText.format(HeartbeatOptions.defaultIntervalMs / 1000))).", valueName: "D"))
    var interval: String?

    @OptionGroup var connection: HeldConnectionOptions
    var proto: HeartbeatProtocol { connection.proto }

    // The limits, a row's two flags a line (RowFlags); survey takes the same.
    @OptionGroup var loss: RowFlags<FlagRows.Loss>
    @OptionGroup var rtt: RowFlags<FlagRows.RTT>
    @OptionGroup var certificate: RowFlags<FlagRows.Certificate>

    @Option(
        help: ArgumentHelp(
            "\(HeartbeatProtocol.names(HeartbeatProtocol.with(.register))): register as user NAME and watch the server's own heartbeats.", valueName: "NAME"))
    var register: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --register: the longest gap between server heartbeats before a device would reconnect (default \(DurationText.format(HeartbeatOptions.defaultServerHeartbeatTimeoutS))).",
            valueName: "D"))
    var heartbeatTimeout: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --register: the idle time after which the path forgets a connection (as --find-idle-timeout found it); the server's heartbeat spacing is judged against it.",
            valueName: "D"))
    var idleTimeout: String?

    @OptionGroup var limits: JoinLimitsOptions
    @OptionGroup var safeInterval: RowFlags<FlagRows.SafeInterval>

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Load mode: simulate N devices at once, each with its own connection (\(HeartbeatProtocol.names(HeartbeatProtocol.with(.load)))).", valueName: "N")
    )
    var clients: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Load mode: open the connections spread over this long (default 0s: at once).", valueName: "D"))
    var ramp: String?

    @OptionGroup var idleLadder: IdleLadderOptions<PathIdleLadder>
    @OptionGroup var storm: StormFlags

    @Option(
        help: ArgumentHelp(
            "The Wi-Fi interface the heartbeats go out of: its scans, channel switches, radar events, roams and disconnects (nl80211) and its carrier and address changes (rtnetlink) are joined with the bad heartbeats (stalls).",
            valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    /// The options as the session takes them; every rule on them is the core's
    /// (`HeartbeatOptions.validate`), durations are bounded by `parseDuration`.
    func options() throws -> HeartbeatOptions {
        try connection.options(target: target, interval: interval, clients: clients, storm: storm.storm) { o in
            o.count = count ?? o.count
            o.register = register
            o.serverHeartbeatTimeoutS = try heartbeatTimeout.map { try parseDuration($0, option: "--heartbeat-timeout") } ?? o.serverHeartbeatTimeoutS
            o.pathIdleTimeoutS = try idleTimeout.map { try parseDuration($0, option: "--idle-timeout", atLeast: IdleTimeout.shortest) }
            o.thresholds = HeartbeatThresholds(try ThresholdRow.flagLimits(loss.typed + rtt.typed + certificate.typed + safeInterval.typed))
        }
    }

    func validate() throws {
        try validateIdleMode()
        try validateMode()
        if !connection.connection.tlsFlags.tls, let given = certificate.typed.first(where: { $0.2 != nil }) {
            throw ValidationError("\(given.0.flag(given.1)) goes with --tls (the certificate is graded)")
        }
        _ = try options()
        _ = try idleRungs()
        if limits.joinLimits != nil && register == nil { throw ValidationError("--join-limits goes with --register (the server's heartbeats are graded)") }
        if heartbeatTimeout != nil && register == nil {
            throw ValidationError("--heartbeat-timeout goes with --register (the server's heartbeats are watched)")
        }
        if limits.joinLimits == nil, idleTimeout == nil, let given = safeInterval.typed.first(where: { $0.2 != nil }) {
            throw ValidationError(ThresholdRow.safeIntervalAlone(given.0.flag(given.1), takes: "--join-limits or --idle-timeout"))
        }
        try validateInterface()
        if let clients {
            _ = try rampSeconds
            let most = DeviceEngine.maximumClients
            guard clients <= most else {
                throw ValidationError("--clients: at most \(most) on this machine (one open file each, within its open-file limit; raise it with ulimit -n)")
            }
        }
    }

    func run() throws {
        StopSignal.install()
        var o = try options()
        o.joinLimits = try JoinLimitsOptions.load(limits.joinLimits, interface: nil)
        if let rungs = try idleRungs() { return try runIdleTimeout(o, rungs: rungs) }
        if let clients, storm.storm { return try runStorm(o, clients: clients) }
        if let clients { return try runLoad(o, clients: clients) }
        let link = try interface.map { i in try unknownOnFailure(json: format == .json ? .object : nil) { try LinkFollower(interface: i) } }
        if let n = link?.note { diagnose("heartbeat: \(n)") }
        let probe = HeartbeatProbe(o, stop: { StopSignal.isRequested }, link: link)
        // On a terminal, a line that says how far it got (nothing on a pipe or in cron).
        let progress = Progress()
        probe.onHeartbeat = { n, answered, rtt in
            progress.update("heartbeat \(n)/\(o.count): \(answered) answered, last " + (rtt.map { "\(NumberText.format($0)) ms" } ?? "unanswered"))
        }
        let report = probe.run()
        progress.clear()
        if let e = report.error { diagnose(e) }
        if let f = link?.changesFailure { diagnose("heartbeat: carrier and address changes followed only until: \(f)") }
        try finish(try JSONRenderer.render(report), HeartbeatTextRenderer().render(report), exitCode: report.status.exitCode)
    }
}
