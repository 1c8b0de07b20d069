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

/// What a survey looks at, shared by `survey` and `report`.
struct SurveyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Wireless interface (default: the first in station mode).", valueName: "IF"))
    var interface: String?

    @Option(name: .customLong("server"), help: ArgumentHelp("Push server, HOST[:PORT]; repeat for several.", valueName: "HOST[:PORT]"))
    var servers: [String] = []

    @Option(name: .customLong("protocol"), help: "The push servers' protocol: simplepush, websocket, mqtt, line or tcp.")
    var proto: HeartbeatProtocol = .simplepush

    @Flag(help: "TLS to the push servers.")
    var tls = false

    @Option(help: ArgumentHelp("Monitor interface to capture on during the window.", valueName: "MON"))
    var monitor: String?

    @Option(help: ArgumentHelp("A capture file to analyse instead of (or besides) a monitor.", valueName: "FILE"))
    var capture: String?

    @Option(help: ArgumentHelp("Length of the survey window.", valueName: "D"))
    var duration: String = "30s"

    @OptionGroup var netlink: NetlinkOptions

    @Option(help: ArgumentHelp("Channel utilisation warning range (Monitoring Plugins syntax; 32 alerts above 32%).", valueName: "RANGE"))
    var utilizationWarning = "32"
    @Option(help: ArgumentHelp("Channel utilisation critical range (Apple: 40).", valueName: "RANGE"))
    var utilizationCritical = "40"
    @Option(help: ArgumentHelp("Retransmission warning range, percent.", valueName: "RANGE"))
    var retransmissionWarning = "12"
    @Option(help: ArgumentHelp("Retransmission critical range, percent (Apple: 15).", valueName: "RANGE"))
    var retransmissionCritical = "15"
    @Option(help: ArgumentHelp("Heartbeat loss warning range, percent.", valueName: "RANGE"))
    var lossWarning = "1"
    @Option(help: ArgumentHelp("Heartbeat loss critical range, percent.", valueName: "RANGE"))
    var lossCritical = "5"
    @Option(help: ArgumentHelp("Heartbeat p95 round-trip warning range, ms.", valueName: "RANGE"))
    var rttWarning = "200"
    @Option(help: ArgumentHelp("Heartbeat p95 round-trip critical range, ms.", valueName: "RANGE"))
    var rttCritical = "1000"

    func thresholds() throws -> SurveyThresholds {
        func range(_ text: String, _ option: String) throws -> ThresholdRange {
            guard let r = ThresholdRange(text) else { throw ValidationError("\(option): '\(text)' is not a range (examples: 40, 10:40, ~:40, @10:20)") }
            return r
        }
        var t = SurveyThresholds()
        t.utilizationWarning = try range(utilizationWarning, "--utilization-warning")
        t.utilizationCritical = try range(utilizationCritical, "--utilization-critical")
        t.retransmissionWarning = try range(retransmissionWarning, "--retransmission-warning")
        t.retransmissionCritical = try range(retransmissionCritical, "--retransmission-critical")
        t.lossWarning = try range(lossWarning, "--loss-warning")
        t.lossCritical = try range(lossCritical, "--loss-critical")
        t.rttWarning = try range(rttWarning, "--rtt-warning")
        t.rttCritical = try range(rttCritical, "--rtt-critical")
        return t
    }

    func validate() throws {
        _ = try thresholds()
        let d = try parseDuration(duration, option: "--duration")
        guard d >= 1 else { throw ValidationError("--duration must be at least 1s") }
        for s in servers where Endpoint(s, defaultPort: proto.defaultPort(tls: tls)) == nil {
            throw ValidationError("--server: '\(s)' is not HOST:PORT")
        }
    }

    func survey() throws -> SurveyReport {
        StopSignal.install()
        let t = try thresholds()
        let seconds = try parseDuration(duration, option: "--duration")
        let started = WallClock.nanoseconds()
        let t0 = WallClock.monotonicNanoseconds()
        let parts = SurveyParts()
        let group = DispatchGroup()
        let progress = Progress()
        let proto = self.proto, tls = self.tls, interface = self.interface, monitor = self.monitor, capture = self.capture, netlink = self.netlink

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
        for (i, s) in servers.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                var o = HeartbeatOptions(endpoint: Endpoint(s, defaultPort: proto.defaultPort(tls: tls))!, proto: proto)
                o.intervalMs = 1000
                o.count = max(3, Int(seconds) - 1)
                if tls { o.tls = TLSOptions(serverName: o.endpoint.host) }
                let report = HeartbeatClient(o, stop: { StopSignal.isRequested }).run()
                parts.set { $0.heartbeats[i] = report }
            }.start()
        }
        if !servers.isEmpty {
            let hosts = servers.map { Endpoint($0, defaultPort: proto.defaultPort(tls: tls))!.host }
            do {
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
