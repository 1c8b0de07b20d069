import ArgumentParser
import PushdiagCore
import PushdiagIO

/// What a survey looks at, shared by `survey` and `report`: flags first, then the
/// configuration file, then the defaults.
struct SurveyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Configuration file (default: /etc/pushdiag/pushdiag.toml when it exists). Flags win over it.", valueName: "FILE"),
        completion: .file())
    var config: String?

    @Option(help: ArgumentHelp("Wireless interface (default: the first in station mode).", valueName: "IF"), completion: .shellCommand("ls /sys/class/net"))
    var interface: String?

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("Push server, HOST[:PORT]; repeat for several (replaces the configured ones).", valueName: "HOST[:PORT]"))
    var servers: [String] = []

    @Option(name: .customLong("protocol"), help: "The --server protocol: simplepush (default), websocket, mqtt, line or tcp.")
    var proto: HeartbeatProtocol?

    /// TLS for the --server push servers (configured servers have their own keys).
    @OptionGroup var tlsFlags: TLSFlags

    @Option(help: ArgumentHelp("Monitor interface to capture on during the window.", valueName: "MON"), completion: .shellCommand("ls /sys/class/net"))
    var monitor: String?

    @Option(help: ArgumentHelp("A capture file to analyse instead of (or besides) a monitor.", valueName: "FILE"), completion: .file())
    var capture: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Length of the survey window (default 30s).", valueName: "D"))
    var duration: String?

    @OptionGroup var netlink: NetlinkOptions
    @OptionGroup var driver: DriverOption

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Channel utilisation warning range (Monitoring Plugins syntax; default 32: alerts above 32%).", valueName: "RANGE"))
    var utilizationWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Channel utilisation critical range (default 40, Apple's limit).", valueName: "RANGE"))
    var utilizationCritical: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Retransmission warning range, percent (default 12).", valueName: "RANGE"))
    var retransmissionWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Retransmission critical range, percent (default 15, Apple's limit).", valueName: "RANGE"))
    var retransmissionCritical: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Heartbeat loss warning range, percent (default 1).", valueName: "RANGE"))
    var lossWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Heartbeat loss critical range, percent (default 5).", valueName: "RANGE"))
    var lossCritical: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Heartbeat p95 round-trip warning range, ms (default 200).", valueName: "RANGE"))
    var rttWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Heartbeat p95 round-trip critical range, ms (default 1000).", valueName: "RANGE"))
    var rttCritical: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The current AP's signal, dBm, warning range (default -67: alerts below -67 dBm).", valueName: "RANGE"))
    var signalWarning: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The current AP's signal, dBm, critical range (default -70:, where iOS looks for another AP).", valueName: "RANGE"))
    var signalCritical: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Signal over noise, dB, warning range (default 25:).", valueName: "RANGE"))
    var snrWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Signal over noise, dB, critical range (default ~:, never).", valueName: "RANGE"))
    var snrCritical: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Days left on a TLS push server's certificate, warning range (default 30: alerts below 30 days).", valueName: "RANGE"))
    var certificateWarning: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Days left on a TLS push server's certificate, critical range (default 7:).", valueName: "RANGE"))
    var certificateCritical: String?

    /// The flags as typed, for the core to resolve.
    var flags: SurveyFlags {
        var f = SurveyFlags()
        f.interface = interface
        f.monitor = monitor
        f.capture = capture
        f.duration = duration
        f.servers = servers
        f.proto = proto
        tlsFlags.copy(into: &f)
        let ranges: [(String, String?)] = [
            ("utilization_warning", utilizationWarning), ("utilization_critical", utilizationCritical),
            ("retransmission_warning", retransmissionWarning), ("retransmission_critical", retransmissionCritical),
            ("loss_warning", lossWarning), ("loss_critical", lossCritical), ("rtt_warning", rttWarning), ("rtt_critical", rttCritical),
            ("signal_warning", signalWarning), ("signal_critical", signalCritical), ("snr_warning", snrWarning), ("snr_critical", snrCritical),
            ("certificate_warning", certificateWarning), ("certificate_critical", certificateCritical),
        ]
        for (key, value) in ranges { f.thresholds[key] = value }
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
            return try SurveySettings.resolve(flags, config: c, file: path)
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
