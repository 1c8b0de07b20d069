/// The idle-timeout trap: a stateful firewall (or NAT, or the server) between the devices and the
/// push server that forgets a connection idle for longer than its timeout. The device believes
/// it is connected and receives nothing until its next heartbeat check. `heartbeat
/// --find-idle-timeout` opens one connection per rung of a ladder at once, leaves each idle for
/// its rung's time, then sends a heartbeat on each.
public enum IdleTimeout {
    /// The shortest idle time pushdiag takes, seconds: a rung, a ladder's end, a path's idle
    /// timeout (`--idle-timeout`, `idle_timeout =`).
    public static let shortest = 0.1

    /// The ladder's default rungs, seconds: 30 s to an hour.
    public static let defaultRungs: [Double] = [30, 60, 120, 300, 600, 900, 1800, 3600]

    /// The rungs up to `max` (and `max` itself as the last rung when the ladder skips it).
    public static func rungs(upTo max: Double, from ladder: [Double] = defaultRungs) -> [Double] {
        var r = Set(ladder.filter { $0 <= max }).sorted()
        if r.last != max { r.append(max) }
        return r
    }

    /// What became of one idle connection.
    public enum Outcome: String, Codable, Sendable, RawValueDescribed {
        /// The heartbeat after the idle time was answered.
        case survived
        /// The connection was reset (a firewall's RST, or the server's).
        case reset
        /// The server (or a middlebox on its behalf) closed it: FIN.
        case closed
        /// No answer and no error: packets silently dropped, the connection a black hole.
        case blackHole = "black_hole"
        /// The connection could not be made or did not answer its first heartbeat: this rung says nothing.
        case notOpened = "not_opened"
    }

    public struct Rung: Codable, Sendable, Equatable {
        public var idleS: Double
        public var outcome: Outcome
        /// The heartbeat's round trip when it survived; the failure's words otherwise.
        @Nullable public var rttMs: Double?
        @Nullable public var detail: String?

        /// The heartbeat after `idleS` of silence was answered, in `rttMs`.
        public static func survived(after idleS: Double, rttMs: Double) -> Rung {
            Rung(idleS: idleS, outcome: .survived, rttMs: rttMs, detail: nil)
        }

        /// It was not (or the rung could not be tried): what became of the connection, in words.
        public static func ended(after idleS: Double, _ outcome: Outcome, _ detail: String) -> Rung {
            Rung(idleS: idleS, outcome: outcome, rttMs: nil, detail: detail)
        }
    }
}

public struct IdleTimeoutReport: Codable, Sendable, Equatable {
    public var target: String
    public var `protocol`: String
    public var rungs: [IdleTimeout.Rung]
    /// The longest idle time a connection survived, and the shortest one it did not.
    @Nullable public var longestSurvivedS: Double?
    @Nullable public var shortestDiedS: Double?
    /// How the shortest death came: reset, closed or black_hole.
    @Nullable public var died: IdleTimeout.Outcome?
    public var findings: [Note]
    public var status: Severity
    public var interrupted: Bool

    /// A finding in words, with its severity and a name to match on.
    public struct Note: Codable, Sendable, Equatable {
        public var severity: Severity
        public var check: CheckName
        public var message: String
    }

    /// The verdict from the rungs: a death above a survival is the timeout, bracketed.
    public static func conclude(target: String, protocol proto: String, rungs: [IdleTimeout.Rung], interrupted: Bool) -> IdleTimeoutReport {
        let sorted = rungs.sorted { $0.idleS < $1.idleS }
        let opened = sorted.filter { $0.outcome != .notOpened }
        let survived = opened.filter { $0.outcome == .survived }.map(\.idleS).max()
        let firstDeath = opened.first { $0.outcome != .survived }
        var r = IdleTimeoutReport(
            target: target, protocol: proto, rungs: sorted, longestSurvivedS: survived, shortestDiedS: firstDeath?.idleS, died: firstDeath?.outcome,
            findings: [], status: .ok, interrupted: interrupted)
        func text(_ s: Double) -> String { DurationText.format(s) }
        if opened.isEmpty {
            r.status = .unknown
            r.findings.append(
                Note(severity: .unknown, check: .idleNotMeasured, message: "no connection could be opened and answered: nothing was measured"))
        } else if let death = firstDeath {
            let how =
                switch death.outcome {
                case .reset: "reset"
                case .closed: "closed"
                default: "silently dropped (a black hole: no reset, no answer)"
                }
            let bracket =
                survived.map { "survived \(text($0)) idle; \(how) after \(text(death.idleS))" } ?? "\(how) after \(text(death.idleS)), the shortest idle tried"
            r.status = .warning
            r.findings.append(
                Note(
                    severity: .warning, check: .idleTimeout,
                    message:
                        "a connection left idle is forgotten on the way: \(bracket). The push server's heartbeat interval must be shorter than \(text(survived ?? death.idleS)) (\(IdleTimeout.better(ThresholdRow.safeInterval.defaultLimits))), or devices lose pushes until their next check. With idle_timeout = \"\(text(survived ?? death.idleS))\" in the server's [[server]] table (and register), survey and exporter judge its heartbeats against it"
                ))
            if let s = survived, let later = opened.first(where: { $0.idleS > death.idleS && $0.outcome == .survived }) {
                r.findings.append(
                    Note(
                        severity: .warning, check: .idleInconsistent,
                        message:
                            "a longer idle (\(text(later.idleS))) survived than one that died (\(text(death.idleS))); above \(text(s)) the path is not reliable"
                    ))
            }
        } else if let s = survived, !interrupted {
            r.findings.append(Note(severity: .ok, check: .idleSurvived, message: "every connection survived, up to \(text(s)) idle"))
        }
        if interrupted {
            r.status = max(r.status, .unknown)
            r.findings.append(Note(severity: .unknown, check: .interrupted, message: "interrupted before every rung was tried"))
        }
        return r
    }
}

extension IdleTimeout {
    /// The interval the server actually uses against the path's idle timeout (what
    /// `--find-idle-timeout` found, given as `idle_timeout` or `--idle-timeout`): the longest
    /// spacing between two of the server's heartbeats must stay under it, with room to spare.
    public struct Margin: Sendable, Equatable {
        /// The server's heartbeat spacing: median and longest, seconds (to the millisecond).
        public var medianS: Double
        public var longestS: Double
        public var timeoutS: Double
        /// The longest spacing as a share of the timeout, percent (`IdleTimeout.share`): what is graded.
        public var percent: Double
        /// The `safe_interval` row's ranges it was graded on (the defaults, 50% and 100%, unless
        /// `--safe-interval-*` or `[thresholds]` set them).
        public var ranges: SurveyLimits
        public var severity: Severity

        /// The limit the grade passed, seconds: the warning or critical share of the timeout; nil
        /// when OK or when that range is not a plain limit.
        public var passedS: Double? {
            guard severity > .ok else { return nil }
            return ThresholdRow.safeInterval.limit(of: severity == .critical ? ranges.critical : ranges.warning).map { timeoutS * $0 / 100 }
        }

        /// By the grade: critical at or past the timeout, the path forgets the connection; at or
        /// past it but short of a critical limit set past it, that limit; otherwise the share
        /// passed, in words for a plain limit ("half", "40%"), or the Monitoring Plugins range
        /// that alerted (or did not). Never a loss beside a WARNING or an OK.
        public var message: String {
            let row = ThresholdRow.safeInterval
            let (warning, critical) = (row.limit(of: ranges.warning), row.limit(of: ranges.critical))
            let every = IdleTimeout.spacingWords(medianS: medianS, longestS: longestS, percent: percent, ranges: ranges, of: "the path's idle timeout")
            let timeout = DurationText.format(timeoutS)
            let keeps = "the \(timeout) the path keeps an idle connection"
            let share = IdleTimeout.shareWords
            let better = IdleTimeout.better(ranges)
            switch severity {
            case .critical where percent >= 100:
                return
                    "\(every), but the path forgets a connection idle for \(timeout): devices lose pushes between heartbeats; the server's interval must be shorter than \(timeout) (\(better))"
            case _ where percent >= 100:
                // Only a critical limit set past the timeout leaves this short of critical.
                return "\(every), at or past \(keeps), short of the critical limit set past it (\(ranges.critical)%)"
            case .critical:
                return critical.map { "\(every), at or past \(share($0)) of \(keeps): one late or lost heartbeat and it is forgotten" }
                    ?? "\(every), which the critical range \(ranges.critical) alerts on (percent of \(keeps))"
            case .warning:
                return warning.map { "\(every), more than \(share($0)) of \(keeps): one late or lost heartbeat and it is forgotten" }
                    ?? "\(every), which the warning range \(ranges.warning) alerts on (percent of \(keeps))"
            default:
                return warning.map { "\(every), at most \(share($0)) of \(keeps)" }
                    ?? "\(every), which neither range alerts on (warning \(ranges.warning), critical \(ranges.critical), percent of \(keeps))"
            }
        }
    }

    /// The longest spacing as a share of `limitS`, percent, as the idle-timeout margin and the
    /// safe-interval check grade it: the spacing kept to the millisecond (as the reports give
    /// it), the share to 0.0001% (so 1.38 s of 2.76 s is 50%, not 50.00000000000001%; 300.02 s of
    /// 600 s is 50.0033%, above half).
    public static func share(_ longestS: Double, of limitS: Double) -> Double {
        NumberText.rounded(Kept.seconds(longestS) * 100 / limitS, places: 10_000)
    }

    /// The server's heartbeat spacing as both its checks say it (the idle-timeout margin and the
    /// safe interval): "the server's heartbeats came every 2s (longest spacing 2.1s, 70% of the
    /// path's idle timeout)", the share beside the limits it is graded on.
    static func spacingWords(medianS: Double, longestS: Double, percent: Double, ranges: SurveyLimits, of what: String) -> String {
        let limits = [ranges.warning, ranges.critical].compactMap(ThresholdRow.safeInterval.limit)
        return
            "the server's heartbeats came every \(DurationText.format(medianS)) (longest spacing \(DurationText.format(longestS)), \(shareText(percent, limits: limits))% of \(what))"
    }

    /// A share limit in words: "half", "40%".
    static func shareWords(_ limit: Double) -> String { limit == 50 ? "half" : "\(NumberText.format(limit))%" }

    /// The advice beside a spacing too long, from the warning range: "better: half of it",
    /// "better: 40% of it", or the Monitoring Plugins range to stay within.
    static func better(_ ranges: SurveyLimits) -> String {
        ThresholdRow.safeInterval.limit(of: ranges.warning).map { "better: \(shareWords($0)) of it" }
            ?? "better: within the warning range \(ranges.warning)"
    }

    /// A share as the messages print it: two decimals, more where two would read equal to the
    /// nearest of `limits` ("50.003%" for 50.0033, not "50%" beside a warning).
    public static func shareText(_ percent: Double, limits: [Double]) -> String {
        guard let near = limits.min(by: { abs($0 - percent) < abs($1 - percent) }) else { return NumberText.format(percent) }
        return NumberText.format(percent, beside: near)
    }

    /// nil until two of the server's heartbeats have been seen (no spacing yet). Graded on the
    /// `safe_interval` row's `ranges` as the safe-interval check is (`--safe-interval-*`), on the
    /// share as `share` keeps it.
    public static func margin(_ server: ServerHeartbeats, pathTimeoutS: Double, ranges: SurveyLimits) -> Margin? {
        guard let server = server.spacingS else { return nil }
        let percent = share(server.longest, of: pathTimeoutS)
        return Margin(
            medianS: Kept.seconds(server.median), longestS: Kept.seconds(server.longest), timeoutS: pathTimeoutS,
            percent: percent, ranges: ranges, severity: ThresholdRow.safeInterval.severity(percent, ranges: ranges))
    }
}
