import Foundation
import PushdiagCore
import PushdiagIO
import Synchronization

/// `/probe`: one heartbeat check per request, in blackbox_exporter's manner: the target and
/// protocol come in the query, the answer is its own small set of metrics (`probe_success`,
/// `probe_duration_seconds`, …). Only targets the configuration allows are probed
/// (`ProbeAllowList`: the servers and `probe_allow`); others are refused (HTTP 403) before they
/// are resolved or connected to, counted by reason and logged once each. At most `limit` run at
/// once; more are refused (HTTP 503) so a misconfigured Prometheus cannot pile threads up. Each
/// client (by address, and an IPv6 one by its /64 too: `ClientShares`) is held to `ClientRateLimit`
/// first: over it, HTTP 429 before anything else is done, so one client's flood neither takes
/// the slots nor the CPU.
public final class ProbeService: Sendable {
    let limit: Atomic<Int>
    let inFlight = Atomic<Int>(0)
    let allowed: Mutex<ProbeAllowList>
    let metrics: MetricSet
    let log: ExporterLog
    struct Logged {
        var targets: Set<String> = []
        var full = false
    }
    /// The refused targets logged since the allowed ones last changed.
    let logged = Mutex(Logged())
    let rates = Mutex(ClientRateLimit())
    /// Refused targets logged at most, until the allowed ones change (a scan logs no more).
    static let mostLogged = 256

    init(limit: Int, allowed: ProbeAllowList, metrics: MetricSet, log: ExporterLog) {
        self.limit = Atomic(limit)
        self.allowed = Mutex(allowed)
        self.metrics = metrics
        self.log = log
        metrics.gauge(MetricFamily.probesInFlight).set(0.0)
        for r in ProbeRefusal.Reason.allCases { _ = metrics.counter(MetricFamily.probesRefused, [("reason", r.rawValue)]) }
    }

    func setLimit(_ n: Int) { limit.store(n, ordering: .relaxed) }

    /// A new list; a target refused before is logged again if it is refused again.
    func setAllowed(_ list: ProbeAllowList) {
        let changed = allowed.withLock { a in
            defer { a = list }
            return a != list
        }
        if changed { logged.withLock { $0 = Logged() } }
    }

    /// Answers `query` on a thread of its own, calling `done` with the response there.
    func probe(query: String, client: String, subnet: String? = nil, scrapeTimeout: String?, done: @escaping @Sendable (HTTPAnswer) -> Void) {
        let now = Clock.ms() / 1000
        guard rates.withLock({ $0.take(ClientShares.keys(client: client, subnet: subnet), seconds: now) }) else {
            metrics.counter(MetricFamily.probesRefused, [("reason", ProbeRefusal.Reason.rateLimited.rawValue)]).increment()
            if let line = once(
                "client \(client)",
                "probe: \(client) asks more often than \(Int(ClientRateLimit.perSecond)) a second (after a burst of \(Int(ClientRateLimit.burst))); answered 429"
            ) {
                log.line(line)
            }
            done(.tooMany("probe: more than \(Int(ClientRateLimit.perSecond)) requests a second from \(client); try again later\n"))
            return
        }
        let request: ProbeRequest
        do throws(SettingsError) { request = try ProbeRequest.parse(query: query, scrapeTimeout: scrapeTimeout) } catch {
            done(.text(400, "probe: \(error)\n"))
            return
        }
        let list = allowed.withLock { $0 }
        let target = request.options.endpoint
        let known: IPAddress?
        let resolve: Bool
        switch list.check(target) {
        case .refused(let r):
            done(refused(r))
            return
        case .allowed(let a): (known, resolve) = (a, false)
        case .resolve: (known, resolve) = (nil, true)
        }
        let running = inFlight.add(1, ordering: .relaxed).newValue
        guard running <= limit.load(ordering: .relaxed) else {
            inFlight.subtract(1, ordering: .relaxed)
            metrics.counter(MetricFamily.probesRefused, [("reason", ProbeRefusal.Reason.maxProbes.rawValue)]).increment()
            done(.text(503, "probe: \(running - 1) probes are running, the most max_probes allows; try again later\n"))
            return
        }
        metrics.gauge(MetricFamily.probesInFlight).set(Double(running))
        let t = Thread { [self] in
            // A name only its addresses can allow: each is checked, and the probe goes to one of
            // them, not to what a second lookup might answer.
            let checked = resolve ? list.check(target, resolved: Resolver.addresses(target.host)).map(Optional.some) : .success(known)
            let answer: HTTPAnswer
            switch checked {
            case .success(let address): answer = .metrics(Self.run(request, address: address))
            case .failure(let r): answer = refused(r)
            }
            // The slot is free before the answer goes: a client may ask again at once.
            let left = inFlight.subtract(1, ordering: .relaxed).newValue
            metrics.gauge(MetricFamily.probesInFlight).set(Double(left))
            done(answer)
        }
        t.name = "probe"
        t.start()
    }

    /// 403 with the one line, counted by reason and logged once per target.
    func refused(_ r: ProbeRefusal) -> HTTPAnswer {
        metrics.counter(MetricFamily.probesRefused, [("reason", r.reason.rawValue)]).increment()
        if let line = once(r.target, "probe: \(r)") { log.line(line) }
        return .text(403, "probe: \(r)\n")
    }

    /// `line` the first time `subject` (a target, a client) is refused, until too many were.
    func once(_ subject: String, _ line: String) -> String? {
        logged.withLock { l in
            if l.targets.contains(subject) { return nil }
            guard l.targets.count < Self.mostLogged else {
                defer { l.full = true }
                return l.full
                    ? nil : "probe: more than \(Self.mostLogged) targets or clients refused; no more are logged until probe_allow or the servers change"
            }
            l.targets.insert(subject)
            return line
        }
    }

    /// probe_success: heartbeats answered, no failure and no finding critical, the certificate's days left
    /// aside (a certificate that expires in 5 days is critical in the heartbeat's grade, but the
    /// server still answers; probe_ssl_earliest_cert_expiry carries it, as blackbox_exporter's
    /// does). probe_status keeps the whole grade.
    static func success(_ report: HeartbeatReport) -> Bool {
        let graded = report.findings.filter { $0.check != .tlsCertificate }.map(\.severity).max() ?? .ok
        return report.received > 0 && report.error == nil && graded <= .warning
    }

    /// The check itself, within the request's budget, as exposition text.
    static func run(_ request: ProbeRequest, address: IPAddress?) -> [UInt8] {
        let t0 = Clock.ms()
        let deadline = t0 + request.budgetSeconds * 1000
        let report = HeartbeatProbe(request.options, address: address) { Clock.ms() >= deadline }.run()
        let registry = MetricRegistry()
        let m = MetricSet(registry: registry, labels: [])
        m.gauge(MetricFamily.probeSuccess).set(success(report) ? 1.0 : 0.0)
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
        return registry.exposition()
    }
}
