/// What each part of a survey produced: its report, or why there is none.
public struct SurveyParts: Sendable {
    public var wifi: WiFiReport?
    public var wifiError: String?
    /// Nil when no capture was asked for.
    public var capture: CaptureReport?
    /// One per push server, in the settings' order.
    public var heartbeats: [HeartbeatReport] = []
    public var routes: RouteSetReport?
    public var routeError: String?

    public init() {}
}

extension SurveyReport {
    /// The verdict table from what the parts measured: a check asked for that could not run is
    /// UNKNOWN with the reason, one not asked for is SKIPPED (it does not set the exit code);
    /// the worst check comes first.
    public static func assemble(
        _ parts: SurveyParts, settings: SurveySettings, started: Int64, durationSeconds: Double, interrupted: Bool = false
    ) -> SurveyReport {
        let t = settings.thresholds
        var checks: [SurveyCheck] = []
        if let w = parts.wifi {
            checks += SurveyVerdicts.wifi(w, t: t)
        } else {
            let why = parts.wifiError ?? "not run"
            let subject = settings.interface ?? "Wi-Fi"
            checks.append(SurveyCheck(check: .channelUtilization, status: .unknown, subject: subject, hint: why))
            checks.append(SurveyCheck(check: .retransmissions, status: .unknown, subject: subject, hint: why))
        }
        if let c = parts.capture {
            checks += SurveyVerdicts.capture(c, t: t)
        } else {
            checks.append(SurveyCheck(check: .frameRetries, status: .skipped, subject: "capture", hint: "no --monitor interface or --capture file given"))
        }
        if settings.servers.isEmpty {
            checks.append(SurveyCheck(check: .heartbeat, status: .skipped, subject: "push server", hint: "no --server given"))
            checks.append(SurveyCheck(check: .route, status: .skipped, subject: "push server", hint: "no --server given"))
        } else {
            checks += parts.heartbeats.map { SurveyVerdicts.heartbeat($0, t: t) }
            checks += parts.heartbeats.compactMap { SurveyVerdicts.certificate($0, t: t) }
            checks += parts.heartbeats.compactMap { SurveyVerdicts.idleTimeout($0, t: t) }
            checks += parts.heartbeats.compactMap(SurveyVerdicts.safeInterval)
            if let routes = parts.routes {
                checks += routes.routes.map(SurveyVerdicts.route)
            } else {
                checks.append(SurveyCheck(check: .route, status: .unknown, subject: "push servers", hint: parts.routeError ?? "not run"))
            }
        }
        checks.sort { $0.status > $1.status }
        return SurveyReport(
            started: started, durationSeconds: durationSeconds, checks: checks,
            wifi: parts.wifi, capture: parts.capture, heartbeats: parts.heartbeats, routes: parts.routes, interrupted: interrupted)
    }

    /// The hosts whose route a survey checks: each once, however many of its ports serve push.
    public static func routeHosts(_ servers: [SurveyServer]) -> [String] {
        var hosts: [String] = []
        for s in servers where !hosts.contains(s.endpoint.host) { hosts.append(s.endpoint.host) }
        return hosts
    }
}
