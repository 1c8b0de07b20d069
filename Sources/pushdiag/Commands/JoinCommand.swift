import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

extension JoinKick: ExpressibleByArgument {}

struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Time a rejoin step by step, from the dropped association to the first push heartbeat answered.",
        discussion: """
            Asks the machine's connection manager to drop the association and bring it back, as \
            after an AP reboot, and never changes its configuration. --kick auto (the default) \
            finds the manager: NetworkManager, then iwd (over the system bus, each only if it is \
            running), then wpa_supplicant's control interface. --kick networkmanager: the \
            device's Disconnect, then ActivateConnection of the connection it had; --kick iwd: \
            the station's Disconnect, then Connect on its network; --kick wpa_supplicant: \
            DISCONNECT, then RECONNECT; --kick link: the interface down and up, CAP_NET_ADMIN; \
            --kick passive: waits for rejoins that happen by themselves. Every step is timed on one clock from \
            what the kernel and the wire show: scan, authentication, association (nl80211), EAP \
            and the 4-way handshake (EAPOL frames, the port authorized, the operstate up), DHCP, \
            the address (rtnetlink), the gateway reachable, DNS, TCP, TLS, the protocol's hello \
            and the first heartbeat answered: push-ready. A step the manager did without is \
            skipped; one that needs a privilege pushdiag lacks is not visible, with the \
            privilege named; never a guessed time. Prints a waterfall per cycle, p50/p95/max per \
            step over --count cycles and the groups (link, keys, address, name, push) and \
            push-ready graded. Exit status: 0 OK, 1 WARNING, 2 CRITICAL (also a cycle that never \
            got to push-ready), 3 could not run (no such interface, no connection manager answered). \
            --record DIR keeps the netlink traffic, the packets and pushdiag's own events; \
            --replay DIR reports them again (a recording that breaks: the cycles that ended before, \
            one line naming the file and record, exit 3 unless CRITICAL). --html draws the waterfall as a web page, --history \
            appends the run to report's SQLite history, --textfile writes Prometheus metrics; an \
            output that cannot be written is one line and exit 3 (CRITICAL outranks it). \
            --find-ap-idle then leaves the station silent for longer and longer (--ladder) to find \
            after how long the AP drops it, and gives the longest safe heartbeat interval: the \
            lowest of that, the AP's BSS Max Idle Period and --idle-timeout.
            """
    )

    @Argument(help: ArgumentHelp("The push server, HOST[:PORT] ([v6]:PORT for IPv6); with --replay, the recording's.", valueName: "HOST[:PORT]"))
    var target: String?

    @Option(
        help: ArgumentHelp("The Wi-Fi interface to rejoin (with --replay, the recording's).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(
        name: [.customLong("kick"), .customLong("manager")],
        help: ArgumentHelp("How a cycle starts: the connection manager to ask, or link or passive (--manager is the same option).", valueName: "HOW"))
    var kick: JoinKick = .auto

    @Flag(help: "Wait for rejoins that happen by themselves (the same as --kick passive).")
    var passive = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Cycles to run.", valueName: "N"))
    var count: Int = 1

    @Option(parsing: .unconditional, help: ArgumentHelp("Time between cycles.", valueName: "D"))
    var interval: String = DurationText.format(JoinSettings.defaults.interval)

    @Option(parsing: .unconditional, help: ArgumentHelp("A cycle not push-ready by then ends.", valueName: "D"))
    var cycleTimeout: String = DurationText.format(JoinSettings.defaults.cycleTimeout)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long after the link is up a DHCP client may take to begin; a push made before it began is made again once the address is settled (0: no wait for a client that has not begun; an exchange already under way is still waited for).",
            valueName: "D"))
    var dhcpWait: String = DurationText.format(JoinSettings.defaults.dhcpWait)

    @Option(help: ArgumentHelp("wpa_supplicant's control interface directory.", valueName: "DIR"), completion: .directory)
    var controlDirectory: String = JoinSettings.defaults.controlDirectory

    @OptionGroup var connection: PushConnectionOptions

    @OptionGroup var limits: JoinThresholdOptions

    @OptionGroup var idle: JoinIdleOptions

    @Option(
        help: ArgumentHelp(
            "Write the run to DIR (nl80211.pcap and rtnetlink.pcap: the netlink traffic; packets.pcap: the interface's packets; join.jsonl: pushdiag's own events) to replay it.",
            valueName: "DIR"),
        completion: .directory)
    var record: String?

    @Option(help: ArgumentHelp("Report a run recorded with --record DIR instead of rejoining.", valueName: "DIR"), completion: .directory)
    var replay: String?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var outputs: JoinOutputOptions

    func run() throws {
        StopSignal.install()
        BrokenPipe.ignore()
        let limits = try self.limits.thresholds()
        var broken: String?
        let report = try unknownOnFailure(json: format == .json ? .object : nil) {
            if let replay {
                let r = try JoinReplay.run(directory: replay, thresholds: limits)
                broken = r.broken
                return JoinAnalysis.report(
                    interface: r.header.interface, server: r.header.server, mode: r.header.mode, cycles: r.cycles, thresholds: limits, notes: r.header.notes,
                    apIdle: r.apIdle)
            }
            let s = try settings()
            if let record { try WalkRunner.createRecordDirectory(record) }
            let runner = JoinRunner(s, thresholds: limits, stop: { StopSignal.isRequested })
            let cycles = try NetlinkSource.with(protocol: Netlink.protocolGeneric, record: record.map { $0 + "/nl80211.pcap" }, replay: nil) { generic in
                try NetlinkSource.with(protocol: Netlink.protocolRoute, record: record.map { $0 + "/rtnetlink.pcap" }, replay: nil) { route in
                    try runner.run(generic: generic, route: route, record: record)
                }
            }
            return JoinAnalysis.report(
                interface: s.interface, server: s.heartbeat.endpoint.description, mode: runner.mode, cycles: cycles, thresholds: limits,
                notes: runner.notes, apIdle: runner.apIdle)
        }
        let output = format == .json ? try JSONRenderer.render(report) : JoinTextRenderer.render(report)
        let written = try outputs.write(report)
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        if let broken { diagnose("\(replay ?? ""): the recording breaks (\(broken)); the cycles before are reported") }
        throw ExitCode(written && broken == nil ? report.status.exitCode : max(report.status, .unknown).exitCode)
    }
}
