import PushdiagCore

/// `join` for people: a waterfall per cycle (each step's start, time, status and a bar on the
/// cycle's scale), then the steps over all cycles, the groups graded, the findings. A step
/// without a time prints "-", never 0.
public enum JoinTextRenderer {
    /// The bars' width in characters.
    static let width = 32

    public static func render(_ r: JoinReport) -> String {
        let reached = r.cycles.filter { $0.pushReadyMs != nil }.count
        var out = "pushdiag join on \(r.interface) to \(r.server) (\(r.mode)): \(NumberText.count(r.cycles.count, "cycle")), "
        out += "\(reached) push-ready: \(r.status.nagiosName)\n"
        for c in r.cycles { out += "\n" + cycle(c) }
        out += "\n" + summary(r)
        if let idle = r.apIdle { out += "\n" + apIdle(idle) }
        for n in r.notes { out += "  note: \(n)\n" }
        return out + "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
    }

    /// `--find-ap-idle`: a line per rung, then the limits, lowest (the safe interval) first.
    static func apIdle(_ a: APIdleReport) -> String {
        var out = "what the AP does to a silent station (--find-ap-idle):\n"
        var t = TextTable([("silence", .left), ("outcome", .left), ("silent", .right), ("frames", .right), ("detail", .left)])
        for r in a.rungs {
            t.add([
                DurationText.format(r.idleS), r.outcome.words, r.silentS.map { "\(NumberText.format($0)) s" } ?? "-", String(r.stationFrames),
                r.detail,
            ])
        }
        out += a.rungs.isEmpty ? "  no rung was tried\n" : t.render(indent: "  ")
        out +=
            "  frames: the station's own during the silence, as the interface and nl80211's control port show them (null and management frames are not visible)\n"
        if let safe = a.safeIntervalS {
            let all = a.limits.map { "\($0.source.words) \(DurationText.format($0.seconds))" }.joined(separator: "; ")
            out += "  longest safe heartbeat interval: \(DurationText.format(safe)), the lowest of: \(all)\n"
        }
        if a.limits.isEmpty { out += "  longest safe heartbeat interval: UNKNOWN (no drop, no BSS Max Idle Period, no --idle-timeout)\n" }
        return out
    }

    static func ms(_ v: Double?) -> String { v.map { "\(NumberText.format($0)) ms" } ?? "-" }
    static func slowest(_ d: JoinDurationStats, _ w: Double, _ c: Double?) -> String { d.maxText(warning: w, critical: c).map { "\($0) ms" } ?? "-" }

    static func cycle(_ c: JoinCycleReport) -> String {
        var out = "cycle \(c.cycle) at \(c.start), after \(c.trigger): "
        out += c.pushReadyMs.map { "push-ready in \(NumberText.format($0)) ms\n" } ?? "never push-ready\n"
        // The scale: push-ready, or the last step's end when the cycle never got there.
        let ends = c.steps.compactMap { s in s.offsetMs.map { $0 + (s.durationMs ?? 0) } }
        let scale = c.pushReadyMs ?? ends.max() ?? 0
        var t = TextTable([("step", .left), ("start", .right), ("time", .right), ("status", .left), ("waterfall", .left), ("detail", .left)])
        for s in c.steps {
            t.add([s.name.rawValue, ms(s.offsetMs), ms(s.durationMs), s.status.words, bar(s, scale: scale), s.detail])
        }
        out += t.render(indent: "  ")
        var facts: [String] = []
        if let s = c.slowest {
            facts.append("slowest \(s)" + (c.slowestPercent.map { " (\(NumberText.format($0))% of push-ready)" } ?? ""))
        }
        if let b = c.bssid { facts.append("BSS \(b)") }
        if let idle = c.bssMaxIdleS { facts.append("BSS Max Idle \(NumberText.format(idle)) s") }
        if let a = c.address { facts.append("address \(a)" + (c.addressChanged ? " (was \(c.addressBefore ?? "?"))" : "")) }
        if !facts.isEmpty { out += "  " + facts.joined(separator: "; ") + "\n" }
        return out
    }

    /// `|   ###      |`: where the step lies on the cycle's scale, at least one mark when it took
    /// any time; blank for a step without a time.
    static func bar(_ s: JoinStepReport, scale: Double) -> String {
        guard let o = s.offsetMs, let d = s.durationMs, scale > 0 else { return "" }
        let from = min(width - 1, max(0, Int((o / scale * Double(width)).rounded(.down))))
        let to = min(width, max(from + 1, Int(((o + d) / scale * Double(width)).rounded(.up))))
        return "|" + String(repeating: " ", count: from) + String(repeating: "#", count: to - from) + String(repeating: " ", count: width - to) + "|"
    }

    static func summary(_ r: JoinReport) -> String {
        var out = "over \(NumberText.count(r.cycles.count, "cycle")):\n"
        var t = TextTable([
            ("step", .left), ("ok", .right), ("skipped", .right), ("not used", .right), ("not visible", .right), ("failed", .right),
            ("not reached", .right), ("p50", .right), ("p95", .right), ("max", .right),
        ])
        func row(_ name: String, _ st: [String: Int]?, _ d: JoinDurationStats) -> [String] {
            let counts = JoinStepStatus.allCases.map { status in st.map { String($0[status.rawValue] ?? 0) } ?? "" }
            return [name] + counts + [ms(d.p50Ms), ms(d.p95Ms), ms(d.maxMs)]
        }
        for s in r.summary { t.add(row(s.name.rawValue, s.statuses, s.durations)) }
        t.add(row("push-ready", nil, r.pushReady))
        out += t.render(indent: "  ")
        var g = TextTable([("group", .left), ("steps", .left), ("p50", .right), ("p95", .right), ("max", .right), ("warn / crit", .left), ("status", .left)])
        g.add([
            "push-ready", "all", ms(r.pushReady.p50Ms), ms(r.pushReady.p95Ms), slowest(r.pushReady, r.pushReadyWarningMs, r.pushReadyCriticalMs),
            limits(r.pushReadyWarningMs, r.pushReadyCriticalMs),
            grade(r.pushReadySeverity),
        ])
        for x in r.groups {
            g.add([
                x.group.rawValue, x.group.steps.map(\.rawValue).joined(separator: ", "), ms(x.durations.p50Ms), ms(x.durations.p95Ms),
                slowest(x.durations, x.warningMs, x.criticalMs),
                limits(x.warningMs, x.criticalMs), grade(x.severity),
            ])
        }
        out += "\n" + g.render(indent: "  ")
        out += "  groups: the sum of their steps' times in each cycle, graded at the slowest; UNKNOWN where a step was not visible\n"
        if let s = r.slowest {
            out +=
                "  slowest step: \(s)" + (r.slowestPercent.map { ", its median \(NumberText.format($0))% of push-ready's" } ?? "") + "\n"
        }
        return out
    }

    static func limits(_ w: Double, _ c: Double?) -> String { "\(NumberText.format(w)) / \(c.map { NumberText.format($0) } ?? "-") ms" }
    static func grade(_ s: Severity?) -> String { s?.nagiosName ?? "UNKNOWN" }
}
