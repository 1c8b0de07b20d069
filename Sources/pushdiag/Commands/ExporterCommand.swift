import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagExporter
import PushdiagIO

/// `pushdiag exporter`: the resident probe for Prometheus.
struct ExporterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exporter",
        abstract: "Run as a Prometheus exporter: hold a push session per server, follow Wi-Fi interfaces, serve /metrics and /probe.",
        discussion: """
            Holds one long-lived session per push server (as `heartbeat` does: TLS, pin, \
            heartbeats every --interval, the SDK's reconnect schedule after a loss, again and \
            again), samples each wireless interface over nl80211 every --wifi-interval and \
            follows its roams and its carrier and address changes (rtnetlink). Serves /metrics (Prometheus text format), /probe?target=HOST:PORT \
            for one-shot checks in blackbox_exporter's manner (of the servers and what \
            [exporter] probe_allow adds; anything else is answered 403), /-/healthy and /. Servers and \
            interfaces come from the flags, else from the configuration file ([[server]], \
            [exporter]). SIGHUP reloads the configuration (sessions whose settings did not \
            change go on); SIGTERM or SIGINT stop it cleanly. Logs one line per state change on \
            standard error. --web-config adds TLS (client certificates too) and basic auth with \
            bcrypt hashes to every endpoint but /-/healthy, in the file format of Prometheus' \
            exporter-toolkit; SIGHUP reads it again, and a bad one is logged and the running one \
            kept. Exit status: 0 after a clean stop, 3 when it cannot start.
            """
    )

    @Option(
        help: ArgumentHelp(
            "Address and port to serve on: ADDR:PORT, [V6]:PORT or :PORT for every address (default \(ExporterSettings.defaultListen)).", valueName: "ADDR:PORT"
        ))
    var listen: String?

    @Option(
        help: ArgumentHelp("Configuration file (default: \(ConfigLoader.defaultPath) when it exists); SIGHUP reads it again.", valueName: "FILE"),
        completion: .file())
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Web configuration file of Prometheus' exporter-toolkit: tls_server_config, basic_auth_users (bcrypt); SIGHUP reads it again.", valueName: "FILE"),
        completion: .file())
    var webConfig: String?

    @Option(
        name: .customLong("server"),
        help: ArgumentHelp("Push server to hold a session to, HOST[:PORT]; repeat for several (replaces the configured ones).", valueName: "HOST[:PORT]"))
    var servers: [String] = []

    @Option(name: .customLong("protocol"), help: "The --server protocol: \(HeartbeatProtocol.names(HeartbeatProtocol.allCases)) (default simplepush).")
    var proto: HeartbeatProtocol?

    @OptionGroup var tlsFlags: TLSFlags

    @Option(
        name: .customLong("interface"),
        help: ArgumentHelp(
            "Wireless interface to sample (and see through the iPhone lens) and follow (nl80211's events, rtnetlink's carrier and address changes); repeat for several (replaces the configured ones).",
            valueName: "IF"),
        completion: .shellCommand("ls /sys/class/net"))
    var interfaces: [String] = []

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Time between heartbeats on each session (default \(ExporterSettings.defaultInterval)).", valueName: "D"))
    var interval: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Time between nl80211 samples of each interface (default \(ExporterSettings.defaultWiFiInterval)).", valueName: "D"))
    var wifiInterval: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("At most N /probe requests at once; more are answered 503 (default \(ExporterSettings.defaultMaxProbes)).", valueName: "N"))
    var maxProbes: Int?

    @Option(
        help: ArgumentHelp("Read the interfaces from a netlink recording (pushdiag --record, or tcpdump -i nlmon0) instead of the kernel.", valueName: "FILE"),
        completion: .file())
    var replay: String?

    var flags: ExporterFlags {
        var f = ExporterFlags()
        f.survey.servers = servers
        f.survey.proto = proto
        tlsFlags.copy(into: &f.survey)
        f.interfaces = interfaces
        f.listen = listen
        f.interval = interval
        f.wifiInterval = wifiInterval
        f.maxProbes = maxProbes
        return f
    }

    func validate() throws {
        do throws(SettingsError) { try ExporterSettings.validate(flags) } catch { throw ValidationError(error.description) }
        if let replay, access(replay, R_OK) != 0 { throw ValidationError("--replay: cannot read \(replay): \(Errno.current)") }
    }

    /// Flags over the configuration file (read again on every reload) over the defaults.
    func settings() throws(SettingsError) -> ExporterSettings {
        let loaded: (PushdiagConfig, String?)
        do throws(ConfigError) { loaded = try ConfigLoader.load(explicit: config) } catch { throw .config(error) }
        return try ExporterSettings.resolve(flags, config: loaded.0, file: loaded.1)
    }

    /// `--web-config`, loaded whole (certificates and keys too), or open without it.
    func web() throws(ConfigError) -> WebAccess {
        guard let webConfig else { return .open }
        return try WebAccess.load(file: webConfig)
    }

    func run() throws {
        let s = try unknownOnFailure { try settings() }
        let w = try unknownOnFailure { try web() }
        StopSignal.install()
        ReloadSignal.install()
        let exporter = Exporter(settings: s, web: w, replay: replay, version: Pushdiag.version)
        _ = try unknownOnFailure { try exporter.start() }
        while !StopSignal.isRequested {
            if ReloadSignal.take() {
                do {
                    let s = try settings()
                    exporter.apply(s, web: try web())
                } catch {
                    exporter.reloadFailed("\(error)")
                }
            }
            // Until SIGHUP, SIGINT or SIGTERM: their handlers ring these.
            _ = Wakeup.wait(any: [StopSignal.event.wakeup, ReloadSignal.wakeup], ms: nil)
        }
        exporter.stop()
    }
}
