import FoundationEssentials

/// The limits a `join --find-ap-idle` run found on a path, as survey and heartbeat take them
/// (`--join-limits`, `join_limits`): the BSS Max Idle Period the AP advertised, the longest
/// silence the AP kept (or, when it kept none, the silence it dropped the station after: an upper
/// bound), and the NAT/firewall idle timeout join was given; the longest safe heartbeat interval
/// is the lowest of them (`APIdleReport.conclude` decided it; this carries it). Each of the three
/// is here, measured or UNKNOWN with the reason.
public struct JoinLimits: Codable, Sendable, Equatable {
    /// One limit: where it comes from, its value, or why there is none.
    public struct Limit: Codable, Sendable, Equatable {
        public var source: APIdle.Limit.Source
        @Nullable public var seconds: Double?
        /// Why it is not known; nil when it is.
        @Nullable public var unknown: String?

        /// For people: "BSS Max Idle advertised 39.936s", "AP kept 3.02s", "NAT idle timeout UNKNOWN (…)".
        public var text: String {
            let name = source.label
            // A drop at the first rung is all the ladder found: an upper bound, not a safe value.
            let bound = source == .apDropped ? " (an upper bound: nothing shorter was kept)" : ""
            return seconds.map { "\(name) \(DurationText.format($0))\(bound)" } ?? "\(name) UNKNOWN (\(unknown ?? "not measured"))"
        }
    }

    /// Where the limits were read: the join report's file, or the history and which run of it.
    public var from: String
    /// The join's interface.
    public var interface: String
    /// The join's first cycle's start (RFC 3339), when it had one.
    @Nullable public var joinStarted: String?
    /// Every limit the join knows, lowest first, then the ones it does not know.
    public var limits: [Limit]
    /// The lowest measured limit: the longest safe heartbeat interval on this path; nil when the
    /// join measured none.
    @Nullable public var safeIntervalS: Double?
    @Nullable public var safeSource: APIdle.Limit.Source?

    /// The limits of a join's `ap_idle`, each of the three sources present (UNKNOWN with the reason
    /// where the join did not find it).
    public init(apIdle a: APIdleReport, interface: String, joinStarted: String?, from: String) {
        self.from = from
        self.interface = interface
        self.joinStarted = joinStarted
        var list = a.limits.sorted { $0.seconds < $1.seconds }.map { Limit(source: $0.source, seconds: $0.seconds, unknown: nil) }
        let has = Set(a.limits.map(\.source))
        if !has.contains(.bssMaxIdle) {
            list.append(Limit(source: .bssMaxIdle, seconds: nil, unknown: "the AP's association response carried no BSS Max Idle Period"))
        }
        if !has.contains(.apKept) && !has.contains(.apDropped) {
            let why = a.interrupted ? "the ladder was interrupted before a rung was silent and checked" : "no rung of the ladder was silent and checked"
            list.append(Limit(source: .apKept, seconds: nil, unknown: why))
        }
        if !has.contains(.pathIdleTimeout) {
            list.append(Limit(source: .pathIdleTimeout, seconds: nil, unknown: "not given to join (--idle-timeout, as heartbeat --find-idle-timeout finds it)"))
        }
        limits = list
        safeIntervalS = a.safeIntervalS
        safeSource = a.safeIntervalS == nil ? nil : a.limits.min { $0.seconds < $1.seconds }?.source
    }

    /// The limits as one line: "BSS Max Idle advertised 39.936s; AP kept 3.02s; NAT idle timeout UNKNOWN (…)".
    public var summary: String { limits.map(\.text).joined(separator: "; ") }

    /// Where they come from, for people: "fixtures/x.json (join on wlan2, 2026-11-26T10:43:01Z)".
    public var origin: String { "\(from) (join on \(interface)\(joinStarted.map { ", \($0)" } ?? ""))" }
}

/// Why a join's limits could not be read: its kind, and one line naming the file.
public struct JoinLimitsError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file could not be read, or a history holds no such join.
        case unreadable
        /// Not JSON, or not a join report.
        case notAJoinReport
        /// A join report without `ap_idle`: join ran without --find-ap-idle.
        case noAPIdle
        /// A number that cannot be a limit.
        case badValue
    }
    public var kind: Kind
    public var description: String
    public init(_ kind: Kind, _ description: String) { (self.kind, self.description) = (kind, description) }
}

extension JoinLimits {
    /// The parts of a join report (`join --format json`, or a history's `joins.report`) the limits
    /// come from.
    struct Wire: Decodable {
        struct Cycle: Decodable { var start: String? }
        var interface: String
        var cycles: [Cycle]?
        @Nullable var apIdle: APIdleReport?
    }

    /// A join report's limits; `file` names it in every message (and `from` in the result).
    public static func decode(_ bytes: [UInt8], file: String, from: String? = nil) -> Result<JoinLimits, JoinLimitsError> {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        let w: Wire
        do { w = try d.decode(Wire.self, from: Data(bytes)) } catch {
            return .failure(JoinLimitsError(.notAJoinReport, "cannot read \(file): not a join report (\(Self.why(error)))"))
        }
        guard let a = w.apIdle else {
            return .failure(JoinLimitsError(.noAPIdle, "cannot read \(file): the join report has no ap_idle (run join --find-ap-idle)"))
        }
        // Numbers a person or another program may have written: seconds within a year, the safe
        // interval the lowest of them.
        for (i, l) in a.limits.enumerated() where !(l.seconds > 0 && l.seconds <= 31_536_000) {
            return .failure(JoinLimitsError(.badValue, "cannot read \(file): ap_idle.limits[\(i)].seconds is \(l.seconds), not a number of seconds above 0"))
        }
        guard a.safeIntervalS == a.limits.map(\.seconds).min() else {
            return .failure(JoinLimitsError(.badValue, "cannot read \(file): ap_idle.safe_interval_s is not the lowest of ap_idle.limits"))
        }
        return .success(JoinLimits(apIdle: a, interface: w.interface, joinStarted: w.cycles?.first?.start ?? nil, from: from ?? file))
    }

    /// A decoding error in one line: where in the JSON, and what.
    static func why(_ error: any Error) -> String {
        func path(_ c: [any CodingKey]) -> String {
            let p = c.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return p.isEmpty ? "" : "\(p.hasPrefix(".") ? String(p.dropFirst()) : p): "
        }
        let text: String
        switch error as? DecodingError {
        case .keyNotFound(let k, let c)?: text = "\(path(c.codingPath))no \(k.stringValue)"
        case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .dataCorrupted(let c)?:
            text = "\(path(c.codingPath))\(c.debugDescription)"
        default: text = "\(error)"
        }
        return String(text.prefix(200).map { $0.isNewline ? " " : $0 })
    }
}

/// The server's heartbeat spacing against the longest safe heartbeat interval a join found: graded
/// once here (on the `safe_interval` row, the longest spacing as a share of the safe interval),
/// for heartbeat's finding and survey's check alike. The JSON's `safe_interval`.
public struct SafeIntervalCheck: Codable, Sendable, Equatable {
    public var limits: JoinLimits
    /// The server's heartbeats: the median and longest spacing, seconds; nil when not seen.
    @Nullable public var serverMedianS: Double?
    @Nullable public var serverLongestS: Double?
    /// The longest spacing as a share of the safe interval.
    @Nullable public var percent: Double?
    /// The ranges it was graded with (percent), and the same in seconds of this safe interval.
    public var threshold: SurveyLimits
    @Nullable public var thresholdSeconds: SurveyLimits?
    public var severity: Severity
    /// The server does not register (no `register`, no `--register`): it sends no heartbeats
    /// pushdiag sees, so there is nothing to grade; survey marks the check skipped.
    public var skipped: Bool = false
    public var message: String

    /// The grade: UNKNOWN with the reason when the join measured no limit or the server's
    /// spacing was not seen (fewer than two of its heartbeats; skipped when it does not register).
    public static func grade(_ server: ServerHeartbeats?, limits l: JoinLimits, ranges: SurveyLimits) -> SafeIntervalCheck {
        var c = SafeIntervalCheck(
            limits: l, serverMedianS: nil, serverLongestS: nil, percent: nil, threshold: ranges, thresholdSeconds: nil, severity: .unknown, message: "")
        let limits = "limits from \(l.origin): \(l.summary)"
        guard server != nil else {
            c.skipped = true
            c.message =
                "skipped: the server does not register, and pushdiag sees its heartbeats only when it does (register = NAME in the server's [[server]] table, or --register); \(limits)"
            return c
        }
        guard let safe = l.safeIntervalS, let source = l.safeSource else {
            c.message = "the join measured no limit, so the longest safe heartbeat interval is not known; \(limits)"
            return c
        }
        let f = safe / 100
        c.thresholdSeconds = ranges.scaled(by: f)
        let safeText =
            "the longest safe heartbeat interval on this path, \(DurationText.format(safe)) (\(l.limits.first { $0.source == source }?.text ?? source.words))"
        guard let sh = server, sh.registered else {
            c.message = "the server's heartbeat interval is not known: the registration was not accepted; against \(safeText); \(limits)"
            return c
        }
        guard let spacing = sh.spacingS else {
            c.message =
                "the server's heartbeat interval is not known: none of its heartbeats came twice during the run; run for longer than its interval; against \(safeText); \(limits)"
            return c
        }
        // Graded on the share as the idle-timeout margin is (`IdleTimeout.share`: 0.304 s of 0.6 s
        // is 50.6667%, a warning; 2.004 s of 4 s is 50.1%, beside a spacing printed "2s"); the
        // spacings kept to the millisecond.
        let (median, longest) = (Kept.seconds(spacing.median), Kept.seconds(spacing.longest))
        let pct = IdleTimeout.share(spacing.longest, of: safe)
        (c.serverMedianS, c.serverLongestS, c.percent) = (median, longest, pct)
        c.severity = ThresholdRow.safeInterval.severity(pct, ranges: ranges)
        // A drop at the first rung is only an upper bound: nothing shorter was seen kept, so no
        // spacing under it is known to be safe.
        if source == .apDropped { c.severity = max(c.severity, .warning) }
        let every = IdleTimeout.spacingWords(medianS: median, longestS: longest, percent: pct, ranges: ranges, of: safeText)
        let forgets =
            switch source {
            case .apKept: "longer than any silence the AP was seen to keep"
            case .apDropped: "at or past the silence the AP dropped the station after"
            case .bssMaxIdle: "the AP forgets a quiet device after its BSS Max Idle Period, before its next heartbeat"
            case .pathIdleTimeout: "the NAT forgets a quiet device's connection before its next heartbeat"
            }
        let verdict =
            switch c.severity {
            case .warning where source == .apDropped && pct < 100:
                "the AP kept no silence this short (the join's first rung was dropped, an upper bound only): shorten the ladder's first rung (join --find-ap-idle --ladder) to find a safe interval"
            // Said to be lost only at or past the interval, as the idle-timeout margin says it.
            case .critical where pct >= 100: "\(forgets): set the server's interval under \(DurationText.format(safe)) (\(IdleTimeout.better(ranges)))"
            case _ where pct >= 100: "at or past it, short of the critical limit set past it (\(ranges.critical)%)"
            case .critical, .warning:
                "too close to it: one late or lost heartbeat and the device is forgotten (\(IdleTimeout.better(ranges)))"
                    + (source == .apDropped ? "; the AP's drop is an upper bound only" : "")
            default: "within the margin"
            }
        c.message = "\(every): \(verdict); \(limits)"
        return c
    }
}

extension ServerHeartbeats {
    /// The server's heartbeat spacing, median and longest, seconds; nil until two of its
    /// heartbeats (or the registration and one) were seen. Unrounded: graded as measured.
    public var spacingS: (median: Double, longest: Double)? {
        guard registered, let spacing = intervalMs, spacing.max > 0 else { return nil }
        return (spacing.median / 1000, spacing.max / 1000)
    }
}

extension ThresholdRange {
    /// The same range with its ends multiplied by `f` (a share's range as seconds of a limit).
    public func scaled(by f: Double) -> ThresholdRange {
        func n(_ v: Double) -> String { NumberText.format(NumberText.rounded(v * f)) }
        if start == 0, let e = end, !inside { return ThresholdRange(upTo: NumberText.rounded(e * f)) }
        return ThresholdRange("\(inside ? "@" : "")\(start.map(n) ?? "~"):\(end.map(n) ?? "")") ?? self
    }
}
