/// Every limit pushdiag grades against is one row here: its name (the configuration keys
/// `NAME_warning` and `NAME_critical`, the flags `--name-warning` and `--name-critical`), its unit,
/// which side of it is bad, the default warning and critical limits, the values it may take, where
/// the defaults come from, and what to do when a value passes them. Flags, configuration keys,
/// validation, help text, verdicts, Nagios perfdata and the defaults of every command read it.
public struct ThresholdRow: Sendable, Equatable, CustomStringConvertible {
    /// Which side of the limit is bad.
    public enum Bad: Sendable, Equatable { case above, below }
    /// `warning` or `critical`: the two limits of every row.
    public enum Level: String, Sendable, CaseIterable { case warning, critical }
    /// Where the row may be set: survey and report (`[thresholds]`), walk (`[walk]`), join
    /// (`[join]`); the raw value is the command's name.
    public enum Scope: String, Sendable, Equatable { case survey, walk, join }

    /// `utilization`, …: the stem of its keys and flags.
    public let name: String
    public let unit: ValueUnit
    public let bad: Bad
    /// The default limits; a nil critical never alerts unless one is set.
    public let warning: Double
    public let critical: Double?
    /// Every finite end of a range, and every plain number, must lie here.
    public let valid: ClosedRange<Double>
    /// What is measured, for help text ("Channel utilisation").
    public let what: String
    /// Where the defaults come from.
    public let reference: String
    /// What to do when a value passes the limits.
    public let hint: String
    public let scopes: [Scope]

    public var description: String { name }

    /// `utilization_warning`: the configuration key of a level.
    public func key(_ level: Level) -> String { "\(name)_\(level.rawValue)" }
    /// `--utilization-warning`: the flag of a level.
    public func flag(_ level: Level) -> String { "--" + key(level).replacingUnderscores() }

    /// The default limit of `level` as a range: a plain number N alerts above N (`N`, outside
    /// 0…N) where high values are bad and below N (`N:`) where low values are.
    public func defaultRange(_ level: Level) -> ThresholdRange {
        guard let v = level == .warning ? warning : critical else { return ThresholdRange("~:")! }
        return bad == .above ? ThresholdRange(upTo: v) : ThresholdRange(NumberText.format(v) + ":")!
    }

    /// What a flag or a configuration value means: a plain number is the limit on the bad side
    /// (the same in every command), anything else a Monitoring Plugins range; nil with the
    /// reason in words.
    public func parse(_ text: String) -> Result<ThresholdRange, ThresholdProblem> {
        let range: ThresholdRange?
        if let v = Double(text), v.isFinite, !text.hasPrefix("@") {
            // A number no limit of the row can be (-1 ms) is refused as that, not as a range
            // (for a high-bad row it would read 0…-1, which is none).
            guard valid.contains(v) else { return .failure(.outside(valid: valid, unit: unit)) }
            range = bad == .above ? ThresholdRange(text) : ThresholdRange(text + ":")
        } else {
            range = ThresholdRange(text)
        }
        guard let range else { return .failure(.notARange(examples: examples)) }
        for end in [range.start, range.end].compactMap({ $0 }) where !valid.contains(end) {
            return .failure(.outside(valid: valid, unit: unit))
        }
        return .success(range)
    }

    /// What a command that grades against one limit (walk) takes: the same input as `parse`, as
    /// long as it says one limit (a number, or a range open on the good side).
    public func parseLimit(_ text: String) -> Result<Double, ThresholdProblem> {
        switch parse(text) {
        case .failure(let why): return .failure(why)
        case .success(let r):
            guard let v = limit(of: r) else {
                let w = NumberText.format(warning)
                return .failure(.notOneLimit(examples: bad == .above ? "\(w) or ~:\(w)" : "\(w) or \(w):"))
            }
            return .success(v)
        }
    }

    /// Examples of the input `parse` takes, for the message that refuses one.
    public var examples: String {
        let w = NumberText.format(warning)
        return bad == .above ? "\(w) alerts above \(w); 10:\(w), ~:\(w), @10:20" : "\(w) or \(w): alerts below \(w); ~: never"
    }

    /// The help text of a flag, from the row.
    public func help(_ level: Level) -> String {
        let d = level == .warning ? warning : critical
        // survey and report grade on ranges; the other commands on one limit (`parseLimit`).
        let side = bad == .above ? "above" : "below"
        return "\(what) \(level.rawValue) limit, \(unit.rawValue): a number alerts \(side) it, as a range open on the good side does "
            + "(\(bad == .above ? "~:N" : "N:")\(scopes.contains(.survey) ? "; survey and report take any Monitoring Plugins range" : "")) "
            + "(default \(d.map { NumberText.format($0) } ?? "none")\(level == .critical ? "; \(reference)" : ""))."
    }

    /// A share of a limit (the `safe_interval` row: percent) graded as the share rows take it:
    /// CRITICAL at or past the critical limit (a heartbeat spacing equal to the limit is lost),
    /// WARNING past the warning limit, OK otherwise. The same for the safe interval and the NAT
    /// idle timeout (`IdleTimeout.margin`).
    public func severity(_ share: Double, ranges: SurveyLimits) -> Severity {
        let atCritical = limit(of: ranges.critical).map { bad == .above ? share >= $0 : share <= $0 } ?? false
        if atCritical || ranges.critical.alerts(share) { return .critical }
        return ranges.warning.alerts(share) ? .warning : .ok
    }

    /// The row's default ranges.
    public var defaultLimits: SurveyLimits { SurveyLimits(warning: defaultRange(.warning), critical: defaultRange(.critical)) }

    /// The one-sided limit a range sets (`80` for `80` or `0:80` above, `-67` for `-67:` below);
    /// nil for a range with two ends or an inside range.
    public func limit(of r: ThresholdRange) -> Double? {
        guard !r.inside else { return nil }
        switch bad {
        case .above: return r.start == 0 || r.start == nil ? r.end : nil
        case .below: return r.end == nil ? r.start : nil
        }
    }
}

/// Why a threshold's text was refused.
extension ThresholdRow {
    /// The limits a command's flags give, keyed as the configuration keys them (`loss_warning`):
    /// each text read by its row as one limit (a number, or a range open on the good side), the
    /// same way in every command. Flags not given are left out.
    public static func limits(flags typed: [(ThresholdRow, Level, String?)]) -> Result<[String: Double], SettingsError> {
        var values: [String: Double] = [:]
        for case (let row, let level, let text?) in typed {
            switch row.parseLimit(text) {
            case .failure(let why): return .failure(.usage("\(row.flag(level)): '\(text)' is \(why)"))
            case .success(let v): values[row.key(level)] = v
            }
        }
        return .success(values)
    }

    /// Why a warning and a critical limit of this row are the wrong way round (nil when they are
    /// not): on the way from good to bad the warning comes first. `name` spells a level (the flag,
    /// by default; a configuration key where the limits came from a file).
    public func orderProblem(warning w: Double, critical c: Double, name: ((Level) -> String)? = nil) -> String? {
        let name = name ?? { flag($0) }
        let (low, lowValue, high, highValue) = bad == .above ? (Level.warning, w, Level.critical, c) : (Level.critical, c, Level.warning, w)
        guard lowValue > highValue else { return nil }
        return "\(name(low)) (\(NumberText.format(lowValue))) must not be above \(name(high)) (\(NumberText.format(highValue)))"
    }
}

public enum ThresholdProblem: Error, Equatable, CustomStringConvertible {
    case notARange(examples: String)
    case outside(valid: ClosedRange<Double>, unit: ValueUnit)
    case notOneLimit(examples: String)

    public var description: String {
        switch self {
        case .notARange(let e): return "not a range or a number (examples: \(e))"
        case .notOneLimit(let e): return "not one limit (a number, or a range open on the good side: \(e))"
        case .outside(let v, let u): return "outside \(NumberText.format(v.lowerBound))…\(NumberText.format(v.upperBound)) \(u.rawValue)"
        }
    }
}

extension ThresholdRow {
    static let anyMs: ClosedRange<Double> = 0...86_400_000

    public static let utilization = ThresholdRow(
        name: "utilization", unit: .percent, bad: .above, warning: 32, critical: 40, valid: 0...100, what: "Channel utilisation",
        reference: "Apple's limit for Local Push Connectivity networks, 40% or less (warning at 80% of it)",
        hint: "move the SSID to a less used channel", scopes: [.survey])
    public static let retransmission = ThresholdRow(
        name: "retransmission", unit: .percent, bad: .above, warning: 12, critical: 15, valid: 0...100, what: "Retransmissions",
        reference: "Apple's limit, no more than 15% of traffic (warning at 80% of it)",
        hint: "look for interference and weak coverage, lower the AP transmit power steps, remove low data rates", scopes: [.survey])
    public static let loss = ThresholdRow(
        name: "loss", unit: .percent, bad: .above, warning: 1, critical: 5, valid: 0...100, what: "Heartbeat loss",
        reference: "a push provider checks its heartbeat every 60 s: sustained loss shows on the devices",
        hint: "check the push server's load and the path to it", scopes: [.survey])
    public static let rtt = ThresholdRow(
        name: "rtt", unit: .ms, bad: .above, warning: 200, critical: 1000, valid: anyMs, what: "Heartbeat p95 round trip",
        reference: "a push over a local network arrives in well under a second", hint: "check the push server's load and the path to it",
        scopes: [.survey])
    public static let signal = ThresholdRow(
        name: "signal", unit: .dBm, bad: .below, warning: IOSRoamingRule.coverage.value, critical: IOSRoamingRule.trigger.value, valid: -120...0,
        what: "The current AP's signal",
        reference: "\(IOSRoamingRule.triggerWords); voice-grade cells end at \(NumberText.format(IOSRoamingRule.coverage.value)) dBm",
        hint: "add or move an AP, or raise its power", scopes: [.survey, .walk])
    public static let snr = ThresholdRow(
        name: "snr", unit: .dB, bad: .below, warning: 25, critical: nil, valid: -50...120, what: "Signal over noise",
        reference: "none unless set", hint: "look for interference on the channel, or a stronger signal", scopes: [.survey])
    public static let certificate = ThresholdRow(
        name: "certificate", unit: .days, bad: .below, warning: 30, critical: 7, valid: -36_500...36_500, what: "Days left on a TLS push server's certificate",
        reference: "devices refuse an expired certificate", hint: "renew it before devices refuse it", scopes: [.survey])
    public static let safeInterval = ThresholdRow(
        name: "safe_interval", unit: .percent, bad: .above, warning: 50, critical: 100, valid: 0...1000,
        what:
            "The server's heartbeat spacing as a share of the longest safe interval (--join-limits) or of the path's idle timeout (heartbeat's --idle-timeout, a server's idle_timeout)",
        reference:
            "at 100% and past it the AP or the NAT forgets a quiet device before its next heartbeat; at 50% and under one late or lost heartbeat still comes in time (as heartbeat --idle-timeout judges)",
        hint: "set the push server's heartbeat interval under half the longest safe interval", scopes: [.survey])

    /// Why a `safe_interval` limit (`name`: its flag or key) set with nothing to grade says
    /// nothing; `takes` names what the command grades it against (heartbeat's flags, survey's
    /// flags and configuration).
    public static func safeIntervalAlone(_ name: String, takes: String) -> String {
        "\(name) goes with \(takes): it grades against the limits a join found or the path's idle timeout"
    }

    public static let ftGap = ThresholdRow(
        name: "ft_gap", unit: .ms, bad: .above, warning: 80, critical: 150, valid: anyMs, what: "An 802.11r roam's link gap",
        reference: "pushdiag's walk default", hint: "check 802.11r on every AP of the SSID", scopes: [.walk])
    public static let roamGap = ThresholdRow(
        name: "roam_gap", unit: .ms, bad: .above, warning: 100, critical: 300, valid: anyMs, what: "Another roam's link gap",
        reference: "pushdiag's walk default", hint: "enable 802.11r on every AP of the SSID",
        scopes: [.walk])

    /// Read by the stall analysis alone (no flag or key yet: `scopes` is empty).
    public static let stallMargin = ThresholdRow(
        name: "stall_margin", unit: .ms, bad: .above, warning: 30, critical: nil, valid: 0...60_000,
        what: "How much slower than the run's p95 a heartbeat's round trip must be to count as a stall",
        reference:
            "mac80211 leaves the operating channel for at least 30 ms per channel it scans (IEEE80211_CHANNEL_TIME, net/mac80211/ieee80211_i.h): a heartbeat caught by a scan is that much late",
        hint: "the stall's cause says where the time went", scopes: [])

    public static let joinLink = ThresholdRow(
        name: "join_link", unit: .ms, bad: .above, warning: 1000, critical: 3000, valid: anyMs, what: "A rejoin's scan, authentication and association",
        reference:
            "mac80211 resends authentication and association after 200 ms each, 3 tries (IEEE80211_AUTH_TIMEOUT, IEEE80211_ASSOC_TIMEOUT, net/mac80211/mlme.c); past 1 s the scan crossed many channels or frames were lost",
        hint: "limit the SSID to few channels and check for frames lost near the AP", scopes: [.join])
    public static let joinKeys = ThresholdRow(
        name: "join_keys", unit: .ms, bad: .above, warning: 1000, critical: 4000, valid: anyMs, what: "A rejoin's 802.1X and 4-way handshake",
        reference:
            "hostapd resends 4-way message 1 after 100 ms and later messages after 1 s (eapol_key_timeout_first, eapol_key_timeout_subseq, src/ap/wpa_auth.c); past 1 s a key message was lost, past 4 s several",
        hint: "check the RADIUS server's latency and frames lost during the handshake", scopes: [.join])
    public static let joinAddress = ThresholdRow(
        name: "join_address", unit: .ms, bad: .above, warning: 1000, critical: 4000, valid: anyMs, what: "A rejoin's DHCP, address and gateway",
        reference: "RFC 2131 4.1: a DHCP client resends after 4 s (±1 s); past 4 s a DHCP message was lost",
        hint: "check the DHCP server or relay and its lease pool", scopes: [.join])
    public static let joinName = ThresholdRow(
        name: "join_name", unit: .ms, bad: .above, warning: 1000, critical: 5000, valid: anyMs, what: "A rejoin's DNS lookup of the push server",
        reference: "resolv.conf(5): the resolver asks again after 5 s (timeout); past 5 s a query went unanswered",
        hint: "check the DNS servers DHCP hands out", scopes: [.join])
    public static let joinPush = ThresholdRow(
        name: "join_push", unit: .ms, bad: .above, warning: 1000, critical: 3000, valid: anyMs,
        what: "A rejoin's TCP, TLS, hello and first heartbeat",
        reference: "RFC 6298 2.1: TCP resends a SYN after 1 s, then 2 s later; past 1 s a segment was lost or the server is slow, past 3 s twice",
        hint: "check the push server's load and the path to it", scopes: [.join])
    /// The steps' rows, whose limits push-ready's add up.
    static let joinSteps: [ThresholdRow] = [.joinLink, .joinKeys, .joinAddress, .joinName, .joinPush]
    public static let pushReady = ThresholdRow(
        name: "push_ready", unit: .ms, bad: .above, warning: joinSteps.map(\.warning).reduce(0, +),
        critical: joinSteps.map { $0.critical! }.reduce(0, +), valid: anyMs, what: "A rejoin from its start to push-ready",
        reference: "the sum of the \(joinSteps.dropLast().map(\.name).joined(separator: ", ")) and \(joinSteps.last!.name) limits",
        hint: "the slowest step says where the time went", scopes: [.join])

    /// The table, in the order help and the configuration list it.
    public static let all: [ThresholdRow] = [
        .utilization, .retransmission, .loss, .rtt, .signal, .snr, .certificate, .safeInterval, .ftGap, .roamGap, .pushReady, .joinLink, .joinKeys,
        .joinAddress, .joinName, .joinPush, .stallMargin,
    ]

    /// The rows a scope sets.
    public static func rows(_ scope: Scope) -> [ThresholdRow] { all.filter { $0.scopes.contains(scope) } }

    /// The row and level of a configuration key (`utilization_warning`) within a scope.
    public static func row(key: String, in scope: Scope) -> (ThresholdRow, Level)? {
        for r in rows(scope) {
            for l in Level.allCases where r.key(l) == key { return (r, l) }
        }
        return nil
    }

    /// What is wrong with one-limit values of a scope (`[walk]`, `[join]`: flags over the
    /// configuration, keyed as it keys them), in words; nil when nothing is. Every key must be a
    /// limit of the scope and every value a finite number within its row's range (keys in order,
    /// the first problem said), and each row's warning and critical limit, set or default, the
    /// right way round. `flags`, the keys a command's flags set: a limit the configuration set is
    /// named by its key, one a flag set or a default by its flag (nil: no flags here, every limit
    /// by its key).
    public static func problem(_ values: [String: Double], in scope: Scope, flags: Set<String>? = nil) -> SettingsError? {
        for (k, v) in values.sorted(by: { $0.key < $1.key }) {
            guard let (row, _) = row(key: k, in: scope) else { return .usage("\(scope.rawValue) threshold \(k): no such limit") }
            guard v.isFinite, row.valid.contains(v) else {
                return .usage("\(scope.rawValue) threshold \(k): '\(NumberText.format(v))' is \(ThresholdProblem.outside(valid: row.valid, unit: row.unit))")
            }
        }
        for row in rows(scope) {
            guard let c = values[row.key(.critical)] ?? row.critical else { continue }
            let name = { (l: Level) -> String in
                let key = row.key(l)
                guard let flags else { return key }
                return values[key] != nil && !flags.contains(key) ? key : row.flag(l)
            }
            if let why = row.orderProblem(warning: values[row.key(.warning)] ?? row.warning, critical: c, name: name) {
                return .usage("\(scope.rawValue) thresholds: \(why)")
            }
        }
        return nil
    }
}

extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? "-" : $0 }) }
}
