import Testing

@testable import PushdiagCore

/// Every row of the threshold table, walked from the text a user types (a flag or the
/// configuration file) to the verdict it decides, with limits other than the defaults so that a
/// row a command does not read fails here.
@Suite struct ThresholdTableTests {
    typealias Level = ThresholdRow.Level

    /// Limits moved from the defaults toward the good side: warning before critical still.
    static func moved(_ row: ThresholdRow) -> (warning: Double, critical: Double) {
        let c = row.critical ?? (row.bad == .above ? row.warning * 2 : row.warning - 10)
        return row.bad == .above ? (row.warning / 2, c / 2) : (row.warning + 5, c + 5)
    }

    /// Values past the critical limit, between the two, and on the good side of the warning.
    static func probes(_ row: ThresholdRow) -> (critical: Double, warning: Double, ok: Double) {
        let (w, c) = moved(row)
        return row.bad == .above ? (c + 1, (w + c) / 2, w / 2) : (c - 1, ((w + c) / 2).rounded(.down), w + 1)
    }

    @Test(arguments: ThresholdRow.all) func aPlainNumberIsTheLimitOnTheBadSide(row: ThresholdRow) throws {
        for level in Level.allCases {
            guard let d = level == .warning ? row.warning : row.critical else { continue }
            #expect(try row.parse(NumberText.format(d)).get() == row.defaultRange(level), "\(row.flag(level))")
            #expect(row.limit(of: row.defaultRange(level)) == d)
        }
        #expect(throws: ThresholdProblem.notARange(examples: row.examples)) { try row.parse("garbage").get() }
        #expect(throws: ThresholdProblem.outside(valid: row.valid, unit: row.unit)) { try row.parse(NumberText.format(row.valid.upperBound + 1)).get() }
        // Below the valid values too, also where the number would make a high-bad row's range
        // run backwards (-1 ms read as 0…-1 was "not a range or a number").
        #expect(throws: ThresholdProblem.outside(valid: row.valid, unit: row.unit)) { try row.parse(NumberText.format(row.valid.lowerBound - 1)).get() }
        #expect(row.valid.contains(row.warning) && row.critical.map(row.valid.contains) != false)
    }

    @Test(arguments: ThresholdRow.all) func helpNamesTheDefaultAndTheUnit(row: ThresholdRow) {
        for level in Level.allCases {
            let d = (level == .warning ? row.warning : row.critical).map { NumberText.format($0) } ?? "none"
            #expect(row.help(level).contains("(default \(d)") && row.help(level).contains(row.unit.rawValue), "\(row.help(level))")
            #expect(row.flag(level) == "--" + row.key(level).split(separator: "_").joined(separator: "-"))
        }
    }

    @Test(arguments: ThresholdRow.rows(.survey)) func surveyRowFromFlagAndConfigToVerdict(row: ThresholdRow) throws {
        let (w, c) = Self.moved(row)
        var flags = SurveyFlags()
        flags.thresholds[row.key(.warning)] = NumberText.format(w)
        flags.thresholds[row.key(.critical)] = NumberText.format(c)
        if row == .safeInterval {
            // Its flags grade against a join's limits: alone they are a usage error.
            #expect(throws: SettingsError.self) { try SurveySettings.resolve(flags, config: PushdiagConfig(), file: nil) }
            flags.joinLimits = "join.json"
        }
        let fromFlags = try SurveySettings.resolve(flags, config: PushdiagConfig(), file: nil).thresholds
        let config = try ConfigParser.parse(
            "[thresholds]\n\(row.key(.warning)) = \"\(NumberText.format(w))\"\n\(row.key(.critical)) = \(NumberText.format(c))\n", file: "t.toml")
        let fromConfig = try SurveySettings.resolve(SurveyFlags(), config: config, file: "t.toml").thresholds
        #expect(PushdiagConfig.thresholdKeys.contains(row.key(.warning)) && PushdiagConfig.thresholdKeys.contains(row.key(.critical)))
        for t in [fromFlags, fromConfig] {
            #expect(t != SurveyThresholds(), "the limits were set")
            let p = Self.probes(row)
            #expect(t.grade(p.critical, row) == .critical && t.grade(p.warning, row) == .warning && t.grade(p.ok, row) == .ok, "\(row)")
        }
        flags.thresholds[row.key(.critical)] = "garbage"
        #expect(throws: SettingsError.self) { try SurveySettings.validate(flags) }
    }

    @Test(arguments: ThresholdRow.rows(.walk)) func walkRowFromFlagAndConfigToVerdict(row: ThresholdRow) throws {
        let (w, c) = Self.moved(row)
        // A flag: the text through the row, as the walk command reads it.
        var values: [String: Double] = [:]
        for (level, v) in [(Level.warning, w), (.critical, c)] {
            values[row.key(level)] = try row.parseLimit(NumberText.format(v)).get()
        }
        let config = try ConfigParser.parse(
            "[walk]\n\(row.key(.warning)) = \(NumberText.format(w))\n\(row.key(.critical)) = \(NumberText.format(c))\n", file: "t.toml")
        #expect(config.walk == values)
        #expect(throws: ThresholdProblem.self) { try row.parseLimit("@1:2").get() }
        let t = try WalkThresholds.resolve(values).get()
        #expect(t != WalkThresholds())
        let p = Self.probes(row)
        for (value, expected) in [(p.critical, Severity.critical), (p.warning, .warning), (p.ok, .ok)] {
            let got: Severity
            if row == .signal {
                let samples = [WalkSample(timeNs: 0, signalDbm: Int(value))]
                got = WalkAnalysis.signalFindings(samples, scans: [], t: t).first?.severity ?? .ok
            } else {
                let move = WalkLinkChange(timeNs: 0, fromBssid: nil, toBssid: nil, fromSsid: "s", toSsid: "s", fastTransition: row == .ftGap, linkGapMs: value)
                got = WalkAnalysis.grade(move, connection: .kept, t: t).0
            }
            #expect(got == expected, "\(row) at \(value)")
        }
    }

    @Test(arguments: ThresholdRow.rows(.join)) func joinRowFromFlagAndConfigToVerdict(row: ThresholdRow) throws {
        let (w, c) = Self.moved(row)
        var values: [String: Double] = [:]
        for (level, v) in [(Level.warning, w), (.critical, c)] {
            values[row.key(level)] = try row.parseLimit(NumberText.format(v)).get()
        }
        let config = try ConfigParser.parse(
            "[join]\n\(row.key(.warning)) = \(NumberText.format(w))\n\(row.key(.critical)) = \(NumberText.format(c))\n", file: "t.toml")
        #expect(config.join == values)
        #expect(throws: ConfigError.self) { try ConfigParser.parse("[join]\nft_gap_warning = 1\n", file: "t.toml") }
        let t = try JoinThresholds.resolve(values).get()
        #expect(t != JoinThresholds())
        let p = Self.probes(row)
        #expect(t.grade(p.critical, row)?.0 == .critical && t.grade(p.warning, row)?.0 == .warning && t.grade(p.ok, row) == nil, "\(row)")
    }

    /// One check refuses bad one-limit values for walk and join alike: a key of another scope, a
    /// value outside its row's range or not finite, and a limit on the wrong side of the other
    /// level, set or left at its default; the problem names the key, and the first key in order.
    @Test(arguments: [ThresholdRow.Scope.walk, .join]) func oneCheckForEveryScopedLimit(scope: ThresholdRow.Scope) throws {
        let rows = ThresholdRow.rows(scope)
        let other = ThresholdRow.all.first { !$0.scopes.contains(scope) }!
        let resolve: ([String: Double]) -> SettingsError? = { values in
            switch scope {
            case .walk: if case .failure(let e) = WalkThresholds.resolve(values) { return e }
            default: if case .failure(let e) = JoinThresholds.resolve(values) { return e }
            }
            return nil
        }
        #expect(ThresholdRow.problem([:], in: scope) == nil && resolve([:]) == nil)
        for row in rows {
            let key = row.key(.warning)
            let outside = row.valid.upperBound + 1
            for (values, words) in [
                ([other.key(.warning): other.warning], "\(scope.rawValue) threshold \(other.key(.warning)): no such limit"),
                ([key: outside], "\(scope.rawValue) threshold \(key): '\(NumberText.format(outside))' is outside"),
                ([key: .nan], "\(scope.rawValue) threshold \(key): 'nan' is outside"),
            ] {
                let e = try #require(ThresholdRow.problem(values, in: scope), "\(values)")
                #expect(e.description.hasPrefix(words), "\(e)")
                #expect(resolve(values) == e, "resolve says the same")
            }
            // The warning moved past the default critical: refused though the critical was not set.
            guard let critical = row.critical else { continue }
            let past = row.bad == .above ? critical + 1 : critical - 1
            guard row.valid.contains(past) else { continue }
            let e = try #require(ThresholdRow.problem([key: past], in: scope), "\(row)")
            #expect(e.description.hasPrefix("\(scope.rawValue) thresholds: ") && e.description.contains(row.key(.critical)), "\(e)")
        }
        // Several bad keys: the first in order is named, whatever the dictionary's order.
        let bad = Dictionary(uniqueKeysWithValues: rows.map { ($0.key(.critical), Double.infinity) })
        let first = rows.map { $0.key(.critical) }.sorted()[0]
        #expect(ThresholdRow.problem(bad, in: scope)?.description.contains(" \(first):") == true)
    }

    /// The limits every command's plain defaults carry are the table's.
    @Test func theOtherCommandsDefaultsAreTheTables() {
        let t = Thresholds()
        let h = HeartbeatThresholds()
        let w = WalkThresholds()
        #expect(t.utilizationCritical == ThresholdRow.utilization.critical && t.retryWarning == ThresholdRow.retransmission.warning)
        #expect(t.signalCriticalDbm == ThresholdRow.signal.critical && t.snrWarningDb == ThresholdRow.snr.warning)
        #expect(h.lossCritical == ThresholdRow.loss.critical && h.rttWarningMs == ThresholdRow.rtt.warning)
        #expect(w.signalWarningDbm == ThresholdRow.signal.warning && w.roamCriticalMs == ThresholdRow.roamGap.critical)
        // A survey's parts grade on its ranges (RangeGraded), the rest as every command.
        var air = SurveyThresholds().air
        #expect(air.ranges == SurveyThresholds())
        air.ranges = nil
        #expect(air == Thresholds())
    }

    /// The flags of every command are read by the same rows: a number or a range open on the good
    /// side is one limit; a range closed on both sides, or outside the row's bounds, is refused
    /// naming the flag; the order of warning and critical is checked by the row's direction.
    @Test func flagLimitsAndTheirOrderAreTheRowsEverywhere() throws {
        let ok = try ThresholdRow.limits(flags: [(.utilization, .warning, "~:30"), (.signal, .critical, "-75:"), (.rtt, .warning, nil)]).get()
        #expect(ok == ["utilization_warning": 30, "signal_critical": -75])
        #expect(throws: SettingsError.usage("--utilization-critical: '@0:100' is \(ThresholdProblem.notOneLimit(examples: "32 or ~:32"))")) {
            try ThresholdRow.limits(flags: [(.utilization, .critical, "@0:100")]).get()
        }
        #expect(throws: SettingsError.usage("--retransmission-critical: '150' is outside 0…100 percent")) {
            try ThresholdRow.limits(flags: [(.retransmission, .critical, "150")]).get()
        }
        #expect(ThresholdRow.loss.orderProblem(warning: 6, critical: 5) == "--loss-warning (6) must not be above --loss-critical (5)")
        #expect(ThresholdRow.loss.orderProblem(warning: 5, critical: 5) == nil)
        #expect(ThresholdRow.signal.orderProblem(warning: -67, critical: -60) == "--signal-critical (-60) must not be above --signal-warning (-67)")
        #expect(ThresholdRow.signal.orderProblem(warning: -67, critical: -70) == nil)
        #expect(
            ThresholdRow.ftGap.orderProblem(warning: 200, critical: 150, name: { ThresholdRow.ftGap.key($0) })
                == "ft_gap_warning (200) must not be above ft_gap_critical (150)")
        // A scope's limits name each by where it came from: the file by key, a flag or a default by flag.
        let file = ["ft_gap_critical": 100.0]
        #expect(ThresholdRow.problem(file, in: .walk, flags: []) == nil)
        #expect(
            ThresholdRow.problem(file.merging(["ft_gap_warning": 150]) { $1 }, in: .walk, flags: ["ft_gap_warning"])
                == .usage("walk thresholds: --ft-gap-warning (150) must not be above ft_gap_critical (100)"))
        #expect(
            ThresholdRow.problem(["ft_gap_critical": 10], in: .walk, flags: [])
                == .usage("walk thresholds: --ft-gap-warning (\(NumberText.format(ThresholdRow.ftGap.warning))) must not be above ft_gap_critical (10)"))
        #expect(
            ThresholdRow.problem(["ft_gap_critical": 10], in: .walk)
                == .usage("walk thresholds: ft_gap_warning (\(NumberText.format(ThresholdRow.ftGap.warning))) must not be above ft_gap_critical (10)"))
    }

    @Test func theAirsLimitsResolveFromTheRows() throws {
        let t = try Thresholds.resolve(["retransmission_warning": 18, "retransmission_critical": 25, "signal_warning": -60, "snr_warning": 20]).get()
        #expect(t.retryWarning == 18 && t.retryCritical == 25 && t.signalWarningDbm == -60 && t.snrWarningDb == 20)
        #expect(t.utilizationCritical == ThresholdRow.utilization.critical && t.signalCriticalDbm == ThresholdRow.signal.critical)
        #expect(throws: SettingsError.usage("--retransmission-warning (20) must not be above --retransmission-critical (15)")) {
            try Thresholds.resolve(["retransmission_warning": 20]).get()
        }
        #expect(throws: SettingsError.usage("--signal-critical (-65) must not be above --signal-warning (-67)")) {
            try Thresholds.resolve(["signal_critical": -65]).get()
        }
        let h = HeartbeatThresholds(["loss_critical": 10, "rtt_warning": 300])
        #expect(h.lossCritical == 10 && h.rttWarningMs == 300 && h.lossWarning == ThresholdRow.loss.warning)
    }
}
