import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct WiFiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wifi",
        abstract: "Read channel utilisation, retransmissions and nearby BSSes from the Wi-Fi interface (nl80211).",
        discussion: """
            Takes --count samples --interval apart. Channel utilisation = Δbusy / Δactive time \
            of the channel in use (survey), else of the radio (radio-wide survey), else the \
            associated AP's own BSS Load; retransmissions = Δtx_retries / Δtx_packets to the \
            associated AP (station counters), else Δtx_failed / Δtx_packets (a lower bound). \
            Each value says its source; a counter the driver does not keep, or is known to \
            fill wrongly (rtw88's retries), is UNKNOWN with the reason, never 0. With --count \
            1, raw counters only. Lists the BSSes \
            of the connected SSID from the kernel's scan cache with 802.11r/k/v support. Exit \
            status as for capture; 3 when nl80211 or the interface cannot be read.
            """
    )

    @Option(help: ArgumentHelp("Wireless interface (default: the first in station mode).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Time between samples (30s, 500ms, 2m).", valueName: "D"))
    var interval: String = "1s"

    @Option(parsing: .unconditional, help: ArgumentHelp("Number of samples (default 2; with --replay, as many as recorded).", valueName: "N"))
    var count: Int?

    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text

    @OptionGroup var netlink: NetlinkOptions
    @OptionGroup var driver: DriverOption
    @OptionGroup var thresholds: ThresholdOptions
    @OptionGroup var signal: RowFlags<FlagRows.Signal>
    @OptionGroup var snr: RowFlags<FlagRows.SNR>

    /// The air's limits and the signal's, over the table's defaults.
    func airLimits() throws -> Thresholds { try thresholds.thresholds(signal.typed + snr.typed) }

    func validate() throws {
        guard (count ?? 1) >= 1 else { throw ValidationError("--count must be at least 1") }
        _ = try airLimits()
        _ = try parseDuration(interval, option: "--interval")
    }

    func run() throws {
        let seconds = try parseDuration(interval, option: "--interval")
        let limits = try airLimits()
        StopSignal.install()
        let progress = Progress()
        defer { progress.clear() }
        let report = try unknownOnFailure(json: format == .json ? .object : nil) {
            try netlink.with { transport in
                let client = try NL80211Client(transport: transport)
                return try WiFiSampler.run(
                    client, interfaceName: interface, count: count, intervalSeconds: seconds, thresholds: limits,
                    driver: driver.driver, stop: { StopSignal.isRequested }
                ) {
                    k, n in
                    progress.update("sampling \(interface ?? "Wi-Fi"): \(k)/\(n)")
                }
            }
        }
        progress.clear()
        let output = format == .json ? try JSONRenderer.render(report) : WiFiTextRenderer().render(report)
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(report.status.exitCode)
    }
}
