import Foundation
import Prometheus
import PushdiagCore
import PushdiagIO
import Synchronization

/// `/probe`: one heartbeat check per request, in blackbox_exporter's manner: the target and
/// protocol come in the query, the answer is its own small set of metrics (`probe_success`,
/// `probe_duration_seconds`, …). At most `limit` run at once; more are refused (HTTP 503) so a
/// misconfigured Prometheus cannot pile threads up.
public final class ProbeService: Sendable {
    let limit: Atomic<Int>
    let inFlight = Atomic<Int>(0)
    let metrics: MetricSet

    init(limit: Int, metrics: MetricSet) {
        self.limit = Atomic(limit)
        self.metrics = metrics
        metrics.gauge(MetricFamily.probesInFlight).set(0.0)
        _ = metrics.counter(MetricFamily.probesRefused)
    }

    func setLimit(_ n: Int) { limit.store(n, ordering: .relaxed) }

    /// Answers `query` on a thread of its own, calling `done` with the response there.
    func probe(query: String, scrapeTimeout: String?, done: @escaping @Sendable (HTTPAnswer) -> Void) {
        let request: ProbeRequest
        do throws(SettingsError) { request = try ProbeRequest.parse(query: query, scrapeTimeout: scrapeTimeout) } catch {
            done(.text(400, "probe: \(error)\n"))
            return
        }
        let running = inFlight.add(1, ordering: .relaxed).newValue
        guard running <= limit.load(ordering: .relaxed) else {
            inFlight.subtract(1, ordering: .relaxed)
            metrics.counter(MetricFamily.probesRefused).increment()
            done(.text(503, "probe: \(running - 1) probes are running, the most max_probes allows; try again later\n"))
            return
        }
        metrics.gauge(MetricFamily.probesInFlight).set(Double(running))
        let t = Thread { [self] in
            let body = Self.run(request)
            let left = inFlight.subtract(1, ordering: .relaxed).newValue
            metrics.gauge(MetricFamily.probesInFlight).set(Double(left))
            done(.metrics(body))
        }
        t.name = "probe"
        t.start()
    }

    /// The check itself, within the request's budget, as exposition text.
    static func run(_ request: ProbeRequest) -> [UInt8] {
        let t0 = Clock.ms()
        let deadline = t0 + request.budgetSeconds * 1000
        let report = HeartbeatProbe(request.options) { Clock.ms() >= deadline }.run()
        let registry = PrometheusCollectorRegistry()
        let m = MetricSet(registry: registry, labels: [])
        let success = report.received > 0 && report.status <= .warning
        m.gauge(MetricFamily.probeSuccess).set(success ? 1.0 : 0.0)
        m.gauge(MetricFamily.probeDuration).set((Clock.ms() - t0) / 1000)
        m.gauge(MetricFamily.probeStatus).set(Double(report.status.exitCode))
        m.gauge(MetricFamily.probeSent).set(Double(report.sent))
        m.gauge(MetricFamily.probeAnswered).set(Double(report.received))
        if let r = report.rttMs {
            for (stat, v) in [("min", r.min), ("median", r.median), ("p95", r.p95), ("max", r.max)] {
                m.gauge(MetricFamily.probeRTT, [("stat", stat)]).set(v / 1000)
            }
        }
        for (phase, ms) in [("connect", report.connectMs), ("tls", report.tlsMs), ("handshake", report.handshakeMs)] {
            if let ms { m.gauge(MetricFamily.probePhase, [("phase", phase)]).set(ms / 1000) }
        }
        if let tls = report.tls { m.gauge(MetricFamily.probeCertExpiry).set(Double(tls.notAfterSeconds)) }
        return registry.emitToBuffer()
    }
}

/// What the HTTP side sends back.
public enum HTTPAnswer: Sendable {
    case metrics([UInt8])
    case text(Int, String)
    case html(String)
}
