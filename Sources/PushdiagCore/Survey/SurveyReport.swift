/// The report model of `pushdiag survey`: one verdict per check, each with the value measured,
/// the threshold, and what to do about it; plus each part's own report.
public enum CheckStatus: String, Codable, Sendable, Comparable {
    case ok, warning, critical, unknown, skipped

    var rank: Int {
        switch self {
        case .skipped: return 0
        case .ok: return 1
        case .warning: return 2
        case .unknown: return 3
        case .critical: return 4
        }
    }

    public static func < (a: CheckStatus, b: CheckStatus) -> Bool { a.rank < b.rank }

    /// A grade as a check's status (`skipped` is a check's own: nothing graded).
    public init(_ severity: Severity) {
        switch severity {
        case .ok: self = .ok
        case .warning: self = .warning
        case .critical: self = .critical
        case .unknown: self = .unknown
        }
    }

    public var severity: Severity {
        switch self {
        case .ok, .skipped: return .ok
        case .warning: return .warning
        case .critical: return .critical
        case .unknown: return .unknown
        }
    }
}

public struct SurveyCheck: Codable, Sendable, Equatable {
    /// channel_utilization, retransmissions, frame_retries, heartbeat, route, roaming, …
    public var check: CheckName
    public var status: CheckStatus
    /// Interface, channel, BSS or server.
    public var subject: String
    @Nullable public var value: Double? = nil
    @Nullable public var unit: ValueUnit? = nil
    /// The warning and critical ranges the value was graded against; the JSON writes them
    /// "32 / 40" (Monitoring Plugins syntax).
    @Nullable public var threshold: SurveyLimits? = nil
    /// What to do, or why the check could not run.
    public var hint: String
    /// Where the value comes from (survey, radio_survey, bss_load, station_retries, tx_failed,
    /// retry_bit, …), when a check has more than one possible source.
    @Nullable public var source: String? = nil
}

/// A survey's limits: every survey row of `ThresholdRow`, its default ranges until flags or the
/// configuration set others.
/// A check's warning and critical ranges: ranges until a renderer formats them; the JSON writes
/// them as one string, "32 / 40" (its contract since the first survey).
public struct SurveyLimits: Codable, Sendable, Equatable, CustomStringConvertible {
    public var warning: ThresholdRange
    public var critical: ThresholdRange

    public init(warning: ThresholdRange, critical: ThresholdRange) {
        self.warning = warning
        self.critical = critical
    }

    /// Both ranges times `factor`: a share's limits (percent) as seconds of what it is a share of.
    public func scaled(by factor: Double) -> SurveyLimits { SurveyLimits(warning: warning.scaled(by: factor), critical: critical.scaled(by: factor)) }

    public var description: String { "\(warning) / \(critical)" }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        let parts = text.split(separator: " / ", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = ThresholdRange(String(parts[0])), let cr = ThresholdRange(String(parts[1])) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "threshold '\(text)' is not two ranges, 'WARN / CRIT'")
        }
        self.init(warning: w, critical: cr)
    }
}

public struct SurveyThresholds: Sendable, Equatable {
    /// The ranges by configuration key (`utilization_warning`, …).
    var ranges: [String: ThresholdRange] = [:]

    public init() {
        for row in ThresholdRow.rows(.survey) {
            for level in ThresholdRow.Level.allCases { ranges[row.key(level)] = row.defaultRange(level) }
        }
    }

    /// The range of a configuration key; setting a key no survey row has does nothing.
    public subscript(key: String) -> ThresholdRange? {
        get { ranges[key] }
        set { if let newValue, ranges[key] != nil { ranges[key] = newValue } }
    }

    /// A row's warning and critical ranges.
    public subscript(row: ThresholdRow) -> (warning: ThresholdRange, critical: ThresholdRange) {
        (ranges[row.key(.warning)] ?? row.defaultRange(.warning), ranges[row.key(.critical)] ?? row.defaultRange(.critical))
    }

    /// The one place a survey grades a value: critical if the critical range alerts, else warning
    /// if the warning range does.
    public func grade(_ v: Double, _ row: ThresholdRow) -> CheckStatus {
        let (w, c) = self[row]
        return c.alerts(v) ? .critical : w.alerts(v) ? .warning : .ok
    }

    /// The limits the wifi and capture parts grade their own findings with (a survey's `wifi` and
    /// `capture`): these ranges (`RangeGraded`), so that they say what the survey's checks say.
    public var air: Thresholds {
        var p = Thresholds()
        p.ranges = self
        return p
    }

    /// The limits each push server's heartbeat session grades its own findings with (a survey's
    /// `heartbeats[]`): these ranges, so that they say what the survey's checks say.
    public var heartbeat: HeartbeatThresholds {
        var h = HeartbeatThresholds()
        h.ranges = self
        h.safeInterval = limits(.safeInterval)
        return h
    }

    /// The ranges a check of `row` was graded against, carried with it to the renderers.
    func limits(_ row: ThresholdRow) -> SurveyLimits { SurveyLimits(warning: self[row].warning, critical: self[row].critical) }

    /// A check of a value graded on `row`: its grade, the row's limits, and the hint `hint` gives
    /// for that grade.
    func check(
        _ check: CheckName, _ row: ThresholdRow, subject: String, value v: Double, unit: ValueUnit, source: String?, hint: (CheckStatus) -> String
    ) -> SurveyCheck {
        let s = grade(v, row)
        return SurveyCheck(check: check, status: s, subject: subject, value: v, unit: unit, threshold: limits(row), hint: hint(s), source: source)
    }
}

public struct SurveyReport: Codable, Sendable, Equatable {
    public var status: Severity
    public var started: String
    public var durationSeconds: Double
    public var checks: [SurveyCheck]
    @Nullable public var wifi: WiFiReport?
    @Nullable public var capture: CaptureReport?
    public var heartbeats: [HeartbeatReport]
    @Nullable public var routes: RouteSetReport?
    /// SIGINT or SIGTERM cut the window short: what was measured until then (absent in reports
    /// written before pushdiag said so).
    public var interrupted: Bool?

    public init(
        started: Int64, durationSeconds: Double, checks: [SurveyCheck], wifi: WiFiReport?, capture: CaptureReport?, heartbeats: [HeartbeatReport],
        routes: RouteSetReport?, interrupted: Bool = false
    ) {
        self.interrupted = interrupted
        self.started = Timestamp.rfc3339(nanoseconds: started)
        self.durationSeconds = Kept.seconds(durationSeconds)
        self.checks = Self.distinct(checks)
        self.wifi = wifi
        self.capture = capture
        self.heartbeats = heartbeats
        self.routes = routes
        status = checks.map(\.status.severity).max() ?? .ok
    }

    /// A check and its subject name one Prometheus series and one Nagios label, and node_exporter
    /// refuses a whole textfile with a series in it twice: a pair seen again is numbered
    /// ("127.0.0.1 (2)").
    static func distinct(_ checks: [SurveyCheck]) -> [SurveyCheck] {
        var taken: Set<String> = []
        return checks.map { c in
            var c = c
            let base = c.subject
            var n = 1
            while !taken.insert(c.check.rawValue + "\u{0}" + c.subject).inserted {
                n += 1
                c.subject = "\(base) (\(n))"
            }
            return c
        }
    }
}

/// What each part measured → the verdict table, with hints grounded in Apple's guidance for
/// Local Push Connectivity networks.
public enum SurveyVerdicts {
    static func pct(_ v: Double) -> String { NumberText.format(v) + "%" }

    /// The limit a low-is-bad range (`-67:`) sets ("-67 dBm"), whatever the user set; the range
    /// itself where no one number says it.
    static func floor(_ row: ThresholdRow, _ t: SurveyThresholds) -> String {
        let r = t[row].warning
        return row.limit(of: r).map { "\(NumberText.format($0)) \(row.unit.rawValue)" } ?? "the range \(r)"
    }

    /// The limit a hint names: Apple's guidance (the row's default critical limit) while the
    /// critical range sets that number, however it was written (`40`, `40.0`, `~:40`); otherwise
    /// the limit the user set ("your limit of 10%"), or the range where no one number says it.
    static func limit(_ row: ThresholdRow, _ t: SurveyThresholds) -> (within: String, note: String) {
        let critical = t[row].critical
        let apple = NumberText.format(row.critical!)
        let mine = row.limit(of: critical)
        if mine == row.critical {
            return ("within Apple's guidance (\(apple)% or less)", "Apple: \(apple)% or less")
        }
        let text = mine.map { "\(NumberText.format($0))%" } ?? "the range \(critical)"
        return ("within your limit of \(text)", "your limit: \(text); Apple's: \(apple)% or less")
    }

    public static func wifi(_ r: WiFiReport, t: SurveyThresholds) -> [SurveyCheck] {
        var out: [SurveyCheck] = []
        let channel = r.channel.map { "channel \($0)" } ?? r.frequencyMhz.map { "\($0) MHz" }
        let onChannel = channel.map { "\(r.interface) \($0)" } ?? r.interface
        let band = WiFiBand(frequencyMhz: r.frequencyMhz)
        if let u = r.channelUtilizationPercent {
            // Which source decided, in words.
            let from =
                switch r.channelUtilizationSource {
                case .bssLoad: "; from the AP's BSS Load (its own figure: the driver measures no busy time)"
                case .radioSurvey: "; from the radio-wide survey (no entry for the channel)"
                default: "; from the channel's survey"
                }
            out.append(
                t.check(.channelUtilization, .utilization, subject: onChannel, value: u, unit: .percent, source: r.channelUtilizationSource?.rawValue) {
                    ($0 == .ok
                        ? limit(.utilization, t).within
                        : "\(channel ?? r.interface) is \(pct(u)) busy: \(ThresholdRow.utilization.hint)"
                            + (band == .twoPointFourGHz ? " or reduce 2.4 GHz coverage" : "")
                            + " (\(limit(.utilization, t).note))") + from
                })
        } else {
            out.append(
                SurveyCheck(
                    check: .channelUtilization, status: .unknown, subject: onChannel,
                    hint: r.utilizationUnknown ?? "not derivable from this interface"))
        }
        let link = r.bssid.map { "\(r.interface) → \($0)" } ?? r.interface
        // A share wifi did not judge (over too few frames) is UNKNOWN here too, its counts in the
        // hint, as the capture's frame_retries over too few frames.
        if let x = r.retransmissionPercent, !r.retransmissionTooFewFrames {
            var s = t.grade(x, .retransmission)
            let lowerBound = r.retransmissionTrust == .lowerBound
            var hint =
                s == .ok
                ? limit(.retransmission, t).within
                : "\(pct(x))\(lowerBound ? " at least" : "") of frames are retransmitted: \(ThresholdRow.retransmission.hint) (\(limit(.retransmission, t).note))"
            // A lower bound within the limits proves nothing: the retransmissions are not known.
            if lowerBound && s == .ok {
                s = .unknown
                hint =
                    (r.retransmissionsUnknown ?? "retries not reported by the driver")
                    + " (at least \(pct(x))): not enough to call it within the limits"
            } else {
                hint +=
                    r.retransmissionSource == .txFailed
                    ? "; from frames given up (a lower bound)" : "; from the station's retry counters" + (lowerBound ? " (an undercount)" : "")
            }
            out.append(
                SurveyCheck(
                    check: .retransmissions, status: s, subject: link, value: x, unit: .percent,
                    threshold: t.limits(.retransmission), hint: hint, source: r.retransmissionSource?.rawValue))
        } else {
            // Over too few frames the share is the link's, as a judged one is (one series).
            out.append(
                SurveyCheck(
                    check: .retransmissions, status: .unknown,
                    subject: r.retransmissionTooFewFrames ? link : r.interface,
                    hint: r.retransmissionsUnknown ?? "not derivable from this interface"))
        }
        if let sig = r.signalDbm {
            out.append(
                t.check(.signal, .signal, subject: link, value: Double(sig), unit: .dBm, source: SignalSource.station.rawValue) {
                    $0 == .ok
                        ? "\(sig) dBm: at or above \(Self.floor(.signal, t)) (\(IOSRoamingRule.triggerWords))"
                        : "\(sig) dBm here: \(ThresholdRow.signal.hint), so that devices hear \(Self.floor(.signal, t)) or better where they are used"
                })
        } else if r.bssid != nil {
            out.append(
                SurveyCheck(
                    check: .signal, status: .unknown, subject: link,
                    hint: r.signalUnknown ?? "the driver reports no signal for its AP",
                    source: nil))
        }
        if let snr = r.snrDb, let noise = r.noiseDbm {
            out.append(
                t.check(.snr, .snr, subject: link, value: Double(snr), unit: .dB, source: "station_and_survey") {
                    $0 == .ok
                        ? "\(snr) dB over the noise floor (\(noise) dBm)"
                        : "\(snr) dB over a noise floor of \(noise) dBm, under \(Self.floor(.snr, t)): \(ThresholdRow.snr.hint)"
                })
        }
        out.append(roaming(r.bss.map { ($0.bssid, $0.ssid, $0.fastTransition, $0.radioMeasurement, $0.bssTransition) }, source: "scan"))
        // (The current AP's figure is already the utilisation check when it stood in for the survey.)
        out += r.bss.filter { !($0.current && r.channelUtilizationSource == .bssLoad) }.compactMap { b in
            b.bssLoad.flatMap { bssLoad(b.bssid, $0.channelUtilizationPercent, t: t, advice: ": move it to a less used channel") }
        }
        return out
    }

    /// A BSS whose BSS Load element advertises its channel above the utilisation limits (nil
    /// when it does not: an AP's own figure within the limits adds nothing to the table).
    static func bssLoad(_ bssid: MACAddress, _ percent: Double, t: SurveyThresholds, advice: String) -> SurveyCheck? {
        let s = t.grade(percent, .utilization)
        guard s != .ok else { return nil }
        return SurveyCheck(
            check: .channelUtilization, status: s, subject: "\(bssid) (BSS Load)", value: percent, unit: .percent,
            threshold: t.limits(.utilization),
            hint:
                "the AP advertises its channel \(pct(percent)) busy\(advice) (\(limit(.utilization, t).note))"
        )
    }

    /// 802.11r/k/v on every BSS of the SSID, as the scan cache or a capture (`source`) saw them.
    static func roaming(_ bss: [(MACAddress, String?, Bool, Bool, Bool)], source: String) -> SurveyCheck {
        guard !bss.isEmpty else { return SurveyCheck(check: .roaming, status: .unknown, subject: source, hint: "no BSS of the SSID seen") }
        var missing: [String] = []
        if bss.contains(where: { !$0.2 }) { missing.append("802.11r (fast transition)") }
        if bss.contains(where: { !$0.3 }) { missing.append("802.11k (radio measurement)") }
        if bss.contains(where: { !$0.4 }) { missing.append("802.11v (BSS transition)") }
        let ssid = bss.first?.1 ?? "the SSID"
        let full = bss.filter { $0.2 && $0.3 && $0.4 }.count
        return SurveyCheck(
            check: .roaming, status: missing.isEmpty ? .ok : .warning, subject: "\(ssid), \(bss.count) BSS (\(source))", value: Double(full), unit: .bss,
            hint: missing.isEmpty
                ? "every BSS offers 802.11r, 802.11k and 802.11v"
                : "enable \(missing.joined(separator: ", ")) on every AP of \(ssid): devices roam faster and keep their push connection")
    }

    public static func capture(_ r: CaptureReport, t: SurveyThresholds) -> [SurveyCheck] {
        var out: [SurveyCheck] = []
        let subject = r.file ?? "capture"
        let fewest = Thresholds().minimumFrames
        if let x = r.retryPercent, Thresholds().judgesRetries(over: r.retryBase) {
            out.append(
                t.check(.frameRetries, .retransmission, subject: subject, value: x, unit: .percent, source: nil) {
                    $0 == .ok
                        ? "retry bit on \(pct(x)) of \(NumberText.count(r.retryBase, "frame"))"
                        : "\(pct(x)) of the frames on the air are retries: find the interference or the weak cell (\(limit(.retransmission, t).note))"
                })
        } else {
            out.append(
                SurveyCheck(check: .frameRetries, status: .unknown, subject: subject, hint: r.error ?? "fewer than \(fewest) valid 802.11 frames captured"))
        }
        for c in r.channels {
            guard let u = c.utilizationPercent else { continue }
            let airtime = "\(c.channel.map { "channel \($0)" } ?? "\(c.frequencyMhz) MHz") (airtime)"
            out.append(
                t.check(.channelUtilization, .utilization, subject: airtime, value: u, unit: .percent, source: nil) {
                    $0 == .ok
                        ? "airtime of the frames captured; a lower bound"
                        : "frames seen fill \(pct(u)) of the air: move busy SSIDs apart (\(limit(.utilization, t).note))"
                })
        }
        out += r.bss.filter { $0.beacons > 0 }.compactMap { b in
            b.bssLoad.flatMap { bssLoad(b.bssid, $0.channelUtilizationMeanPercent, t: t, advice: "") }
        }
        let aps = r.bss.filter { $0.beacons > 0 }
        if !aps.isEmpty {
            out.append(roaming(aps.map { ($0.bssid, $0.ssid, $0.fastTransition, $0.radioMeasurement, $0.bssTransition) }, source: "capture"))
        }
        if !r.roamingEvents.isEmpty {
            let gaps = r.roamingEvents.compactMap(\.gapMs)
            out.append(
                SurveyCheck(
                    check: .roams, status: .ok, subject: subject, value: Double(r.roamingEvents.count), unit: .roams,
                    hint: "\(NumberText.count(r.roamingEvents.count, "roam")) seen" + (gaps.max().map { ", longest gap \(NumberText.format($0)) ms" } ?? "")))
        }
        return out
    }

    public static func heartbeat(_ r: HeartbeatReport, t: SurveyThresholds) -> SurveyCheck {
        if let e = r.error, r.received == 0 {
            // The heartbeat client has judged it: a refused or broken connection, or a certificate
            // devices would refuse, is a critical finding; a name this machine cannot resolve is
            // not (the check could not run).
            guard let f = r.findings.first, f.severity == .critical else {
                return SurveyCheck(check: .heartbeat, status: .unknown, subject: r.target, hint: e)
            }
            return SurveyCheck(
                check: .heartbeat, status: .critical, subject: r.target,
                hint: f.check == .tls ? "\(f.message): devices will refuse this server's certificate too" : f.message)
        }
        let loss = r.lossPercent
        var s = t.grade(loss, .loss)
        if let p95 = r.rttMs?.p95 { s = max(s, t.grade(p95, .rtt)) }
        if r.connectionLost { s = .critical }
        let rtt = r.rttMs.map { "p95 \(NumberText.format($0.p95)) ms" } ?? "no answer"
        return SurveyCheck(
            check: .heartbeat, status: s, subject: r.target, value: loss, unit: .percent, threshold: t.limits(.loss),
            hint: s == .ok
                ? "\(NumberText.format(loss))% lost: \(r.received)/\(r.sent) answered, \(rtt)"
                : "\(r.received)/\(r.sent) answered, \(rtt): devices will miss pushes and reconnect; \(ThresholdRow.loss.hint)")
    }

    /// The server's heartbeat spacing against the path's idle timeout, where the configuration
    /// gives one (`idle_timeout`), graded on the survey's `safe_interval` limits; UNKNOWN until
    /// two of the server's heartbeats were seen.
    public static func idleTimeout(_ r: HeartbeatReport, t: SurveyThresholds) -> SurveyCheck? {
        guard let sh = r.serverHeartbeats, let idle = sh.pathIdleTimeoutS else { return nil }
        let ranges = t.limits(.safeInterval)
        let threshold = ranges.scaled(by: idle / 100)
        guard let m = IdleTimeout.margin(sh, pathTimeoutS: idle, ranges: ranges) else {
            return SurveyCheck(
                check: .idleTimeout, status: .unknown, subject: r.target, unit: .seconds, threshold: threshold,
                hint:
                    sh.registered
                    ? "the server's heartbeat interval is not known: none of its heartbeats came during the survey; survey for longer than its interval"
                    : "the server's heartbeat interval is not known: the registration was not accepted",
                source: "server_heartbeats")
        }
        return SurveyCheck(
            check: .idleTimeout, status: CheckStatus(m.severity), subject: r.target, value: m.longestS, unit: .seconds,
            threshold: threshold,
            hint: m.message, source: "server_heartbeats")
    }

    /// The server's heartbeat spacing against the longest safe interval a join found on this path
    /// (`--join-limits`, `join_limits`), as the heartbeat graded it; nil without it, skipped for a
    /// server that does not register (it sends no heartbeats to see). Its value
    /// and limits are seconds (the row's percent of the safe interval).
    public static func safeInterval(_ r: HeartbeatReport) -> SurveyCheck? {
        guard let c = r.safeInterval else { return nil }
        return SurveyCheck(
            check: .safeInterval, status: c.skipped ? .skipped : CheckStatus(c.severity), subject: r.target,
            value: c.serverLongestS,
            unit: .seconds, threshold: c.thresholdSeconds, hint: c.message, source: c.limits.safeSource?.rawValue)
    }

    /// The certificate a TLS push server presented, by the days it has left (devices refuse an
    /// expired one); nil without TLS or when the handshake showed none.
    public static func certificate(_ r: HeartbeatReport, t: SurveyThresholds) -> SurveyCheck? {
        guard let tls = r.tls else { return nil }
        let days = Double(tls.daysLeft)
        let s = t.grade(days, .certificate)
        return SurveyCheck(
            check: .tlsCertificate, status: s, subject: r.target, value: days, unit: .days,
            threshold: t.limits(.certificate),
            hint: tls.daysLeft < 0
                ? "the certificate expired on \(tls.notAfter): devices refuse this server; renew it"
                : s == .ok ? "expires \(tls.notAfter)" : "the certificate expires in \(tls.daysLeft) days (\(tls.notAfter)): \(ThresholdRow.certificate.hint)")
    }

    public static func route(_ r: RouteReport) -> SurveyCheck {
        let via = [r.interface.map { "via \($0)" }, r.vlanId.map { "VLAN \($0)" }, r.gateway.map { "gateway \($0) \(r.gatewayState?.rawValue ?? "")" }]
            .compactMap { $0 }
            .joined(separator: ", ")
        switch r.status {
        case .ok:
            return SurveyCheck(check: .route, status: .ok, subject: r.destination, hint: via.isEmpty ? "routed" : via)
        case .unknown:
            return SurveyCheck(check: .route, status: .unknown, subject: r.destination, hint: r.error ?? "could not check")
        default:
            return SurveyCheck(
                check: .route, status: CheckStatus(r.status), subject: r.destination,
                hint: (r.findings.first?.message ?? "") + ": every VLAN with devices needs a route to the push server")
        }
    }
}
