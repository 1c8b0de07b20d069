/// What `pushdiag exporter` was asked on its command line (flags win over the configuration).
public struct ExporterFlags: Sendable, Equatable {
    /// The push servers and their TLS, as for a survey (`--server`, `--protocol`, `--tls`, …).
    public var survey = SurveyFlags()
    public var interfaces: [String] = []
    public var listen: String?
    public var interval: String?
    public var wifiInterval: String?
    public var maxProbes: Int?
    public init() {}
}

/// The exporter's settings, resolved: flags over `[exporter]`, `[[server]]` and `interface` of
/// the configuration file over the defaults. Reloading (SIGHUP) resolves them again.
public struct ExporterSettings: Sendable, Equatable {
    public var listen: Endpoint
    /// One held session each.
    public var servers: [SurveyServer]
    /// Sampled and followed, each on its own.
    public var interfaces: [String]
    public var heartbeatIntervalSeconds: Double
    public var wifiIntervalSeconds: Double
    public var maxProbes: Int
    /// `[exporter] probe_allow`: where /probe may connect besides `servers`.
    public var probeAllow: [ProbeAllowRule]
    /// The roam grades' limits (`[walk]`).
    public var roamLimits: WalkThresholds

    public static let defaultListen = ":9745"
    public static let defaultInterval = "10s"
    public static let defaultWiFiInterval = "15s"
    public static let defaultMaxProbes = 4
    public static let mostProbes = 64
    /// Heartbeats and samples no closer than this.
    public static let shortestInterval = 0.1

    /// `ADDR:PORT`, `[V6]:PORT` or `:PORT` (every address).
    public static func listenEndpoint(_ text: String) -> Endpoint? {
        if text.hasPrefix(":"), let port = UInt16(text.dropFirst()), port > 0 { return Endpoint(host: "::", port: port) }
        return Endpoint(text, defaultPort: nil)
    }

    /// Flag problems alone, before any file is read.
    public static func validate(_ flags: ExporterFlags) throws(SettingsError) {
        try SurveySettings.validate(flags.survey)
        if let l = flags.listen, listenEndpoint(l) == nil { throw .usage("--listen: '\(l)' is not ADDR:PORT or :PORT") }
        for (option, text) in [("--interval", flags.interval), ("--wifi-interval", flags.wifiInterval)] {
            if let text, case .failure(let e) = DurationText.parse(text, option: option, atLeast: shortestInterval) { throw .usage(e.description) }
        }
        if let n = flags.maxProbes, !(1...mostProbes).contains(n) { throw .usage("--max-probes: \(n) is not from 1 to \(mostProbes)") }
        if flags.interfaces.contains("") { throw .usage("--interface: an interface name is empty") }
    }

    public static func resolve(_ flags: ExporterFlags, config c: PushdiagConfig, file: String?) throws(SettingsError) -> ExporterSettings {
        try validate(flags)
        let survey = try SurveySettings.resolve(flags.survey, config: c, file: file)
        let limits: WalkThresholds
        switch WalkThresholds.resolve(c.walk) {
        case .success(let t): limits = t
        case .failure(let e): throw e
        }
        var interfaces = flags.interfaces
        if interfaces.isEmpty { interfaces = c.exporter.interfaces ?? c.interface.map { [$0] } ?? [] }
        var unique: [String] = []
        for i in interfaces where !unique.contains(i) { unique.append(i) }
        let listen = flags.listen ?? c.exporter.listen ?? defaultListen
        return ExporterSettings(
            listen: listenEndpoint(listen)!,  // checked by validate or the parser
            servers: survey.servers, interfaces: unique,
            heartbeatIntervalSeconds: DurationText.seconds(flags.interval ?? c.exporter.interval ?? defaultInterval) ?? 10,
            wifiIntervalSeconds: DurationText.seconds(flags.wifiInterval ?? c.exporter.wifiInterval ?? defaultWiFiInterval) ?? 15,
            maxProbes: flags.maxProbes ?? c.exporter.maxProbes ?? defaultMaxProbes, probeAllow: c.exporter.probeAllow ?? [], roamLimits: limits)
    }

    /// Where /probe may connect: the servers held, and `probeAllow`.
    public var probeTargets: ProbeAllowList { ProbeAllowList(servers: servers.map(\.endpoint), rules: probeAllow) }

    /// The session held for `server`: its options, with the exporter's interval. A server that
    /// keeps these options keeps its session across a reload.
    public func sessionOptions(_ server: SurveyServer) -> HeartbeatOptions {
        var o = server.heartbeatOptions
        o.intervalMs = heartbeatIntervalSeconds * 1000
        return o
    }
}
