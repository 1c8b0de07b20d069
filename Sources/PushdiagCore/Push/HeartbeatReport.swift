/// What the handshake showed.
public struct TLSInfo: Codable, Sendable, Equatable {
    public init(
        version: String, cipher: String, subject: String, issuer: String, notAfter: String, notAfterSeconds: Int64, daysLeft: Int, spkiSha256: String,
        verified: Bool,
        verifyError: String?, pinMatched: Bool?
    ) {
        self.version = version
        self.cipher = cipher
        self.subject = subject
        self.issuer = issuer
        self.notAfter = notAfter
        self.notAfterSeconds = notAfterSeconds
        self.daysLeft = daysLeft
        self.spkiSha256 = spkiSha256
        self.verified = verified
        self.verifyError = verifyError
        self.pinMatched = pinMatched
    }

    public var version: String
    public var cipher: String
    public var subject: String
    public var issuer: String
    /// notAfter of the server certificate (RFC 3339).
    public var notAfter: String
    /// The same, in seconds since the epoch.
    public var notAfterSeconds: Int64
    public var daysLeft: Int
    /// base64 SHA-256 of the server key's SubjectPublicKeyInfo (an HPKP-style pin).
    public var spkiSha256: String
    public var verified: Bool
    @Nullable public var verifyError: String?
    @Nullable public var pinMatched: Bool?
}

/// The heartbeats the server sent after `--register`, and how far apart they came.
public struct ServerHeartbeats: Codable, Sendable, Equatable {
    public var registered: Bool
    public var received: Int
    public var acknowledged: Int
    /// Spacing between consecutive server heartbeats (and from registration to the first).
    @Nullable public var intervalMs: RTTSummary?
    @Nullable public var longestGapMs: Double?
    /// The client's timeout: a gap longer than this makes a device reconnect.
    public var timeoutS: Double
    /// The path's idle timeout the spacing is judged against (`--idle-timeout`, `idle_timeout`).
    @Nullable public var pathIdleTimeoutS: Double?

    public init(
        registered: Bool, arrivals: [Double], registeredAt: Double?, acknowledged: Int, timeoutS: Double, endedAt: Double, pathIdleTimeoutS: Double? = nil
    ) {
        self.registered = registered
        received = arrivals.count
        self.acknowledged = acknowledged
        var gaps: [Double] = []
        var previous = registeredAt
        for a in arrivals {
            if let p = previous { gaps.append(a - p) }
            previous = a
        }
        intervalMs = RTTSummary.of(gaps)
        // The time since the last one counts too: silence until the end is a gap.
        if let p = previous { gaps.append(endedAt - p) }
        longestGapMs = gaps.max().map(Kept.ms)
        self.timeoutS = timeoutS
        self.pathIdleTimeoutS = pathIdleTimeoutS
    }
}

/// The report model of `pushdiag heartbeat`.
public struct RTTSummary: Codable, Sendable, Equatable {
    public var min: Double
    public var avg: Double
    public var median: Double
    public var p95: Double
    public var p99: Double
    public var max: Double
    public var stdev: Double

    /// Milliseconds, kept to the microsecond (`Kept.ms`). nil without samples.
    public static func of(_ samples: [Double]) -> RTTSummary? {
        let s = samples.sorted()
        guard let median = NumberText.median(sorted: s), let p95 = NumberText.percentile(0.95, sorted: s),
            let p99 = NumberText.percentile(0.99, sorted: s)
        else { return nil }
        let avg = s.reduce(0, +) / Double(s.count)
        let variance = s.reduce(0) { $0 + ($1 - avg) * ($1 - avg) } / Double(s.count)
        let r = { (v: Double) in Kept.ms(v) }
        return RTTSummary(
            min: r(s[0]), avg: r(avg), median: r(median), p95: r(p95), p99: r(p99), max: r(s[s.count - 1]), stdev: r(variance.squareRoot()))
    }

    /// Mean |Δ| between consecutive samples, in arrival order (mtr's jitter).
    public static func jitter(_ samples: [Double]) -> Double? {
        guard samples.count >= 2 else { return nil }
        let total = zip(samples, samples.dropFirst()).reduce(0) { $0 + abs($1.1 - $1.0) }
        return Kept.ms(total / Double(samples.count - 1))
    }
}

/// The states of Apple's Network framework a push connection goes through.
public enum ConnectionPhase: String, Codable, Sendable, CaseIterable {
    case setup, preparing, ready, waiting, failed, cancelled
}

public struct ConnectionState: Codable, Sendable, Equatable {
    public var time: String
    public var state: ConnectionPhase
    @Nullable public var reason: String?
    public init(timeNs: Int64, state: ConnectionPhase, reason: String? = nil) {
        time = Timestamp.rfc3339(nanoseconds: timeNs)
        self.state = state
        self.reason = reason
    }
}

public struct ReconnectAttempt: Codable, Sendable, Equatable {
    /// A connection given up on, in the same words in every command and output: each delay of the
    /// reconnect schedule was tried and none connected (how many attempts, where said).
    public static func scheduleRanOut(attempts: Int? = nil) -> String {
        "connection lost: the reconnect schedule" + (attempts.map { " (\(NumberText.count($0, "attempt")))" } ?? "") + " ran out"
    }

    public var attempt: Int
    public var delayS: Double
    public var outcome: Outcome
    /// Time to connect (success) or to fail.
    public var ms: Double

    /// `connected`, or the failure as people read it ("connection refused (ECONNREFUSED)"); in
    /// JSON the one string either way.
    public enum Outcome: RawRepresentable, Codable, Sendable, Equatable {
        case connected
        case failed(String)
        public init(rawValue: String) { self = rawValue == Self.connected.rawValue ? .connected : .failed(rawValue) }
        public var rawValue: String {
            switch self {
            case .connected: "connected"
            case .failed(let why): why
            }
        }
    }

    public init(attempt: Int, delayS: Double, outcome: Outcome, ms: Double) {
        self.attempt = attempt
        self.delayS = delayS
        self.outcome = outcome
        self.ms = Kept.ms(ms)
    }
}

public struct HeartbeatReport: Codable, Sendable, Equatable {
    public var target: String
    public var `protocol`: String
    @Nullable public var address: String?
    @Nullable public var resolveMs: Double?
    @Nullable public var connectMs: Double?
    @Nullable public var tlsMs: Double?
    /// The protocol's own handshake (MQTT CONNECT/CONNACK, the WebSocket upgrade).
    @Nullable public var handshakeMs: Double?
    /// What the TLS handshake showed (null without TLS).
    @Nullable public var tls: TLSInfo?
    public var sent: Int
    public var received: Int
    public var lossPercent: Double
    @Nullable public var rttMs: RTTSummary?
    @Nullable public var jitterMs: Double?
    public var states: [ConnectionState]
    public var reconnects: [ReconnectAttempt]
    /// With --register: the server's own heartbeats.
    @Nullable public var serverHeartbeats: ServerHeartbeats?
    /// `--join-limits`: the server's heartbeat spacing against the longest safe interval a join
    /// found on this path, every limit with its source; null without it.
    @Nullable public var safeInterval: SafeIntervalCheck?
    /// The reconnect schedule ran out: the connection was lost for good.
    public var connectionLost: Bool
    /// `--interface`: the bad heartbeats, each joined with what the Wi-Fi link did while it was
    /// in flight, and their summary (as walk's); absent without it.
    public var stalls: [Stall]?
    public var stallSummary: StallSummary?
    public var findings: [Finding]
    public var status: Severity
    @Nullable public var error: String?
    /// Every answered heartbeat's round trip, ms, in order: for the textfile's histogram. Not in
    /// the JSON (`rttMs` summarises them there), so a report read back has none.
    public var rttsMsMeasured: [Double] = []

    enum CodingKeys: String, CodingKey {
        case target, `protocol`, address, resolveMs, connectMs, tlsMs, handshakeMs, tls, sent, received, lossPercent, rttMs, jitterMs, states,
            reconnects, serverHeartbeats, safeInterval, connectionLost, stalls, stallSummary, findings, status, error
    }

    public init(target: String, protocol proto: String) {
        self.target = target
        self.protocol = proto
        sent = 0
        received = 0
        lossPercent = 0
        states = []
        reconnects = []
        connectionLost = false
        findings = []
        status = .ok
    }
}

/// Thresholds for heartbeats, as plain numbers: loss in percent, the p95 round trip in ms and
/// the days a TLS server's certificate has left, the defaults of the `ThresholdRow` table's
/// `loss`, `rtt` and `certificate` rows.
public struct HeartbeatThresholds: Sendable, Equatable, RangeGraded {
    public var lossWarning = ThresholdRow.loss.warning
    public var lossCritical = ThresholdRow.loss.critical!
    public var rttWarningMs = ThresholdRow.rtt.warning
    public var rttCriticalMs = ThresholdRow.rtt.critical!
    /// Fewer days left than these: a warning, a critical finding.
    public var certificateWarningDays = ThresholdRow.certificate.warning
    public var certificateCriticalDays = ThresholdRow.certificate.critical!
    /// The server's heartbeat spacing as a share of the safe interval (`--join-limits`): ranges,
    /// as a survey's `[thresholds]` may set them.
    public var safeInterval = SurveyLimits(
        warning: ThresholdRow.safeInterval.defaultRange(.warning), critical: ThresholdRow.safeInterval.defaultRange(.critical))
    /// A survey's ranges (`SurveyThresholds.heartbeat`): when set, loss, round trip and
    /// certificate are graded on them, as the survey's checks are (an inside range, `@10:20`, or
    /// one with two ends says no one plain limit), and the plain limits above are not read.
    public var ranges: SurveyThresholds?
    public init() {}

    /// Loss, round trip and certificate, as plain limits.
    public func plainLimits(_ row: ThresholdRow) -> (warning: Double, critical: Double) {
        switch row {
        case .loss: return (lossWarning, lossCritical)
        case .rtt: return (rttWarningMs, rttCriticalMs)
        case .certificate: return (certificateWarningDays, certificateCriticalDays)
        default: preconditionFailure("HeartbeatThresholds grades no \(row) row")
        }
    }

    /// The defaults with `values` (keyed `loss_warning`, …, as `ThresholdRow.limits` gives them)
    /// over them; `HeartbeatOptions.validate` checks their order.
    public init(_ values: [String: Double]) {
        lossWarning = values[ThresholdRow.loss.key(.warning)] ?? lossWarning
        lossCritical = values[ThresholdRow.loss.key(.critical)] ?? lossCritical
        rttWarningMs = values[ThresholdRow.rtt.key(.warning)] ?? rttWarningMs
        rttCriticalMs = values[ThresholdRow.rtt.key(.critical)] ?? rttCriticalMs
        certificateWarningDays = values[ThresholdRow.certificate.key(.warning)] ?? certificateWarningDays
        certificateCriticalDays = values[ThresholdRow.certificate.key(.critical)] ?? certificateCriticalDays
        if let w = values[ThresholdRow.safeInterval.key(.warning)] { safeInterval.warning = ThresholdRange(upTo: w) }
        if let c = values[ThresholdRow.safeInterval.key(.critical)] { safeInterval.critical = ThresholdRange(upTo: c) }
    }
}

public enum HeartbeatAnalysis {
    public static func findings(target: String, sent: Int, received: Int, rtt: RTTSummary?, connectionLost: Bool, t: HeartbeatThresholds) -> [Finding] {
        var out: [Finding] = []
        if connectionLost {
            out.append(
                Finding(
                    check: .heartbeat, severity: .critical, subject: target, value: nil, threshold: nil, unit: "connection", source: "reconnect_schedule",
                    message: "\(target): \(ReconnectAttempt.scheduleRanOut())"))
        }
        if let loss = NumberText.percent(sent - received, of: sent), let g = t.grade(loss, .loss) {
            out.append(
                Finding(
                    check: .heartbeatLoss, severity: g.severity, subject: target, value: loss, threshold: g.limit, unit: .percent, source: "heartbeat",
                    message:
                        "\(target): \(HeartbeatThresholds.format(loss, beside: g.limit))% of heartbeats lost (\(sent - received) of \(sent)), \(t.passed(.loss, g))"
                ))
        }
        if let r = rtt, let g = t.grade(r.p95, .rtt) {
            out.append(
                Finding(
                    check: .heartbeatRtt, severity: g.severity, subject: target, value: r.p95, threshold: g.limit, unit: .ms, source: "heartbeat",
                    message: "\(target): heartbeat round trip p95 \(HeartbeatThresholds.format(r.p95, beside: g.limit)) ms, \(t.passed(.rtt, g))"))
        }
        return out.sorted { $0.severity > $1.severity }
    }

    /// Completes a report from what was measured: loss, round-trip statistics and every
    /// finding, decided from values and the typed failure (if any), never from message text.
    ///
    /// A name that does not resolve here leaves the server unchecked (UNKNOWN, no finding). A
    /// server that refuses or does not answer the connection, fails TLS or breaks its protocol
    /// is a critical finding, as check_tcp has it: devices cannot use it either.
    public static func conclude(_ report: inout HeartbeatReport, failure: ConnectionFailure?, options o: HeartbeatOptions) {
        let target = report.target
        let (sent, received) = (report.sent, report.received)
        report.lossPercent = NumberText.percent(sent - received, of: sent) ?? 0
        report.error = failure?.description
        report.findings = findings(target: target, sent: sent, received: received, rtt: report.rttMs, connectionLost: report.connectionLost, t: o.thresholds)
        if let failure {
            switch failure {
            case .resolve:
                break
            case .tls(let why):
                report.findings.insert(
                    Finding(check: .tls, severity: .critical, subject: target, value: nil, threshold: nil, unit: "handshake", source: "tls", message: why),
                    at: 0)
            default:
                // The TCP connection was made: the server broke its handshake or protocol.
                let connected = report.connectMs != nil
                report.findings.insert(
                    Finding(
                        check: connected ? .protocol : .connect, severity: .critical, subject: target, value: nil, threshold: nil,
                        unit: connected ? "handshake" : "connection", source: connected ? "protocol" : "connect",
                        message: connected
                            ? "\(failure): devices cannot use this server either"
                            : "\(failure): devices cannot connect either; is the push server running and listening there, and is the path to it open?"),
                    at: 0)
            }
        }
        // The silence as measured (the report's "longest gap" says it to the millisecond).
        if let sh = report.serverHeartbeats, sh.registered, let gap = sh.longestGapMs.map({ Kept.seconds($0 / 1000) }),
            gap > o.serverHeartbeatTimeoutS
        {
            report.findings.append(
                Finding(
                    check: .serverHeartbeat, severity: .critical, subject: target, value: gap, threshold: o.serverHeartbeatTimeoutS,
                    unit: .seconds, source: "server_heartbeats",
                    message:
                        "\(target): \(NumberText.format(gap, beside: o.serverHeartbeatTimeoutS)) s without a heartbeat from the server, above the \(NumberText.format(o.serverHeartbeatTimeoutS)) s after which a device reconnects"
                ))
        }
        if let sh = report.serverHeartbeats, let idle = sh.pathIdleTimeoutS,
            let m = IdleTimeout.margin(sh, pathTimeoutS: idle, ranges: o.thresholds.safeInterval), m.severity > .ok
        {
            report.findings.append(
                Finding(
                    check: .idleTimeout, severity: m.severity, subject: target, value: m.longestS, threshold: m.passedS, unit: .seconds,
                    source: "server_heartbeats", message: "\(target): \(m.message)"))
        }
        if let limits = o.joinLimits {
            let c = SafeIntervalCheck.grade(report.serverHeartbeats, limits: limits, ranges: o.thresholds.safeInterval)
            report.safeInterval = c
            if c.severity > .ok, let longest = c.serverLongestS, let limit = c.thresholdSeconds {
                let passed = c.severity == .critical ? limit.critical : limit.warning
                report.findings.append(
                    Finding(
                        check: .safeInterval, severity: c.severity, subject: target, value: longest, threshold: ThresholdRow.safeInterval.limit(of: passed),
                        unit: .seconds, source: "server_heartbeats", message: "\(target): \(c.message)"))
            }
        }
        if let info = report.tls, let g = o.thresholds.grade(Double(info.daysLeft), .certificate) {
            report.findings.append(
                Finding(
                    check: .tlsCertificate, severity: g.severity, subject: target, value: Double(info.daysLeft), threshold: g.limit, unit: .days, source: "tls",
                    message: info.daysLeft < 0
                        ? "\(target): the certificate expired on \(info.notAfter)"
                        : "\(target): the certificate expires in \(NumberText.count(info.daysLeft, "day")) (\(info.notAfter)), \(o.thresholds.passed(.certificate, g, below: "under"))"
                ))
        }
        report.status = report.findings.map(\.severity).max() ?? .ok
        if failure != nil { report.status = max(report.status, .unknown) }
    }

    /// "0.5,1,2,4" → seconds.
    public static func schedule(_ text: String) -> [Double]? {
        let parts = text.split(separator: ",").map { part -> Double? in
            if case .success(let s) = DurationText.parse(String(part), option: "") { return s }
            return nil
        }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        return parts.map { $0! }
    }
}

/// `pushdiag heartbeat --clients N`: many simulated devices at once.
public struct LoadClientReport: Codable, Sendable, Equatable {
    public var client: Int
    public var connected: Bool
    public var sent: Int
    public var received: Int
    @Nullable public var rttMedianMs: Double?
    @Nullable public var rttP95Ms: Double?
    /// The server closed this client's connection before the end.
    public var droppedOut: Bool
    /// This device hung up because the server broke the protocol (a reply that does not match
    /// --expect, a malformed or oversized frame); `error` says how.
    public var hungUp: Bool
    @Nullable public var error: String?
    /// Heartbeats this device was to send: --count, or up to the stop of an interrupted run.
    public var planned: Int

    public init(
        client: Int, connected: Bool, sent: Int, received: Int, rtts: [Double], droppedOut: Bool, hungUp: Bool = false, error: String?, planned: Int
    ) {
        self.client = client
        self.planned = connected ? planned : 0
        self.connected = connected
        self.sent = sent
        self.received = received
        let s = RTTSummary.of(rtts)
        rttMedianMs = s?.median
        rttP95Ms = s?.p95
        self.droppedOut = droppedOut
        self.hungUp = hungUp
        self.error = error
    }
}

public struct LoadReport: Codable, Sendable, Equatable {
    public var target: String
    public var `protocol`: String
    public var clients: Int
    public var connected: Int
    public var failedConnects: Int
    public var dropOuts: Int
    /// Devices that hung up because the server broke the protocol.
    public var protocolFailures: Int
    /// Heartbeats the connected devices were to send (--count each): those a drop-out prevented
    /// count as lost, as they would be on a device.
    public var planned: Int
    public var sent: Int
    public var received: Int
    public var lossPercent: Double
    @Nullable public var rttMs: RTTSummary?
    public var durationSeconds: Double
    /// Stopped by SIGINT or SIGTERM before every device sent --count heartbeats.
    public var interrupted: Bool
    public var perClient: [LoadClientReport]
    public var findings: [Finding]
    public var status: Severity

    public init(
        target: String, protocol proto: String, perClient: [LoadClientReport], rtts: [Double], durationSeconds: Double,
        thresholds: HeartbeatThresholds, interrupted: Bool = false
    ) {
        self.target = target
        self.interrupted = interrupted
        self.protocol = proto
        self.perClient = perClient
        clients = perClient.count
        connected = perClient.filter(\.connected).count
        failedConnects = clients - connected
        dropOuts = perClient.filter(\.droppedOut).count
        protocolFailures = perClient.filter(\.hungUp).count
        sent = perClient.reduce(0) { $0 + $1.sent }
        received = perClient.reduce(0) { $0 + $1.received }
        planned = perClient.reduce(0) { $0 + $1.planned }
        lossPercent = NumberText.percent(planned - received, of: planned) ?? 0
        rttMs = RTTSummary.of(rtts)
        self.durationSeconds = Kept.seconds(durationSeconds)
        let summary = RTTSummary.of(rtts)
        var f = HeartbeatAnalysis.findings(
            target: target, sent: planned, received: received,
            rtt: summary, connectionLost: false, t: thresholds)
        let failed = perClient.filter { !$0.connected }.count
        let dropped = perClient.filter(\.droppedOut).count
        if failed > 0 {
            f.append(
                Finding(
                    check: .loadConnects, severity: .critical, subject: target, value: Double(failed), threshold: 0, unit: "clients", source: "load",
                    message: "\(target): \(failed) of \(perClient.count) simulated devices could not connect"))
        }
        if let first = perClient.first(where: \.hungUp) {
            let n = perClient.filter(\.hungUp).count
            f.append(
                Finding(
                    check: .loadProtocol, severity: .critical, subject: target, value: Double(n), threshold: 0, unit: "clients", source: "load",
                    message:
                        "\(target): \(n) of \(perClient.count) simulated devices hung up on a protocol error (device \(first.client): \(first.error ?? "?"))"))
        }
        if dropped > 0 {
            f.append(
                Finding(
                    check: .loadDropouts, severity: .warning, subject: target, value: Double(dropped), threshold: 0, unit: "clients", source: "load",
                    message: "\(target): the server closed \(NumberText.count(dropped, "connection")) during the run"))
        }
        findings = f.sorted { $0.severity > $1.severity }
        status = findings.map(\.severity).max() ?? .ok
    }
}
