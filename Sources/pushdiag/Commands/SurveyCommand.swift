import ArgumentParser
import Dispatch
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

enum SurveyFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, prometheus, nagios
}

/// Runs the parts of a survey side by side and collects their reports.
final class SurveyParts: @unchecked Sendable {
    let lock = NSLock()
    var wifi: WiFiReport?
    var wifiError: String?
    var capture: CaptureReport?
    var heartbeats: [Int: HeartbeatReport] = [:]
    var routes: RouteSetReport?
    var routeError: String?

    func set(_ body: (SurveyParts) -> Void) {
        lock.lock()
        body(self)
        lock.unlock()
    }
}

struct SurveyCommand: ParsableCommand {
    @OptionGroup var options: SurveyOptions

    @Option(help: "Output format: text, json, prometheus or nagios.")
    var format: SurveyFormat = .text

    func run() throws {
        let report = try options.survey()
        let output: String
        switch format {
        case .text: output = SurveyTextRenderer().render(report)
        case .json: output = try JSONRenderer.render(report)
        case .nagios: output = SurveyNagiosRenderer().render(report)
        case .prometheus: output = SurveyPrometheusRenderer().render(report)
        }
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(report.status.exitCode)
    }

    static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract: "The go/no-go for local push on this Wi-Fi: utilisation, retransmissions, roaming support, heartbeats and routes to the push servers, in one verdict table.",
        discussion: """
            Runs its parts side by side within --duration: nl80211 sampling of the interface (or \
            --replay of a recording), a capture on --monitor or of --capture FILE, heartbeats and \
            the route to each --server. A check asked for that cannot run is UNKNOWN with the \
            reason; one not asked for is skipped. Exit status: the worst check, 0 OK, 1 WARNING, \
            2 CRITICAL, 3 UNKNOWN (also for bad usage).
            """
    )
}

/// What a survey looks at, shared by `survey` and `report`: flags first, then the
/// configuration file, then the defaults.
struct SurveyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Configuration file (default: /etc/pushdiag/pushdiag.toml when it exists). Flags win over it.", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("Wireless interface (default: the first in station mode).", valueName: "IF"))
    var interface: String?

    @Option(name: .customLong("server"), help: ArgumentHelp("Push server, HOST[:PORT]; repeat for several (replaces the configured ones).", valueName: "HOST[:PORT]"))
    var servers: [String] = []

    @Option(name: .customLong("protocol"), help: "The --server protocol: simplepush (default), websocket, mqtt, line or tcp.")
    var proto: HeartbeatProtocol?

    @Flag(help: "TLS to the --server push servers.")
    var tls = false

    @Option(help: ArgumentHelp("Monitor interface to capture on during the window.", valueName: "MON"))
    var monitor: String?

    @Option(help: ArgumentHelp("A capture file to analyse instead of (or besides) a monitor.", valueName: "FILE"))
    var capture: String?

    @Option(help: ArgumentHelp("Length of the survey window (default 30s).", valueName: "D"))
    var duration: String?

    @OptionGroup var netlink: NetlinkOptions

    @Option(help: ArgumentHelp("Channel utilisation warning range (Monitoring Plugins syntax; default 32: alerts above 32%).", valueName: "RANGE"))
    var utilizationWarning: String?
    @Option(help: ArgumentHelp("Channel utilisation critical range (default 40, Apple's limit).", valueName: "RANGE"))
    var utilizationCritical: String?
    @Option(help: ArgumentHelp("Retransmission warning range, percent (default 12).", valueName: "RANGE"))
    var retransmissionWarning: String?
    @Option(help: ArgumentHelp("Retransmission critical range, percent (default 15, Apple's limit).", valueName: "RANGE"))
    var retransmissionCritical: String?
    @Option(help: ArgumentHelp("Heartbeat loss warning range, percent (default 1).", valueName: "RANGE"))
    var lossWarning: String?
    @Option(help: ArgumentHelp("Heartbeat loss critical range, percent (default 5).", valueName: "RANGE"))
    var lossCritical: String?
    @Option(help: ArgumentHelp("Heartbeat p95 round-trip warning range, ms (default 200).", valueName: "RANGE"))
    var rttWarning: String?
    @Option(help: ArgumentHelp("Heartbeat p95 round-trip critical range, ms (default 1000).", valueName: "RANGE"))
    var rttCritical: String?

    struct Server {
        var endpoint: Endpoint
        var proto: HeartbeatProtocol
        var tls: TLSOptions?
        var path: String?
    }

    /// The survey's settings, flags over the configuration file over the defaults.
    struct Settings {
        var config: PushdiagConfig
        var configPath: String?
        var interface: String?
        var monitor: String?
        var seconds: Double
        var servers: [Server]
        var thresholds: SurveyThresholds
    }

    func validate() throws {
        for (name, v) in [("--utilization-warning", utilizationWarning), ("--utilization-critical", utilizationCritical),
                          ("--retransmission-warning", retransmissionWarning), ("--retransmission-critical", retransmissionCritical),
                          ("--loss-warning", lossWarning), ("--loss-critical", lossCritical), ("--rtt-warning", rttWarning), ("--rtt-critical", rttCritical)] {
            if let v, ThresholdRange(v) == nil { throw ValidationError("\(name): '\(v)' is not a range (examples: 40, 10:40, ~:40, @10:20)") }
        }
        if let duration, (DurationText.seconds(duration) ?? 0) < 1 { throw ValidationError("--duration: '\(duration)' is not a duration of at least 1s") }
        for s in servers where Endpoint(s, defaultPort: (proto ?? .simplepush).defaultPort(tls: tls)) == nil {
            throw ValidationError("--server: '\(s)' is not HOST:PORT")
        }
    }

    /// Loads the configuration (an explicit --config must exist; the default one may not).
    func loadConfig() throws(ConfigError) -> (PushdiagConfig, String?) {
        if let config { return (try ConfigLoader.load(path: config), config) }
        if access(ConfigLoader.defaultPath, R_OK) == 0 { return (try ConfigLoader.load(path: ConfigLoader.defaultPath), ConfigLoader.defaultPath) }
        return (PushdiagConfig(), nil)
    }

    /// Flags over the configuration over the defaults; a configuration problem is one line, exit 3.
    func settings() throws -> Settings {
        let c: PushdiagConfig, path: String?
        do { (c, path) = try loadConfig() } catch {
            diagnose(error.description)
            throw ExitCode(3)
        }
        // The defaults are SurveyThresholds' own.
        var t = SurveyThresholds()
        func range(_ threshold: WritableKeyPath<SurveyThresholds, ThresholdRange>, _ flag: String?, _ key: String) {
            if let text = flag ?? c.thresholds[key], let r = ThresholdRange(text) { t[keyPath: threshold] = r }
        }
        range(\.utilizationWarning, utilizationWarning, "utilization_warning")
        range(\.utilizationCritical, utilizationCritical, "utilization_critical")
        range(\.retransmissionWarning, retransmissionWarning, "retransmission_warning")
        range(\.retransmissionCritical, retransmissionCritical, "retransmission_critical")
        range(\.lossWarning, lossWarning, "loss_warning")
        range(\.lossCritical, lossCritical, "loss_critical")
        range(\.rttWarning, rttWarning, "rtt_warning")
        range(\.rttCritical, rttCritical, "rtt_critical")
        let seconds = DurationText.seconds(duration ?? c.duration ?? "30s") ?? 30
        var list: [Server] = []
        if !servers.isEmpty {
            let p = proto ?? .simplepush
            for s in servers {
                let e = Endpoint(s, defaultPort: p.defaultPort(tls: tls))!
                list.append(Server(endpoint: e, proto: p, tls: tls ? TLSOptions(serverName: e.host) : nil, path: nil))
            }
        } else {
            for s in c.servers {
                let p = HeartbeatProtocol(rawValue: s.proto) ?? .simplepush
                guard let port = s.port ?? p.defaultPort(tls: s.tls) else {
                    diagnose("\(path ?? "configuration"): server \(s.host): the \(p.rawValue) protocol needs a port")
                    throw ExitCode(3)
                }
                var tlsOptions: TLSOptions?
                if s.tls {
                    var o = TLSOptions(serverName: s.host)
                    o.pin = s.pin
                    o.caFile = s.caFile
                    tlsOptions = o
                }
                list.append(Server(endpoint: Endpoint("\(s.host.contains(":") ? "[\(s.host)]" : s.host):\(port)", defaultPort: port)!, proto: p, tls: tlsOptions, path: s.path))
            }
        }
        // A server named twice is checked once (its checks would repeat under one name).
        var seen: [Endpoint] = []
        list.removeAll { s in
            defer { seen.append(s.endpoint) }
            return seen.contains(s.endpoint)
        }
        return Settings(config: c, configPath: path, interface: interface ?? c.interface, monitor: monitor ?? c.monitor, seconds: seconds, servers: list, thresholds: t)
    }

    func survey() throws -> SurveyReport {
        StopSignal.install()
        let settings = try self.settings()
        let t = settings.thresholds
        let seconds = settings.seconds
        let interface = settings.interface, monitor = settings.monitor
        let started = WallClock.nanoseconds()
        let t0 = WallClock.monotonicNanoseconds()
        let parts = SurveyParts()
        let group = DispatchGroup()
        let progress = Progress()
        let capture = self.capture, netlink = self.netlink
        let servers = settings.servers

        // Wi-Fi over nl80211 (or a recording): two samples spanning the window.
        group.enter()
        Thread {
            defer { group.leave() }
            do {
                let (transport, recorder) = try netlink.transport()
                defer { try? recorder?.close() }
                let client = try NL80211Client(transport: transport)
                var count = 2
                if let replay = transport as? ReplayNetlink { count = max(1, replay.recordedRequests(command: NL80211.Command.getSurvey.rawValue)) }
                var wt = Thresholds()
                wt.utilizationWarning = t.utilizationWarning.end ?? 100
                wt.utilizationCritical = t.utilizationCritical.end ?? 100
                let report = try WiFiSampler.run(client, interfaceName: interface, count: count, intervalSeconds: max(0.5, seconds - 0.5), thresholds: wt)
                parts.set { $0.wifi = report }
            } catch let e as WiFiError {
                parts.set { $0.wifiError = e.description }
            } catch let e as NetlinkError {
                parts.set { $0.wifiError = e.description }
            } catch {
                parts.set { $0.wifiError = "\(error)" }
            }
        }.start()

        // A capture: a file now, or a monitor interface for the window.
        if capture != nil || monitor != nil {
            group.enter()
            Thread {
                defer { group.leave() }
                var options = CaptureAnalyzer.Options()
                options.thresholds.minimumFrames = 50
                let outcome = monitor.map { CaptureFileAnalysis.analyzeLive(interface: $0, seconds: seconds, writeTo: nil, options: options) { StopSignal.isRequested } }
                    ?? CaptureFileAnalysis.analyze(path: capture!, options: options)
                let report = outcome.report(file: monitor ?? capture!)
                parts.set { $0.capture = report }
            }.start()
        }

        // Heartbeats and the route to each push server.
        for (i, server) in servers.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                var o = HeartbeatOptions(endpoint: server.endpoint, proto: server.proto)
                o.intervalMs = 1000
                o.count = max(3, Int(seconds) - 1)
                o.tls = server.tls
                if let p = server.path { o.path = p }
                let report = HeartbeatProbe(o, stop: { StopSignal.isRequested }).run()
                parts.set { $0.heartbeats[i] = report }
            }.start()
        }
        if !servers.isEmpty {
            do {
                // One route per host, however many of its ports serve push.
                var hosts: [String] = []
                for s in servers where !hosts.contains(s.endpoint.host) { hosts.append(s.endpoint.host) }
                let routes = try RouteChecker.check(hosts, transport: LiveNetlink(protocol: Netlink.protocolRoute))
                parts.set { $0.routes = routes }
            } catch {
                parts.set { $0.routeError = error.description }
            }
        }

        while group.wait(timeout: .now() + 0.25) == .timedOut {
            let left = max(0, seconds - Double(WallClock.monotonicNanoseconds() - t0) / 1e9)
            progress.update("surveying: Wi-Fi\(capture != nil || monitor != nil ? ", capture" : "")\(servers.isEmpty ? "" : ", \(servers.count) push server(s)"); \(Int(left.rounded(.up))) s left")
        }
        progress.clear()

        var checks: [SurveyCheck] = []
        if let w = parts.wifi {
            checks += SurveyVerdicts.wifi(w, t: t)
        } else {
            let why = parts.wifiError ?? "not run"
            checks.append(SurveyCheck(check: "channel_utilization", status: .unknown, subject: interface ?? "Wi-Fi", hint: why))
            checks.append(SurveyCheck(check: "retransmissions", status: .unknown, subject: interface ?? "Wi-Fi", hint: why))
        }
        if let c = parts.capture {
            checks += SurveyVerdicts.capture(c, t: t)
        } else {
            checks.append(SurveyCheck(check: "frame_retries", status: .skipped, subject: "capture", hint: "no --monitor interface or --capture file given"))
        }
        let heartbeats = servers.indices.compactMap { parts.heartbeats[$0] }
        if servers.isEmpty {
            checks.append(SurveyCheck(check: "heartbeat", status: .skipped, subject: "push server", hint: "no --server given"))
            checks.append(SurveyCheck(check: "route", status: .skipped, subject: "push server", hint: "no --server given"))
        } else {
            checks += heartbeats.map { SurveyVerdicts.heartbeat($0, t: t) }
            if let routes = parts.routes {
                checks += routes.routes.map(SurveyVerdicts.route)
            } else {
                checks.append(SurveyCheck(check: "route", status: .unknown, subject: "push servers", hint: parts.routeError ?? "not run"))
            }
        }
        checks.sort { $0.status > $1.status }
        return SurveyReport(started: started, durationSeconds: Double(WallClock.monotonicNanoseconds() - t0) / 1e9, checks: checks,
                            wifi: parts.wifi, capture: parts.capture, heartbeats: heartbeats, routes: parts.routes)
    }
}
