import PushdiagCore
import PushdiagIO
import Synchronization

/// `pushdiag exporter`: the held sessions, the followed interfaces and the HTTP server, and
/// what a reload changes among them. The command owns the process (signals, the config file);
/// this owns what runs.
public final class Exporter: Sendable {
    public let registry = MetricRegistry()
    let log: ExporterLog
    let replay: String?
    let version: String
    struct Running {
        var settings: ExporterSettings
        var sessions: [SessionKeeper] = []
        var interfaces: [String: InterfaceFollower] = [:]
    }
    let running: Mutex<Running>
    let own: MetricSet
    let probes: ProbeService
    let server: Mutex<HTTPServer?> = Mutex(nil)
    /// `--web-config`: TLS and basic auth, replaced whole by a reload.
    let web: Mutex<WebAccess>
    let auth = BasicAuthGate()
    /// The sessions' heartbeats joined with the interfaces' events.
    let stalls = StallWatch()

    /// `replay`: a netlink recording the interfaces are read from instead of the kernel.
    public init(settings: ExporterSettings, web: WebAccess = .open, replay: String? = nil, version: String, log: ExporterLog = ExporterLog()) {
        self.log = log
        self.web = Mutex(web)
        auth.set(web.config?.users ?? [])
        self.replay = replay
        self.version = version
        running = Mutex(Running(settings: settings))
        own = MetricSet(registry: registry, labels: [])
        probes = ProbeService(limit: settings.maxProbes, allowed: settings.probeTargets, metrics: own, log: log)
    }

    /// Starts the sessions and followers, then listens. A port that cannot be had is one line
    /// (and nothing keeps running).
    public func start() throws(ListenFailure) -> Int {
        let s = running.withLock { $0.settings }
        MetricSet(registry: registry, labels: [("version", version)]).gauge(MetricFamily.buildInfo).set(1.0)
        let http = try HTTPServer.exporter(s.listen, tls: { [self] in web.withLock { $0.tls } }, answer: { [self] request, reply in answer(request, reply) })
        server.withLock { $0 = http }
        apply(s, reload: false)
        log.line(
            "listening on \(s.listen.host == "::" ? "*:\(http.port)" : Endpoint(host: s.listen.host, port: http.port).description): \(summary(s)); \(web.withLock { $0.summary })"
        )
        return Int(http.port)
    }

    func summary(_ s: ExporterSettings) -> String {
        "\(s.servers.count) push session(s), \(s.interfaces.count) interface(s), heartbeats every \(DurationText.format(s.heartbeatIntervalSeconds)), /probe to "
            + (s.probeAllow.isEmpty ? "the servers only" : "the servers and \(s.probeAllow.count) probe_allow rule(s)")
    }

    /// Starts what is new, stops what went; a session whose options did not change goes on. The
    /// web configuration, when given, applies to the next connection and request.
    public func apply(_ s: ExporterSettings, web newWeb: WebAccess? = nil, reload: Bool = true) {
        if let newWeb, let why = newWeb.refusal(replacing: web.withLock({ $0 })) { return reloadFailed(why) }
        if let newWeb {
            web.withLock { $0 = newWeb }
            auth.set(newWeb.config?.users ?? [])
        }
        var started: [String] = []
        var stoppedNames: [String] = []
        var toStop: [SessionKeeper] = []
        var followersToStop: [InterfaceFollower] = []
        running.withLock { r in
            let wanted = s.servers.map { s.sessionOptions($0) }
            for held in r.sessions where !wanted.contains(held.options) {
                toStop.append(held)
                stoppedNames.append("push \(held.options.endpoint)")
            }
            r.sessions.removeAll { !wanted.contains($0.options) }
            for o in wanted where !r.sessions.contains(where: { $0.options == o }) {
                let keeper = SessionKeeper(
                    options: o, metrics: MetricSet(registry: registry, labels: [("target", o.endpoint.description), ("protocol", o.proto.rawValue)]),
                    log: log, stalls: stalls)
                r.sessions.append(keeper)
                started.append("push \(o.endpoint)")
                keeper.start()
            }
            let sameSampling = r.settings.wifiIntervalSeconds == s.wifiIntervalSeconds && r.settings.roamLimits == s.roamLimits
            for (name, f) in r.interfaces where !s.interfaces.contains(name) || !sameSampling {
                followersToStop.append(f)
                r.interfaces[name] = nil
                stoppedNames.append("wifi \(name)")
            }
            for name in s.interfaces where r.interfaces[name] == nil {
                let f = InterfaceFollower(
                    name: name, intervalSeconds: s.wifiIntervalSeconds, limits: s.roamLimits, replay: replay,
                    metrics: MetricSet(registry: registry, labels: [("interface", name)]), log: log, stalls: stalls)
                r.interfaces[name] = f
                started.append("wifi \(name)")
                f.start()
            }
            if reload && r.settings.listen != s.listen {
                log.line("reload: listen stays \(r.settings.listen) until a restart (asked: \(s.listen))")
            }
            // Everything but the address, which a reload cannot change.
            let listen = r.settings.listen
            r.settings = s
            r.settings.listen = listen
        }
        probes.setLimit(s.maxProbes)
        probes.setAllowed(s.probeTargets)
        // Stopping waits for each thread's goodbye: outside the lock, all at once.
        for k in toStop { k.stop(waitSeconds: 0, remove: false) }
        for f in followersToStop { f.stop(waitSeconds: 0, remove: false) }
        for k in toStop { k.stop(remove: true) }
        for f in followersToStop { f.stop(remove: true) }
        loaded(true)
        if reload {
            let unchanged = running.withLock { $0.sessions.count + $0.interfaces.count } - started.count
            log.line(
                "reloaded: \(summary(s)); \(web.withLock { $0.summary }); started \(started.isEmpty ? "nothing" : started.joined(separator: ", ")), stopped \(stoppedNames.isEmpty ? "nothing" : stoppedNames.joined(separator: ", ")), \(unchanged) unchanged"
            )
        }
    }

    /// A reload that failed: the running settings stay, and the metrics say so.
    public func reloadFailed(_ why: String) {
        loaded(false)
        log.line("reload failed, keeping the running configuration: \(why)")
    }

    func loaded(_ ok: Bool) {
        own.gauge(MetricFamily.reloadOK).set(ok ? 1.0 : 0.0)
        if ok { own.gauge(MetricFamily.reloadTime).set(Double(WallClock.nanoseconds()) / 1e9) }
    }

    /// Closes every session as its protocol says goodbye, stops the followers and the server.
    public func stop() {
        let (keepers, followers) = running.withLock { r in (r.sessions, Array(r.interfaces.values)) }
        server.withLock { $0?.close() }
        for k in keepers { k.stop(waitSeconds: 0, remove: false) }
        for f in followers { f.stop(waitSeconds: 0, remove: false) }
        for k in keepers { k.stop(remove: false) }
        for f in followers { f.stop(remove: false) }
        log.line("stopped")
    }

    // MARK: HTTP

    /// Every endpoint but /-/healthy asks for the credentials when users are configured.
    func answer(_ request: HTTPServerRequest, _ reply: @escaping @Sendable (HTTPAnswer) -> Void) {
        let head = request.head
        if head.target == "/-/healthy" { return route(request, reply) }
        auth.check(head.header("Authorization"), client: request.client, subnet: request.subnet) { [self] ok in
            if ok { route(request, reply) } else { reply(.unauthorized) }
        }
    }

    func route(_ request: HTTPServerRequest, _ reply: @escaping @Sendable (HTTPAnswer) -> Void) {
        let head = request.head
        guard head.method == "GET" || head.method == "HEAD" else {
            reply(.text(405, "\(head.method) is not answered here; GET /metrics or /probe\n"))
            return
        }
        switch head.path {
        case "/metrics":
            reply(.metrics(registry.exposition()))
        case "/probe":
            probes.probe(
                query: head.query ?? "", client: request.client, subnet: request.subnet, scrapeTimeout: head.header("X-Prometheus-Scrape-Timeout-Seconds"),
                done: reply)
        case "/-/healthy":
            reply(.text(200, "OK\n"))
        case "/":
            reply(.html(Self.index(version: version)))
        default:
            reply(.text(404, "not found: \(head.path); try /metrics, /probe?target=HOST:PORT or /\n"))
        }
    }

    static func index(version: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>pushdiag exporter</title></head>
        <body><h1>pushdiag exporter \(version)</h1>
        <p><a href="/metrics">/metrics</a>: the held push sessions and the followed Wi-Fi interfaces.</p>
        <p>/probe?target=HOST:PORT&amp;protocol=simplepush: a one-shot heartbeat check (protocol: \(HeartbeatProtocol.names(HeartbeatProtocol.allCases)); tls=1, count=N), of the configured servers and what [exporter] probe_allow adds.</p>
        <p>See pushdiag(1).</p></body></html>

        """
    }
}
