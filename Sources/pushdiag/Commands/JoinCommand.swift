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
            --replay DIR reports them again. --html draws the waterfall as a web page, --history \
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
    var interval: String = "2s"

    @Option(parsing: .unconditional, help: ArgumentHelp("A cycle not push-ready by then ends.", valueName: "D"))
    var cycleTimeout: String = "30s"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long after the link is up a DHCP client may take to begin; a push made before it began is made again once the address is settled (0: no wait for a client that has not begun; an exchange already under way is still waited for).",
            valueName: "D"))
    var dhcpWait: String = "2s"

    @Option(help: ArgumentHelp("wpa_supplicant's control interface directory.", valueName: "DIR"), completion: .directory)
    var controlDirectory: String = "/var/run/wpa_supplicant"

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

    func settings() throws -> JoinSettings {
        guard let target else { throw ValidationError("join needs the push server: pushdiag join --interface IF HOST[:PORT]") }
        guard let interface, !interface.isEmpty else { throw ValidationError("join needs --interface (the Wi-Fi interface to rejoin)") }
        guard (1...10_000).contains(count) else { throw ValidationError("--count: '\(count)' is not between 1 and 10000") }
        var s = JoinSettings(interface: interface, heartbeat: try connection.options(target: target, interval: "1s"))
        s.kick = passive ? .passive : kick
        s.count = count
        s.intervalSeconds = try parseDuration(interval, option: "--interval")
        s.cycleTimeoutSeconds = try parseDuration(cycleTimeout, option: "--cycle-timeout", atLeast: 1)
        s.controlDirectory = controlDirectory
        s.dhcpWaitSeconds = try parseDuration(dhcpWait, option: "--dhcp-wait")
        (s.apIdleRungs, s.pathIdleTimeoutS) = try idle.settings()
        return s
    }

    func validate() throws {
        if record != nil && replay != nil { throw ValidationError("--record and --replay cannot be combined") }
        if replay != nil {
            // What only a live run uses is still refused when it is no value at all.
            for (text, option) in [(interval, "--interval"), (cycleTimeout, "--cycle-timeout"), (dhcpWait, "--dhcp-wait")] {
                _ = try parseDuration(text, option: option)
            }
            _ = try limits.thresholds()
            _ = try idle.settings()
            return
        }
        let s = try settings()
        _ = try limits.thresholds()
        guard if_nametoindex(s.interface) != 0 else { throw ValidationError("--interface \(s.interface): no such interface") }
    }

    func run() throws {
        StopSignal.install()
        BrokenPipe.ignore()
        let limits = try self.limits.thresholds()
        let report = try unknownOnFailure(json: format == .json ? .object : nil) {
            if let replay {
                let (h, cycles, apIdle) = try JoinReplay.run(directory: replay, thresholds: limits)
                return JoinAnalysis.report(
                    interface: h.interface, server: h.server, mode: h.mode, cycles: cycles, thresholds: limits, notes: h.notes, apIdle: apIdle)
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
        throw ExitCode(written ? report.status.exitCode : max(report.status, .unknown).exitCode)
    }
}
