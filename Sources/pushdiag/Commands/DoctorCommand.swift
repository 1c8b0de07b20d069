import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "What this machine can measure: each Wi-Fi interface's driver, firmware, modes and counters, and the privileges pushdiag lacks.",
        discussion: """
            For each wireless interface: the driver (sysfs) and its version and firmware \
            (ethtool -i), the radio's interface types and whether a monitor interface can sit \
            beside a managed one, and for a connected client which counters the driver gives \
            when asked (two samples --interval apart), what pushdiag's driver table says of \
            them, and which source wifi and survey will take each check from. Then the \
            capabilities this process has, with the setcap line for those it lacks; the kernel \
            and libpcap versions. Runs unprivileged. Exit 0, or 3 when there is no Wi-Fi to \
            measure (it still prints the machine's part) or when stopped by SIGINT/SIGTERM \
            (it prints what it had).
            """
    )

    @Option(help: ArgumentHelp("Only this interface (default: every wireless interface).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Time between the two samples of a connected interface (30s, 500ms).", valueName: "D"))
    var interval: String = "1s"

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var netlink: NetlinkOptions
    @OptionGroup var driver: DriverOption

    func validate() throws {
        _ = try parseDuration(interval, option: "--interval", atLeast: 0.1, max: 60)
    }

    func run() throws {
        let seconds = try parseDuration(interval, option: "--interval", atLeast: 0.1, max: 60)
        StopSignal.install()
        let caps = DoctorProbe.capabilities()
        var interfaces: [DoctorInterface] = []
        var failure: String?
        var nl80211 = true
        do {
            interfaces = try netlink.with { transport in
                let client = try NL80211Client(transport: transport)
                return try DoctorProbe.interfaces(
                    client, only: interface, intervalSeconds: seconds, driver: driver.driver, thresholds: Thresholds(), stop: { StopSignal.isRequested })
            }
        } catch let e as NetlinkError {
            if case .unavailable = e { nl80211 = false }
            failure = e.description
        } catch {
            failure = "\(error)"
        }
        if failure == nil && interfaces.isEmpty { failure = "nl80211 lists no wireless interfaces" }
        let machine = DoctorProbe.machine(nl80211: nl80211)
        let interrupted = StopSignal.isRequested
        let report = DoctorAnalysis.report(
            machine: machine, interfaces: interfaces, netAdmin: caps.netAdmin, netRaw: caps.netRaw, interrupted: interrupted, error: failure)
        if let failure { diagnose(failure) }
        if interrupted { diagnose("interrupted: the report holds what was asked before the stop") }
        let output = format == .json ? try JSONRenderer.render(report) : DoctorTextRenderer().render(report)
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(report.status.exitCode)
    }
}
