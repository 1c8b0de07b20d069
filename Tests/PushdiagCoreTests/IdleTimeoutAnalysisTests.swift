import PushdiagCore
import Testing

@Suite struct IdleTimeoutAnalysisTests {
    @Test func theLadderEndsAtItsMaximum() {
        #expect(IdleTimeout.rungs(upTo: 600) == [30, 60, 120, 300, 600])
        #expect(IdleTimeout.rungs(upTo: 400) == [30, 60, 120, 300, 400])
        #expect(IdleTimeout.rungs(upTo: 10, from: [20, 5, 1]) == [1, 5, 10])
        #expect(IdleTimeout.rungs(upTo: 5, from: [5, 1, 5]) == [1, 5], "one connection per idle time")
    }

    @Test func aDeathAboveASurvivalBracketsTheTimeout() {
        let r = IdleTimeoutReport.conclude(
            target: "t", protocol: "simplepush",
            rungs: [.ended(after: 300, .reset, "x"), .survived(after: 30, rttMs: 1), .survived(after: 60, rttMs: 1)],
            interrupted: false)
        #expect(r.longestSurvivedS == 60 && r.shortestDiedS == 300 && r.died == .reset && r.status == .warning)
        #expect(r.rungs.map(\.idleS) == [30, 60, 300])
        #expect(r.findings.first?.message.contains("shorter than 1m") == true, "\(r.findings)")
    }

    @Test func rungsThatNeverOpenedSayNothing() {
        let none = IdleTimeoutReport.conclude(target: "t", protocol: "line", rungs: [.ended(after: 30, .notOpened, "x")], interrupted: false)
        #expect(none.status == .unknown && none.longestSurvivedS == nil && none.shortestDiedS == nil)
        let all = IdleTimeoutReport.conclude(
            target: "t", protocol: "line", rungs: [.survived(after: 30, rttMs: 1), .ended(after: 60, .notOpened, "x")], interrupted: false)
        #expect(all.status == .ok && all.longestSurvivedS == 30 && all.shortestDiedS == nil)
        let odd = IdleTimeoutReport.conclude(
            target: "t", protocol: "line", rungs: [.ended(after: 30, .blackHole, "x"), .survived(after: 60, rttMs: 1)], interrupted: true)
        #expect(odd.status == .unknown && odd.findings.contains { $0.check == .idleInconsistent })
    }

    /// The server's heartbeat spacing against the path's idle timeout: the longest spacing
    /// decides (one long gap is enough for the firewall to forget the connection).
    @Test func theServersIntervalAgainstTheFoundTimeout() throws {
        func server(_ arrivals: [Double], idle: Double? = 40) -> ServerHeartbeats {
            ServerHeartbeats(
                registered: true, arrivals: arrivals, registeredAt: 0, acknowledged: arrivals.count, timeoutS: 60, endedAt: (arrivals.last ?? 0) + 1,
                pathIdleTimeoutS: idle)
        }
        func margin(_ s: ServerHeartbeats, pathTimeoutS: Double, ranges: SurveyLimits = ThresholdRow.safeInterval.defaultLimits) -> IdleTimeout.Margin? {
            IdleTimeout.margin(s, pathTimeoutS: pathTimeoutS, ranges: ranges)
        }
        // Every 10 s, once 12 s: under half of 40 s.
        let ok = try #require(margin(server([10_000, 20_000, 32_000, 42_000]), pathTimeoutS: 40))
        #expect(ok.severity == .ok && ok.medianS == 10 && ok.longestS == 12, "\(ok)")
        // Every 25 s: more than half.
        let near = try #require(margin(server([25_000, 50_000]), pathTimeoutS: 40))
        #expect(near.severity == .warning && near.message.contains("more than half of the 40s"), "\(near.message)")
        // One gap of 40 s: the firewall forgot it then.
        let over = try #require(margin(server([10_000, 50_000]), pathTimeoutS: 40))
        #expect(over.severity == .critical && over.longestS == 40 && over.message.contains("shorter than 40s"), "\(over.message)")
        // Nothing came: not known.
        #expect(margin(server([]), pathTimeoutS: 40) == nil)
        // Graded on the safe_interval row's shares, on the share the message prints: 0.304 s of
        // 0.6 s is 50.67%, a warning, said "304ms" (it once graded 0.304 and said 0.3); exactly
        // half is OK, exactly the timeout CRITICAL (a spacing equal to it is lost).
        let cases: [([Double], Double, Severity, String)] = [
            ([304, 608], 0.6, .warning, "longest spacing 304ms, 50.67% of the path's idle timeout), more than half"),
            ([300, 600], 0.6, .ok, "longest spacing 300ms, 50% of the path's idle timeout), at most half"),
            ([600, 1200], 0.6, .critical, "longest spacing 600ms, 100% of the path's idle timeout), but"),
            ([599, 1198], 0.6, .warning, "longest spacing 599ms, 99.83% of the path's idle timeout), more than half"),
            // 2.004 s prints as "2s": the share says why it is more than half (it read "2s, more
            // than half of the 4s" and nothing else).
            ([2004, 4008], 4, .warning, "longest spacing 2s, 50.1% of the path's idle timeout), more than half of the 4s"),
            // 1.38 s of 2.76 s is 50.00000000000001% unrounded: half, OK.
            ([1380, 2760], 2.76, .ok, "longest spacing 1.38s, 50% of the path's idle timeout), at most half"),
            // Just past half of a long timeout, and just short of it: the share says which side.
            ([300_020, 600_040], 600, .warning, "longest spacing 300.02s, 50.003% of the path's idle timeout), more than half"),
            ([599_980, 1_199_960], 600, .warning, "longest spacing 599.98s, 99.997% of the path's idle timeout), more than half"),
        ]
        for (arrivals, timeout, expected, said) in cases {
            let m = try #require(margin(server(arrivals), pathTimeoutS: timeout))
            #expect(m.severity == expected && m.message.contains(said), "\(arrivals): \(m.severity) \(m.message)")
        }
        #expect(try #require(margin(server([2004, 4008]), pathTimeoutS: 4)).longestS == 2.004, "kept to the millisecond")

        // The safe_interval row's limits as --safe-interval-* set them: the same shares as the
        // safe-interval check (the margin took the defaults whatever the flags said).
        func limits(_ w: Double, _ c: Double) -> SurveyLimits { SurveyLimits(warning: ThresholdRange(upTo: w), critical: ThresholdRange(upTo: c)) }
        let custom: [([Double], SurveyLimits, Severity, String, Double?)] = [
            // 52.5% of 40 s: past the default half, within a 60% warning.
            ([21_000, 42_000], limits(60, 100), .ok, "52.5% of the path's idle timeout), at most 60% of the 40s", nil),
            ([21_000, 42_000], limits(40, 100), .warning, "more than 40% of the 40s", 16),
            // 85%: critical at 80%, though the path still keeps the connection.
            ([34_000, 68_000], limits(50, 80), .critical, "at or past 80% of the 40s", 32),
            // At the timeout: its advice names the warning share set.
            (
                [40_000, 80_000], limits(40, 100), .critical,
                "but the path forgets a connection idle for 40s: devices lose pushes between heartbeats; the server's interval must be shorter than 40s (better: 40% of it)",
                40
            ),
            // Limits past the timeout are the user's: the message says the grade they give, never
            // a loss beside a WARNING or an OK.
            (
                [44_000, 88_000], limits(50, 150), .warning,
                "110% of the path's idle timeout), at or past the 40s the path keeps an idle connection, short of the critical limit set past it (150%)",
                20
            ),
            (
                [48_000, 96_000], limits(150, 200), .ok,
                "120% of the path's idle timeout), at or past the 40s the path keeps an idle connection, short of the critical limit set past it (200%)",
                nil
            ),
            // A Monitoring Plugins range (survey's [thresholds]) is named as the range that alerted.
            (
                [21_000, 42_000], SurveyLimits(warning: ThresholdRange("10:50")!, critical: ThresholdRange(upTo: 100)), .warning,
                "which the warning range 10:50 alerts on (percent of the 40s", nil
            ),
            (
                [2_000, 4_000], SurveyLimits(warning: ThresholdRange("10:50")!, critical: ThresholdRange(upTo: 100)), .warning,
                "5% of the path's idle timeout), which the warning range 10:50 alerts on", nil
            ),
            (
                [8_000, 16_000], SurveyLimits(warning: ThresholdRange("10:50")!, critical: ThresholdRange(upTo: 100)), .ok,
                "which neither range alerts on (warning 10:50, critical", nil
            ),
        ]
        for (arrivals, ranges, expected, said, passed) in custom {
            let m = try #require(margin(server(arrivals), pathTimeoutS: 40, ranges: ranges))
            #expect(
                m.severity == expected && m.message.contains(said) && m.passedS == passed,
                "\(arrivals) \(ranges): \(m.severity) \(m.passedS as Any) \(m.message)")
            #expect(m.severity == .critical || !m.message.contains("lose pushes"), "\(arrivals) \(ranges): \(m.message)")
        }

        // The survey's check, and the heartbeat's finding.
        var r = HeartbeatReport(target: "push:5223", protocol: "simplepush")
        r.serverHeartbeats = server([10_000, 50_000])
        let check = try #require(SurveyVerdicts.idleTimeout(r, t: SurveyThresholds()))
        #expect(check.status == .critical && check.value == 40 && check.threshold?.description == "20 / 40" && check.source == "server_heartbeats")
        // On the survey's own safe_interval limits, scaled to the timeout.
        var t = SurveyThresholds()
        t[ThresholdRow.safeInterval.key(.warning)] = ThresholdRange(upTo: 25)
        t[ThresholdRow.safeInterval.key(.critical)] = ThresholdRange(upTo: 200)
        let own = try #require(SurveyVerdicts.idleTimeout(r, t: t))
        #expect(
            own.status == .warning && own.threshold?.description == "10 / 80"
                && own.hint.contains(
                    "100% of the path's idle timeout), at or past the 40s the path keeps an idle connection, short of the critical limit set past it (200%)"
                ),
            "\(own)")
        r.serverHeartbeats = server([])
        #expect(SurveyVerdicts.idleTimeout(r, t: SurveyThresholds())?.status == .unknown)
        r.serverHeartbeats = server([10_000], idle: nil)
        #expect(SurveyVerdicts.idleTimeout(r, t: SurveyThresholds()) == nil, "no idle_timeout configured: no check")
    }

    /// The server's silence against the time after which a device reconnects, as measured (the
    /// report's "longest gap" is in milliseconds); a silence just above the limit is said with the
    /// digits that show it (not "30 s ..., above the 30 s").
    @Test func theServersSilenceReadsAboveItsLimit() {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "push", port: 5223), proto: .simplepush)
        o.serverHeartbeatTimeoutS = 30
        for (gap, found, said) in [(30_004.0, true, "30.004"), (30_010, true, "30.01"), (30_000, false, "")] {
            var r = HeartbeatReport(target: "push:5223", protocol: "simplepush")
            r.serverHeartbeats = ServerHeartbeats(registered: true, arrivals: [gap], registeredAt: 0, acknowledged: 1, timeoutS: 60, endedAt: gap)
            HeartbeatAnalysis.conclude(&r, failure: nil, options: o)
            let f = r.findings.first { $0.check == .serverHeartbeat }
            #expect(
                (f != nil) == found && (f.map { $0.value == gap / 1000 && $0.message.contains(": \(said) s without a heartbeat") } ?? true),
                "\(gap): \(r.findings)")
        }
    }
}
