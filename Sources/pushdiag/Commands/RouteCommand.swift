import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Check the route from this network to push servers: egress interface, gateway state, VLAN, MTU.",
        discussion: """
            For each HOST, the route the kernel would take (as ip route get), through rtnetlink: \
            egress interface and the devices below it, source address, gateway and its neighbour \
            state, the VLAN id when a device on the way is a VLAN, and the MTU. No route, or a \
            gateway whose neighbour entry failed, is critical. Needs no privileges.
            """
    )

    @Argument(help: ArgumentHelp("Push server names or addresses.", valueName: "HOST"))
    var hosts: [String]

    /// The hosts to route to: HOST:PORT and [v6]:PORT as heartbeat and survey take them give
    /// their host (a route does not depend on the port).
    var destinations: [String] { hosts.map { Endpoint($0, defaultPort: nil)?.host ?? $0 } }

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Option(help: ArgumentHelp("Write the rtnetlink messages to FILE (pcap, link type NETLINK).", valueName: "FILE"), completion: .file())
    var record: String?

    @Option(
        help: ArgumentHelp("Answer from an rtnetlink recording instead of the kernel (names are still resolved here).", valueName: "FILE"), completion: .file())
    var replay: String?

    func validate() throws {
        guard !hosts.isEmpty else { throw ValidationError("give at least one HOST") }
        guard !hosts.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else { throw ValidationError("a HOST is empty") }
        if record != nil && replay != nil { throw ValidationError("--record and --replay cannot be combined") }
    }

    func run() throws {
        StopSignal.install()
        let report = try unknownOnFailure(json: format == .json ? .object : nil) {
            try NetlinkSource.with(protocol: Netlink.protocolRoute, record: record, replay: replay) { transport in
                try RouteChecker.check(destinations, transport: transport, stop: { StopSignal.isRequested })
            }
        }
        for r in report.routes { if let e = r.error { diagnose(e) } }
        var status = report.status
        if StopSignal.isRequested {
            // Stopped while a gateway's resolution was awaited: what it showed so far, undecided.
            diagnose("interrupted: a gateway's address resolution was still awaited")
            status = max(status, .unknown)
        }
        let output = format == .json ? try JSONRenderer.render(report) : RouteTextRenderer().render(report)
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(status.exitCode)
    }
}
