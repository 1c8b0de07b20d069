import Foundation
import PushdiagCore
import PushdiagIO
import Synchronization

/// One push session held the way a device holds it, for as long as the exporter runs: connect,
/// TLS and handshake, a heartbeat every interval, the server's own heartbeats answered, and after
/// a loss the SDK's reconnect schedule. When the schedule runs out it starts over after an
/// interval (a device would, on its next network change). Its own thread; everything it sees
/// goes to its metrics and, once per state change, to the log.
public final class SessionKeeper: Sendable {
    public let options: HeartbeatOptions
    let metrics: MetricSet
    let log: ExporterLog
    let subject: String
    let workers = Workers()
    let lastServerHeartbeat = Mutex<Double?>(nil)
    let stalls: StallWatch

    init(options: HeartbeatOptions, metrics: MetricSet, log: ExporterLog, stalls: StallWatch = StallWatch()) {
        self.options = options
        self.metrics = metrics
        self.log = log
        self.stalls = stalls
        subject = "push \(options.endpoint)"
    }

    var isStopped: Bool { workers.isStopped }

    public func start() {
        metrics.gauge(MetricFamily.up).set(0.0)
        // Every series exists from the start, so rates and alerts see zeros, not absence.
        for f in [MetricFamily.sent, .answered, .lost, .losses] { _ = metrics.counter(f) }
        for r in ["connected", "failed"] { _ = metrics.counter(MetricFamily.attempts, [("result", r)]) }
        for c in StallCause.allCases { _ = metrics.counter(MetricFamily.stalls, [("cause", c.rawValue)]) }
        _ = metrics.histogram(MetricFamily.rtt)
        _ = metrics.histogram(MetricFamily.reestablish)
        workers.start(subject, [("", run)])
    }

    /// Asks the thread to end (it closes the session as the protocol does) and waits up to
    /// `seconds` for it; its series are removed when `remove`.
    public func stop(waitSeconds seconds: Double = 5, remove: Bool) {
        workers.stop(waitSeconds: seconds)
        if remove {
            metrics.removeAll()
            log.forget(subject)
        }
    }

    func run() {
        let o = options
        if let idle = o.pathIdleTimeoutS { metrics.gauge(MetricFamily.pathIdleTimeout).set(idle) }
        while !isStopped {
            let address: IPAddress
            switch Resolver.resolve(o.endpoint.host) {
            case .success(let a): address = a
            case .failure(let f):
                log.change(subject, "failed: \(f)")
                _ = workers.pause(ms: o.intervalMs)
                continue
            }
            let session = HeartbeatSession(o, address: address) { self.isStopped }
            session.onEvent = { [self] e in event(e) }
            session.keepsHistory = false  // held for days: the events are followed, not kept
            do throws(ConnectionFailure) {
                try session.open()
            } catch {
                if case .stopped = error { break }
                log.change(subject, "failed: \(error)")
                if let tls = session.tlsInfo { metrics.gauge(MetricFamily.certExpiry).set(Double(tls.notAfterSeconds)) }
                // Not ready at start: the SDK's schedule, as after a loss.
                guard reconnect(session, after: error.description) else { continue }
            }
            ready(session)
            hold(session)
            session.close()
        }
        metrics.gauge(MetricFamily.up).set(0.0)
        log.change(subject, "cancelled")
    }

    func ready(_ session: HeartbeatSession) {
        metrics.gauge(MetricFamily.up).set(1.0)
        if let tls = session.tlsInfo { metrics.gauge(MetricFamily.certExpiry).set(Double(tls.notAfterSeconds)) }
        let phases = [("TCP", session.connectMs), ("TLS", session.tlsMs), ("handshake", session.handshakeMs)].compactMap { name, ms in
            ms.map { "\(name) \(NumberText.format(NumberText.rounded($0, places: 10))) ms" }
        }
        log.change(subject, "ready (\(phases.joined(separator: ", ")))")
    }

    /// Heartbeats on the interval until a stop, or a loss the schedule could not mend.
    func hold(_ session: HeartbeatSession) {
        var cadence = HeartbeatCadence(options)
        var n = 0
        while !isStopped {
            n += 1
            metrics.counter(MetricFamily.sent).increment()
            var loss: String?
            let sent = WallClock.nanoseconds()
            do throws(ConnectionFailure) {
                let outcome = try session.heartbeat(n)
                if let cause = stalls.judge(sentNs: sent, rttMs: outcome.rttMs, timeoutMs: options.heartbeatWaitMs) {
                    metrics.counter(MetricFamily.stalls, [("cause", cause.rawValue)]).increment()
                }
                if let ms = outcome.rttMs {
                    metrics.counter(MetricFamily.answered).increment()
                    metrics.histogram(MetricFamily.rtt).record(ms / 1000)
                } else {
                    metrics.counter(MetricFamily.lost).increment()
                }
                loss = cadence.loss(after: outcome)
            } catch {
                // Bytes that are not the protocol: a device would drop the connection.
                if case .stopped = error { return }
                metrics.counter(MetricFamily.lost).increment()
                loss = error.description
            }
            if let loss {
                guard reconnect(session, after: loss) else { return }
                ready(session)
                cadence.restart()
            }
            do throws(ConnectionFailure) { try session.wait(until: cadence.advance()) } catch {
                if case .stopped = error { return }
            }
        }
    }

    /// The SDK's schedule after a loss; false when it ran out (the caller starts over after an
    /// interval) or a stop came.
    func reconnect(_ session: HeartbeatSession, after reason: String) -> Bool {
        metrics.gauge(MetricFamily.up).set(0.0)
        // The server's heartbeats are paced per connection: a gap across the outage is not one.
        lastServerHeartbeat.withLock { $0 = nil }
        metrics.counter(MetricFamily.losses).increment()
        let t0 = Clock.ms()
        switch session.reconnect(after: reason) {
        case .connected:
            metrics.histogram(MetricFamily.reestablish).record((Clock.ms() - t0) / 1000)
            return true
        case .exhausted:
            log.change(
                subject, "failed: \(reason); \(ReconnectAttempt.scheduleRanOut()), starting over every \(DurationText.format(options.intervalMs / 1000))")
            _ = workers.pause(ms: options.intervalMs)
            return false
        case .stopped:
            return false
        }
    }

    func event(_ e: SessionEvent) {
        switch e {
        case .state(let s):
            // "preparing" is every attempt's start; the attempt's end says what came of it.
            if s.state == .waiting { log.change(subject, "waiting" + (s.reason.map { " (\($0))" } ?? "")) }
        case .reconnect(let a):
            metrics.counter(MetricFamily.attempts, [("result", a.outcome == .connected ? "connected" : "failed")]).increment()
        case .serverHeartbeat(let atMs):
            metrics.gauge(MetricFamily.serverLast).set(Double(WallClock.nanoseconds()) / 1e9)
            let previous = lastServerHeartbeat.withLock { l -> Double? in
                defer { l = atMs }
                return l
            }
            if let previous {
                metrics.histogram(MetricFamily.serverGap).record((atMs - previous) / 1000)
                metrics.gauge(MetricFamily.serverLastGap).set((atMs - previous) / 1000)
            }
        }
    }
}
