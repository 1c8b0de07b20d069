import Dispatch
import Foundation
import PushdiagCore
import Synchronization

/// Runs a survey's parts side by side within its window: nl80211 sampling (or a replay), a
/// capture, and a heartbeat session and route check per push server, each on its own thread.
/// Takes resolved settings; the core assembles the verdicts (`SurveyReport.assemble`).
public final class SurveyRunner: Sendable {
    public let settings: SurveySettings
    /// Where nl80211 comes from: the kernel (recorded to `record` when given) or `replay`.
    let record: String?
    let replay: String?
    /// The driver to judge the counters by, when given (else sysfs's, live).
    let driver: String?
    let stop: @Sendable () -> Bool

    /// What the parts found so far, written by their threads.
    let parts = Mutex(SurveyParts())
    /// Each push server's report, by its index in the settings.
    let heartbeats = Mutex<[Int: HeartbeatReport]>([:])

    public init(
        settings: SurveySettings, record: String? = nil, replay: String? = nil, driver: String? = nil, stop: @escaping @Sendable () -> Bool
    ) {
        self.settings = settings
        self.record = record
        self.replay = replay
        self.driver = driver
        self.stop = stop
    }

    func update(_ body: (inout SurveyParts) -> Void) {
        parts.withLock { body(&$0) }
    }

    /// Runs every part and returns the survey; `progress` is called about four times a second
    /// with what is running and how long is left.
    public func run(progress: ((String) -> Void)? = nil) -> SurveyReport {
        let s = settings
        let started = WallClock.nanoseconds()
        let t0 = WallClock.monotonicNanoseconds()
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body()
                group.leave()
            }.start()
        }
        spawn { self.sampleWiFi() }
        if s.capture != nil || s.monitor != nil { spawn { self.captureFrames() } }
        for (i, server) in s.servers.enumerated() {
            spawn {
                let report = self.heartbeat(server)
                self.heartbeats.withLock { $0[i] = report }
            }
        }
        if !s.servers.isEmpty { checkRoutes() }
        let what = "Wi-Fi" + (s.capture != nil || s.monitor != nil ? ", capture" : "") + (s.servers.isEmpty ? "" : ", \(s.servers.count) push server(s)")
        // The parts that hold something live (a push connection, a monitor) hold it for the
        // whole window, as asked; a replay alone ends with its recording.
        let holdsTheWindow = !s.servers.isEmpty || s.monitor != nil
        func left() -> Double { max(0, s.seconds - Double(WallClock.monotonicNanoseconds() - t0) / 1e9) }
        while group.wait(timeout: .now() + 0.25) == .timedOut {
            progress?("surveying: \(what); \(Int(left().rounded(.up))) s left")
        }
        while holdsTheWindow && left() > 0 && !stop() {
            progress?("surveying: \(what); \(Int(left().rounded(.up))) s left")
            // A paced interval (the progress line every quarter second) that a stop signal wakes.
            Clock.sleep(ms: min(0.25, left()) * 1000, stop: stop)
        }
        var result = parts.withLock { $0 }
        result.heartbeats = heartbeats.withLock { done in s.servers.indices.compactMap { done[$0] } }
        return SurveyReport.assemble(
            result, settings: s, started: started, durationSeconds: Double(WallClock.monotonicNanoseconds() - t0) / 1e9, interrupted: stop())
    }

    /// Two nl80211 samples spanning the window (as many as a replay recorded).
    func sampleWiFi() {
        let t = settings.thresholds
        do {
            let report = try NetlinkSource.with(protocol: Netlink.protocolGeneric, record: record, replay: replay) { transport in
                let client = try NL80211Client(transport: transport)
                return try WiFiSampler.run(
                    client, interfaceName: settings.interface, count: nil, intervalSeconds: max(0.5, settings.seconds - 0.5), thresholds: t.air,
                    driver: driver, stop: stop)
            }
            update { $0.wifi = report }
        } catch let e as WiFiError {
            update { $0.wifiError = e.description }
        } catch let e as NetlinkError {
            update { $0.wifiError = e.description }
        } catch {
            update { $0.wifiError = "\(error)" }
        }
    }

    /// A capture file now, or the monitor interface for the window.
    func captureFrames() {
        var options = CaptureAnalyzer.Options()
        options.thresholds = settings.thresholds.air
        let name = settings.monitor ?? settings.capture ?? "capture"
        let outcome: CaptureFileAnalysis.Outcome
        if let monitor = settings.monitor {
            outcome = CaptureFileAnalysis.analyzeLive(interface: monitor, seconds: settings.seconds, writeTo: nil, options: options) { self.stop() }
        } else {
            outcome = CaptureFileAnalysis.analyze(path: name, options: options)
        }
        let report = outcome.report(file: name)
        update { $0.capture = report }
    }

    /// A heartbeat session held through the window: one heartbeat a second from its start to
    /// its end (a 5 s window sends five), no new heartbeat or reconnect after the window, and
    /// connects and answers waited for no longer than their timeouts, so the whole survey takes
    /// the window plus at most one heartbeat timeout.
    func heartbeat(_ server: SurveyServer) -> HeartbeatReport {
        var o = server.heartbeatOptions
        o.joinLimits = settings.joinLimits
        o.thresholds = settings.thresholds.heartbeat
        o.intervalMs = 1000
        o.count = max(1, Int(settings.seconds.rounded(.down)))
        o.connectTimeoutMs = min(o.connectTimeoutMs, max(1000, settings.seconds * 1000))
        let end = Clock.ms() + settings.seconds * 1000
        let stop = self.stop
        return HeartbeatProbe(o, stop: { stop() || Clock.ms() >= end }).run()
    }

    func checkRoutes() {
        do {
            let routes = try RouteChecker.check(SurveyReport.routeHosts(settings.servers), transport: LiveNetlink(protocol: Netlink.protocolRoute), stop: stop)
            update { $0.routes = routes }
        } catch {
            update { $0.routeError = error.description }
        }
    }
}
