import ArgumentParser
import PushdiagCore
import PushdiagIO

/// What a survey looks at, shared by `survey` and `report`: flags first, then the
/// configuration file, then the defaults.
struct SurveyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Configuration file (default: \(ConfigLoader.defaultPath) when it exists). Flags win over it.", valueName: "FILE"),
        completion: .file())
    var config: String?

    @Option(help: ArgumentHelp("Wireless interface (default: the first in station mode).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("Push server, HOST[:PORT]; repeat for several (replaces the configured ones).", valueName: "HOST[:PORT]"))
    var servers: [String] = []

    @Option(name: .customLong("protocol"), help: "The --server protocol: \(HeartbeatProtocol.names(HeartbeatProtocol.allCases)) (default simplepush).")
    var proto: HeartbeatProtocol?

    /// TLS for the --server push servers (configured servers have their own keys).
    @OptionGroup var tlsFlags: TLSFlags

    @Option(help: ArgumentHelp("Monitor interface to capture on during the window.", valueName: "MON"), completion: .shellCommand("ls /sys/class/net"))
    var monitor: String?

    @Option(help: ArgumentHelp("A capture file to analyse instead of a monitor (the configuration's too).", valueName: "FILE"), completion: .file())
    var capture: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Length of the survey window (default \(SurveySettings.defaultDuration)).", valueName: "D"))
    var duration: String?

    @OptionGroup var limits: JoinLimitsOptions
    @OptionGroup var safeInterval: RowFlags<FlagRows.SafeInterval>
    @OptionGroup var netlink: NetlinkOptions
    @OptionGroup var driver: DriverOption

    // The thresholds: help, defaults and validation come from the core's table (`ThresholdRow`).
    @OptionGroup var utilization: RowFlags<FlagRows.Utilization>
    @OptionGroup var retransmission: RowFlags<FlagRows.Retransmission>
    @OptionGroup var loss: RowFlags<FlagRows.Loss>
    @OptionGroup var rtt: RowFlags<FlagRows.RTT>
    @OptionGroup var signal: RowFlags<FlagRows.Signal>
    @OptionGroup var snr: RowFlags<FlagRows.SNR>
    @OptionGroup var certificate: RowFlags<FlagRows.Certificate>

    /// The flags as typed, for the core to resolve.
    var flags: SurveyFlags {
        var f = SurveyFlags()
        f.interface = interface
        f.monitor = monitor
        f.capture = capture
        f.duration = duration
        f.servers = servers
        f.proto = proto
        f.joinLimits = limits.joinLimits
        tlsFlags.copy(into: &f)
        for (row, level, text) in utilization.typed + retransmission.typed + loss.typed + rtt.typed + signal.typed + snr.typed + certificate.typed
            + safeInterval.typed
        {
            f.thresholds[row.key(level)] = text
        }
        return f
    }

    func validate() throws {
        do throws(SettingsError) { try SurveySettings.validate(flags) } catch { throw ValidationError(error.description) }
    }

    /// Loads the configuration (an explicit --config must exist; the default one may not).
    func loadConfig() throws(ConfigError) -> (PushdiagConfig, String?) { try ConfigLoader.load(explicit: config) }

    /// Flags over the configuration over the defaults; a configuration problem is one line, exit 3.
    func settings() throws -> SurveySettings {
        try unknownOnFailure {
            let (c, path) = try loadConfig()
            var s = try SurveySettings.resolve(flags, config: c, file: path)
            s.joinLimits = try JoinLimitsOptions.load(s.joinLimitsPath, interface: s.interface)
            return s
        }
    }

    /// Runs the survey `settings` describe, with progress on a TTY.
    func survey(_ settings: SurveySettings) -> SurveyReport {
        StopSignal.install()
        let runner = SurveyRunner(settings: settings, record: netlink.record, replay: netlink.replay, driver: driver.driver, stop: { StopSignal.isRequested })
        let progress = Progress()
        let report = runner.run { progress.update($0) }
        progress.clear()
        return report
    }
}
