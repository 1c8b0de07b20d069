/// What a survey was asked on the command line; nil (or empty) where a flag was not given.
public struct SurveyFlags: Sendable, Equatable {
    public var interface: String?
    public var monitor: String?
    public var capture: String?
    public var duration: String?
    /// HOST[:PORT] as typed; they replace the configured servers.
    public var servers: [String] = []
    public var proto: HeartbeatProtocol?
    public var tls = false
    /// With `tls`, for the servers given as flags: no verification, a key pin, extra trust anchors.
    public var insecure = false
    public var pin: String?
    public var caFile: String?
    /// `--join-limits`: a join report with `ap_idle`, or a history holding joins.
    public var joinLimits: String?
    /// Thresholds as typed, by configuration key (`ThresholdRow.key`: `utilization_warning`, …).
    public var thresholds: [String: String] = [:]

    public init() {}
}

/// A push server a survey checks, from a flag or the configuration.
public struct SurveyServer: Sendable, Equatable {
    public var endpoint: Endpoint
    public var proto: HeartbeatProtocol
    public var tls: TLSOptions?
    /// websocket: the request path.
    public var path: String?
    /// simplepush: register as this user and watch the server's own heartbeats.
    public var register: String?
    /// With `register`: the path's idle timeout, seconds (`idle_timeout`).
    public var idleTimeoutS: Double?

    /// The session a device would hold to this server: its protocol, TLS, path and
    /// registration, with the defaults of `HeartbeatOptions` for the rest.
    public var heartbeatOptions: HeartbeatOptions {
        var o = HeartbeatOptions(endpoint: endpoint, proto: proto)
        o.tls = tls
        if let path { o.path = path }
        o.register = register
        o.pathIdleTimeoutS = idleTimeoutS
        return o
    }
}

/// A problem with what a survey was asked: a flag (bad usage) or the configuration file.
public enum SettingsError: Error, Equatable, CustomStringConvertible {
    case usage(String)
    case config(ConfigError)

    public var description: String {
        switch self {
        case .usage(let s): return s
        case .config(let e): return e.description
        }
    }
}

/// A survey's settings, resolved: flags over the configuration file over the defaults, checked
/// once here for `survey`, `report` and `config check` alike.
public struct SurveySettings: Sendable, Equatable {
    public var interface: String?
    public var monitor: String?
    public var capture: String?
    /// The survey window.
    public var seconds: Double
    public var servers: [SurveyServer]
    public var thresholds: SurveyThresholds
    public var history: String?
    public var textfile: String?
    /// Where the limits a join found come from (`--join-limits`, `join_limits`), and the limits
    /// once read (`JoinLimitsFile` in IO): every server's heartbeat spacing is graded against
    /// their safe interval.
    public var joinLimitsPath: String?
    public var joinLimits: JoinLimits?

    public static let defaultDuration = "30s"

    /// Flag problems alone, before any file is read (`ParsableArguments.validate`).
    public static func validate(_ flags: SurveyFlags) throws(SettingsError) {
        for row in ThresholdRow.rows(.survey) {
            for level in ThresholdRow.Level.allCases {
                guard let v = flags.thresholds[row.key(level)], case .failure(let why) = row.parse(v) else { continue }
                throw .usage("\(row.flag(level)): '\(v)' is \(why)")
            }
        }
        if let d = flags.duration, case .failure(let e) = DurationText.parse(d, option: "--duration", atLeast: 1) { throw .usage(e.description) }
        // One source of frames: a survey's capture part is one report.
        if flags.monitor != nil, flags.capture != nil { throw .usage("--monitor and --capture: one of them (a live monitor, or a file)") }
        if let why = TLSOptions.flagsProblem(tls: flags.tls, insecure: flags.insecure, pin: flags.pin, caFile: flags.caFile) { throw .usage(why) }
        // They shape the --server connections only (a [[server]] table has its own keys): given
        // alone they would do nothing.
        if flags.servers.isEmpty, flags.proto != nil || flags.tls {
            throw .usage("--protocol and --tls go with --server (a configured [[server]] has its own protocol and tls keys)")
        }
        let p = flags.proto ?? .simplepush
        for s in flags.servers { if case .failure(let why) = p.endpoint(s, tls: flags.tls) { throw .usage("--server: \(why)") } }
    }

    /// The configuration's push servers, each with its port, protocol and TLS options; a server
    /// without a port where its protocol has none is named by its line.
    public static func servers(of c: PushdiagConfig, file: String) throws(ConfigError) -> [SurveyServer] {
        var list: [SurveyServer] = []
        for s in c.servers {
            let p = HeartbeatProtocol(rawValue: s.proto) ?? .simplepush
            guard let port = s.port ?? p.defaultPort(tls: s.tls) else {
                throw ConfigError(
                    file: file, line: s.line, key: "server.port", message: "server \(s.host): no port, and \(EndpointProblem.noDefaultPort(p.rawValue))")
            }
            var tls: TLSOptions?
            if s.tls {
                var o = TLSOptions(serverName: s.host)
                o.pin = s.pin
                o.caFile = s.caFile
                tls = o
            }
            list.append(
                SurveyServer(endpoint: Endpoint(host: s.host, port: port), proto: p, tls: tls, path: s.path, register: s.register, idleTimeoutS: s.idleTimeoutS)
            )
        }
        return list
    }

    /// Flags over `config` (read from `file`) over the defaults.
    public static func resolve(_ flags: SurveyFlags, config c: PushdiagConfig, file: String?) throws(SettingsError) -> SurveySettings {
        try validate(flags)
        var t = SurveyThresholds()
        for row in ThresholdRow.rows(.survey) {
            for level in ThresholdRow.Level.allCases {
                if let text = flags.thresholds[row.key(level)] ?? c.thresholds[row.key(level)], case .success(let r) = row.parse(text) {
                    t[row.key(level)] = r
                }
            }
        }
        var servers: [SurveyServer]
        if !flags.servers.isEmpty {
            let p = flags.proto ?? .simplepush
            servers = flags.servers.map { s in
                let e = try! p.endpoint(s, tls: flags.tls).get()  // validated above, by the same reading
                guard flags.tls else { return SurveyServer(endpoint: e, proto: p) }
                var tls = TLSOptions(serverName: e.host)
                tls.verify = !flags.insecure
                tls.pin = flags.pin
                tls.caFile = flags.caFile
                return SurveyServer(endpoint: e, proto: p, tls: tls)
            }
        } else {
            do throws(ConfigError) { servers = try Self.servers(of: c, file: file ?? "configuration") } catch { throw .config(error) }
        }
        // A server named twice is checked once (its checks would repeat under one name).
        var seen: [Endpoint] = []
        servers.removeAll { s in
            defer { seen.append(s.endpoint) }
            return seen.contains(s.endpoint)
        }
        let settings = SurveySettings(
            // --capture is a flag: it wins over the configuration's monitor, as every flag does.
            interface: flags.interface ?? c.interface, monitor: flags.monitor ?? (flags.capture == nil ? c.monitor : nil), capture: flags.capture,
            seconds: DurationText.seconds(flags.duration ?? c.duration ?? defaultDuration) ?? 30,
            servers: servers, thresholds: t, history: c.history, textfile: c.textfile, joinLimitsPath: flags.joinLimits ?? c.joinLimits)
        // The safe_interval flags would say nothing without something to grade (the
        // configuration's keys are named by `config check`).
        if !settings.gradesSafeInterval, let level = ThresholdRow.Level.allCases.first(where: { flags.thresholds[ThresholdRow.safeInterval.key($0)] != nil }) {
            throw .usage(
                ThresholdRow.safeIntervalAlone(
                    ThresholdRow.safeInterval.flag(level), takes: "--join-limits (or join_limits in the configuration) or a server's idle_timeout"))
        }
        return settings
    }

    /// Whether the `safe_interval` limits grade anything: a join's limits, or a server's idle
    /// timeout.
    public var gradesSafeInterval: Bool { joinLimitsPath != nil || servers.contains { $0.idleTimeoutS != nil } }
}
