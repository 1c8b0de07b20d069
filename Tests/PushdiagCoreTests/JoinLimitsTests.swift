import Foundation
import PushdiagCore
import PushdiagRender
import TestSupport
import Testing

/// `--join-limits`: the limits a join found, read from join's own reports (fixtures/lab-join.json,
/// recorded in the lab, and fixtures/join-report.json), and the server's heartbeat spacing graded
/// against their lowest. Every expected value comes from the fixture's own numbers.
@Suite struct JoinLimitsTests {
    static func fixture(_ name: String) throws -> (path: String, json: [String: Any], bss: Double) {
        let path = TestPaths.fixtures.appendingPathComponent(name).path
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let cycles = try #require(json["cycles"] as? [[String: Any]])
        // As join takes it: the last cycle's BSS Max Idle Period that the AP advertised.
        let bss = try #require(cycles.compactMap { $0["bss_max_idle_s"] as? Double }.last)
        return (path, json, bss)
    }

    /// The fixture's report as join would write it had it run the ladder: `ap_idle` concluded
    /// (`APIdleReport.conclude`, as join does) from `rungs`, its BSS Max Idle Period and `nat`.
    static func withLadder(_ name: String, rungs: [APIdle.Rung], nat: Double?) throws -> (bytes: [UInt8], bss: Double, apIdle: APIdleReport) {
        var (_, json, bss) = try fixture(name)
        let a = APIdleReport.conclude(rungs: rungs, bssMaxIdleS: bss, pathIdleTimeoutS: nat)
        json["ap_idle"] = try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(a).utf8))
        return (Array(try JSONSerialization.data(withJSONObject: json)), bss, a)
    }

    static func kept(_ s: Double) -> APIdle.Rung { APIdle.Rung(idleS: s, outcome: .kept, silentS: s, reason: nil, stationFrames: 0, detail: "kept") }

    @Test func joinsReportsWithoutTheLadderAreRefusedByName() throws {
        for name in ["lab-join.json", "join-report.json"] {
            let (path, json, _) = try Self.fixture(name)
            #expect(json["ap_idle"] is NSNull, "the fixture ran no ladder")
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            guard case .failure(let e) = JoinLimits.decode(bytes, file: path) else {
                Issue.record("\(name) was taken")
                continue
            }
            #expect(e.kind == .noAPIdle && e.description.contains(path) && e.description.contains("join --find-ap-idle"), "\(e)")
        }
    }

    /// Each limit with its source; the lowest is the safe interval, whichever it is.
    @Test func everyLimitIsNamedAndTheLowestIsTheSafeInterval() throws {
        // The lab's AP kept three quarters of its advertised period; no NAT timeout given.
        let bss = try Self.fixture("lab-join.json").bss
        let lab = try Self.withLadder("lab-join.json", rungs: [Self.kept(bss * 0.75)], nat: nil)
        let l = try JoinLimits.decode(lab.bytes, file: "lab.json").get()
        #expect(l.interface == "wlan2" && l.safeIntervalS == min(bss, bss * 0.75) && l.safeSource == .apKept, "\(l)")
        #expect(l.limits.map(\.source) == [.apKept, .bssMaxIdle, .pathIdleTimeout])
        #expect(l.limits[1].seconds == bss && l.limits[2].seconds == nil && l.limits[2].unknown?.contains("--idle-timeout") == true)
        #expect(
            l.summary.contains("AP kept \(DurationText.format(bss * 0.75))") && l.summary.contains("BSS Max Idle advertised")
                && l.summary.contains("NAT idle timeout UNKNOWN"), "\(l.summary)")
        // The synthetic report: a NAT that forgets sooner than the AP.
        let other = try Self.fixture("join-report.json").bss
        let nat = try Self.withLadder("join-report.json", rungs: [Self.kept(other / 2)], nat: other / 4)
        let n = try JoinLimits.decode(nat.bytes, file: "synthetic.json").get()
        #expect(n.safeIntervalS == [other, other / 2, other / 4].min() && n.safeSource == .pathIdleTimeout && n.safeIntervalS == nat.apIdle.safeIntervalS)
        // Nothing kept, nothing dropped: the AP's limit is UNKNOWN, never a number.
        let none = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [], nat: nil).bytes, file: "x").get()
        let ap = try #require(none.limits.first { $0.source == .apKept })
        #expect(ap.seconds == nil && ap.unknown == "no rung of the ladder was silent and checked" && none.safeIntervalS == bss)
        // Dropped at the first rung: the drop stands in, named as the upper bound it is.
        let drop = APIdle.Rung(idleS: bss, outcome: .dropped, silentS: bss / 3, reason: 4, stationFrames: 0, detail: "dropped")
        let dropped = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [drop], nat: nil).bytes, file: "x").get()
        #expect(dropped.safeIntervalS == bss / 3 && dropped.safeSource == .apDropped, "\(dropped)")
        #expect(dropped.summary.contains("AP dropped after \(DurationText.format(bss / 3)) (an upper bound"), "\(dropped.summary)")
    }

    /// The server's longest spacing as a share of the safe interval, on the safe_interval row.
    @Test func theServersSpacingIsGradedAsAShareOfTheSafeInterval() throws {
        let (bytes, bss, _) = try Self.withLadder("lab-join.json", rungs: [], nat: nil)
        let l = try JoinLimits.decode(bytes, file: "lab.json").get()
        let safe = try #require(l.safeIntervalS)
        #expect(safe == bss)
        let row = ThresholdRow.safeInterval
        let ranges = SurveyLimits(warning: row.defaultRange(.warning), critical: row.defaultRange(.critical))
        let expected: [Double: Severity] = [0.4: .ok, 0.7: .warning, 1.2: .critical]
        for share in [0.4, 0.7, 1.2] {
            let every = safe * share * 1000
            let server = Self.server(every: every)
            let c = SafeIntervalCheck.grade(server, limits: l, ranges: ranges)
            // The spacing to the millisecond, its share of the safe interval to 0.0001%.
            let kept = NumberText.rounded(every / 1000, places: 1000)
            #expect(c.percent == NumberText.rounded(kept * 100 / safe, places: 10_000) && c.serverLongestS == kept, "\(share): \(c)")
            #expect(c.severity == expected[share], "\(share): \(c)")
            #expect(
                c.thresholdSeconds?.description
                    == "\(NumberText.format(NumberText.rounded(safe * row.warning / 100))) / \(NumberText.format(NumberText.rounded(safe * row.critical! / 100)))"
            )
            #expect(c.message.contains("BSS Max Idle advertised") && c.message.contains("lab.json"), "\(c.message)")
        }
        // The boundaries, against a NAT timeout of 0.6 s: exactly half is OK, exactly the safe
        // interval CRITICAL (a heartbeat spacing equal to it is lost), and the share as printed
        // decides (0.304 s is 50.67%: WARNING; the spacing said "304ms", once "0.3 s").
        let nat = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [], nat: 0.6).bytes, file: "nat.json").get()
        #expect(nat.safeIntervalS == 0.6 && nat.safeSource == .pathIdleTimeout)
        let edges = [300.0, 600, 304].map { SafeIntervalCheck.grade(Self.server(every: $0), limits: nat, ranges: ranges) }
        #expect(edges.map(\.severity) == [.ok, .critical, .warning], "\(edges.map(\.message))")
        #expect(edges.map(\.percent) == [50, 100, 50.6667] && edges[2].serverLongestS == 0.304)
        #expect(edges[2].message.contains("(longest spacing 304ms, 50.67% of"), "\(edges[2].message)")
        // 2.004 s of a 4 s safe interval is said "2s, 50.1%": the share printed is the share
        // graded (WARNING, above half), beside the spacing as it prints; 2.0001 s is 50%, OK.
        let nat4 = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [], nat: 4).bytes, file: "nat.json").get()
        #expect(nat4.safeIntervalS == 4)
        let said = [2004, 2000.1].map { SafeIntervalCheck.grade(Self.server(every: $0), limits: nat4, ranges: ranges) }
        #expect(said.map(\.severity) == [.warning, .ok] && said.map(\.percent) == [50.1, 50] && said.map(\.serverLongestS) == [2.004, 2], "\(said)")
        #expect(said[0].message.contains("(longest spacing 2s, 50.1% of"), "\(said[0].message)")
        #expect(edges[1].message.contains("the NAT forgets a quiet device"), "\(edges[1].message)")
        // Not registered: skipped; registered but refused, or one heartbeat: not known.
        let unregistered = SafeIntervalCheck.grade(nil, limits: l, ranges: ranges)
        #expect(unregistered.skipped && unregistered.percent == nil && unregistered.message.contains("register"))
        var refused = Self.server(every: 400)
        refused.registered = false
        let notAccepted = SafeIntervalCheck.grade(refused, limits: l, ranges: ranges)
        #expect(notAccepted.severity == .unknown && !notAccepted.skipped && notAccepted.message.contains("not accepted"), "\(notAccepted)")
        let once = ServerHeartbeats(registered: true, arrivals: [], registeredAt: 0, acknowledged: 0, timeoutS: 60, endedAt: 5)
        let notSeen = SafeIntervalCheck.grade(once, limits: l, ranges: ranges)
        #expect(notSeen.severity == .unknown && !notSeen.skipped)
    }

    /// The verdict follows the ranges as set, as the idle-timeout margin's does: a loss only at
    /// or past the safe interval, the advice naming the warning share, and a spacing past it under
    /// a critical limit set past it said to be short of that limit. It said "the NAT forgets a
    /// quiet device" at 85% under a critical limit of 80%, and "better: half" under a 40% warning.
    @Test func theVerdictFollowsTheRangesAsSet() throws {
        let nat = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [], nat: 1).bytes, file: "nat.json").get()
        #expect(nat.safeIntervalS == 1)
        let strict = SurveyLimits(warning: ThresholdRange(upTo: 40), critical: ThresholdRange(upTo: 80))
        let lenient = SurveyLimits(warning: ThresholdRange(upTo: 50), critical: ThresholdRange(upTo: 150))
        let byDefault = ThresholdRow.safeInterval.defaultLimits
        for (every, ranges, severity, said) in [
            (850.0, strict, Severity.critical, "too close to it: one late or lost heartbeat and the device is forgotten (better: 40% of it)"),
            (600, strict, .warning, "too close to it: one late or lost heartbeat and the device is forgotten (better: 40% of it)"),
            (1200, lenient, .warning, "at or past it, short of the critical limit set past it (150%)"),
            (
                1200, byDefault, .critical,
                "the NAT forgets a quiet device's connection before its next heartbeat: set the server's interval under 1s (better: half of it)"
            ),
        ] {
            let c = SafeIntervalCheck.grade(Self.server(every: every), limits: nat, ranges: ranges)
            #expect(c.severity == severity && c.message.contains(": \(said);"), "\(every) ms, \(ranges): \(c.severity) \(c.message)")
            #expect(severity == .critical && every >= 1000 || !c.message.contains("forgets"), "\(c.message)")
        }
    }

    static func server(every ms: Double) -> ServerHeartbeats {
        ServerHeartbeats(registered: true, arrivals: [ms, 2 * ms, 3 * ms], registeredAt: 0, acknowledged: 3, timeoutS: 60, endedAt: 3 * ms + 1)
    }

    /// A drop at the ladder's first rung is only an upper bound: a spacing at or above it is
    /// CRITICAL, and none under it is better than WARNING. Each source has its own verdict.
    @Test func anUpperBoundIsNeverGradedAsSafe() throws {
        let bss = try Self.fixture("lab-join.json").bss
        let ranges = ThresholdRow.safeInterval.defaultLimits
        let drop = APIdle.Rung(idleS: bss, outcome: .dropped, silentS: bss / 3, reason: 4, stationFrames: 0, detail: "dropped")
        let dropped = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [drop], nat: nil).bytes, file: "x").get()
        #expect(dropped.safeSource == .apDropped)
        let grades = [0.4, 1.0, 1.2].map { SafeIntervalCheck.grade(Self.server(every: bss / 3 * $0 * 1000), limits: dropped, ranges: ranges) }
        #expect(grades.map(\.severity) == [.warning, .critical, .critical], "\(grades.map(\.message))")
        #expect(grades[0].message.contains("upper bound"), "\(grades[0].message)")
        // Under a critical limit set past 100%, a spacing past the drop is said to be past it, not
        // "no silence this short"; under one set at 80%, 90% keeps the upper-bound caveat.
        let lenient = SurveyLimits(warning: ThresholdRange(upTo: 50), critical: ThresholdRange(upTo: 150))
        let past = SafeIntervalCheck.grade(Self.server(every: bss / 3 * 1.2 * 1000), limits: dropped, ranges: lenient)
        #expect(past.severity == .warning && past.message.contains("at or past it") && !past.message.contains("no silence this short"), "\(past.message)")
        let strict = SurveyLimits(warning: ThresholdRange(upTo: 40), critical: ThresholdRange(upTo: 80))
        let close = SafeIntervalCheck.grade(Self.server(every: bss / 3 * 0.9 * 1000), limits: dropped, ranges: strict)
        #expect(close.severity == .critical && close.message.contains("too close to it") && close.message.contains("upper bound"), "\(close.message)")
        // The AP kept a silence: past it, longer than any it was seen to keep.
        let kept = try JoinLimits.decode(try Self.withLadder("lab-join.json", rungs: [Self.kept(bss / 2)], nat: nil).bytes, file: "x").get()
        #expect(kept.safeSource == .apKept)
        let over = SafeIntervalCheck.grade(Self.server(every: bss / 2 * 1.2 * 1000), limits: kept, ranges: ranges)
        #expect(over.severity == .critical && over.message.contains("longer than any silence the AP was seen to keep"), "\(over.message)")
        #expect(!over.message.contains("the AP or the NAT"))
    }

    /// The grade reaches heartbeat's findings and survey's check in the same numbers.
    @Test func heartbeatsFindingAndSurveysCheckCarryTheGrade() throws {
        let nat = 0.6
        let (bytes, _, _) = try Self.withLadder("lab-join.json", rungs: [], nat: nat)
        var o = HeartbeatOptions(endpoint: Endpoint(host: "push", port: 5223), proto: .simplepush)
        o.register = "ward-3"
        o.joinLimits = try JoinLimits.decode(bytes, file: "lab.json").get()
        var r = HeartbeatReport(target: "push:5223", protocol: "simplepush")
        r.sent = 3
        r.received = 3
        r.serverHeartbeats = ServerHeartbeats(
            registered: true, arrivals: [400, 800, 1200], registeredAt: 0, acknowledged: 3, timeoutS: 60, endedAt: 1300)
        HeartbeatAnalysis.conclude(&r, failure: nil, options: o)
        let c = try #require(r.safeInterval)
        let f = try #require(r.findings.first { $0.check == .safeInterval })
        #expect(c.severity == .warning && f.severity == .warning && f.value == 0.4 && f.threshold == NumberText.rounded(nat / 2) && r.status == .warning)
        let check = try #require(SurveyVerdicts.safeInterval(r))
        #expect(check.status == .warning && check.value == 0.4 && check.unit == .seconds && check.threshold == c.thresholdSeconds)
        #expect(check.source == "path_idle_timeout" && check.hint == c.message)
        // A server that does not register: skipped, in heartbeat and survey alike, and the
        // status stays what the rest says; a registered one whose heartbeats were not seen
        // twice: UNKNOWN.
        var quiet = HeartbeatReport(target: "push:5223", protocol: "simplepush")
        (quiet.sent, quiet.received) = (3, 3)
        var unregistered = o
        unregistered.register = nil
        HeartbeatAnalysis.conclude(&quiet, failure: nil, options: unregistered)
        #expect(quiet.safeInterval?.skipped == true && quiet.status == .ok && !quiet.findings.contains { $0.check == .safeInterval })
        #expect(SurveyVerdicts.safeInterval(quiet)?.status == .skipped)
        quiet.serverHeartbeats = ServerHeartbeats(registered: true, arrivals: [400], registeredAt: 0, acknowledged: 1, timeoutS: 60, endedAt: 500)
        quiet.serverHeartbeats?.intervalMs = nil
        HeartbeatAnalysis.conclude(&quiet, failure: nil, options: o)
        #expect(quiet.safeInterval?.skipped == false && SurveyVerdicts.safeInterval(quiet)?.status == .unknown, "\(String(describing: quiet.safeInterval))")
        // Without --join-limits: no check.
        r.safeInterval = nil
        #expect(SurveyVerdicts.safeInterval(r) == nil)
    }

    /// What is not a join report, or holds numbers no limit can have: one line naming the file.
    @Test func badInputIsOneLineNamingTheFile() throws {
        let good = try Self.withLadder("lab-join.json", rungs: [Self.kept(2)], nat: 30).bytes
        var negative = try #require(try JSONSerialization.jsonObject(with: Data(good)) as? [String: Any])
        var a = try #require(negative["ap_idle"] as? [String: Any])
        a["limits"] = [["source": "ap_kept", "seconds": -2]]
        a["safe_interval_s"] = -2
        negative["ap_idle"] = a
        var notLowest = negative
        a["limits"] = [["source": "ap_kept", "seconds": 2], ["source": "path_idle_timeout", "seconds": 30]]
        a["safe_interval_s"] = 30
        notLowest["ap_idle"] = a
        let cases: [([UInt8], JoinLimitsError.Kind)] = [
            (Array("not json".utf8), .notAJoinReport), (Array("{}".utf8), .notAJoinReport), (Array(good.prefix(good.count / 2)), .notAJoinReport),
            (Array("{\"interface\": \"wlan0\", \"ap_idle\": {\"limits\": 3}}".utf8), .notAJoinReport), ([], .notAJoinReport),
            (Array(try JSONSerialization.data(withJSONObject: negative)), .badValue),
            (Array(try JSONSerialization.data(withJSONObject: notLowest)), .badValue),
        ]
        for (bytes, kind) in cases {
            guard case .failure(let e) = JoinLimits.decode(bytes, file: "site/join.json") else {
                Issue.record("taken: \(String(decoding: bytes.prefix(80), as: UTF8.self))")
                continue
            }
            #expect(e.kind == kind && e.description.hasPrefix("cannot read site/join.json: ") && !e.description.contains("\n"), "\(e)")
        }
    }

    /// join_limits in the configuration, --join-limits over it.
    @Test func theConfigurationKeyAndTheFlag() throws {
        let c = try ConfigParser.parse("join_limits = \"/var/lib/pushdiag/history.db\"\n", file: "site.toml")
        #expect(try SurveySettings.resolve(SurveyFlags(), config: c, file: "site.toml").joinLimitsPath == "/var/lib/pushdiag/history.db")
        var f = SurveyFlags()
        f.joinLimits = "join.json"
        #expect(try SurveySettings.resolve(f, config: c, file: "site.toml").joinLimitsPath == "join.json")
        #expect(throws: ConfigError.self) { try ConfigParser.parse("join_limits = 3\n", file: "site.toml") }
        // The row's keys in [thresholds].
        let t = try ConfigParser.parse("[thresholds]\nsafe_interval_warning = 40\n", file: "site.toml")
        #expect(try SurveySettings.resolve(SurveyFlags(), config: t, file: "site.toml").thresholds[.safeInterval].warning == ThresholdRange(upTo: 40))
    }
}
