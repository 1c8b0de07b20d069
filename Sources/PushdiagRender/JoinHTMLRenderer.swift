import PushdiagCore

/// `join --html FILE`: one self-contained page (inline SVG and CSS, nothing fetched), the
/// waterfall of every cycle on one scale (a bar per step measured, at its start and as long as
/// it took; the status in words for a step without a time, never a bar of a guessed length;
/// push-ready marked), each cycle's steps with what timed them, then the steps over all cycles
/// and the groups graded, as `join`'s text report gives them.
public struct JoinHTMLRenderer {
    public init() {}

    static let rowHeight = 22.0
    static let gradeColour = HTML.gradeColour
    static let groupColour: [JoinGroup: String] = [.link: "#1f77b4", .keys: "#9467bd", .address: "#2ca02c", .name: "#e69500", .push: "#d62728"]

    static func ms(_ v: Double?) -> String { v.map { "\(NumberText.format($0)) ms" } ?? "–" }

    /// The scale shared by the cycles, so that their bars compare: the longest push-ready, or the
    /// last measured step's end where a cycle never got there.
    static func scale(_ r: JoinReport) -> Double {
        let ends = r.cycles.flatMap { c in c.steps.compactMap { s in s.offsetMs.map { $0 + (s.durationMs ?? 0) } } + [c.pushReadyMs].compactMap { $0 } }
        let finite = ends.filter { $0.isFinite && $0 > 0 }
        return finite.max() ?? 1
    }

    public func render(_ r: JoinReport) -> String {
        let reached = r.cycles.filter { $0.pushReadyMs != nil }.count
        var body = "<h1>pushdiag join on \(HTML.escape(r.interface)) to \(HTML.escape(r.server)) (\(HTML.escape(r.mode)))</h1>"
        body +=
            "<p class=\"meta\"><span id=\"status\" class=\"status \(r.status.rawValue)\">\(r.status.nagiosName)</span> · \(NumberText.count(r.cycles.count, "cycle")), \(reached) push-ready"
            + (r.pushReady.p50Ms.map { " · push-ready median \(NumberText.format($0)) ms" } ?? "")
            + (r.pushReady.maxText(warning: r.pushReadyWarningMs, critical: r.pushReadyCriticalMs).map { ", slowest \($0) ms" } ?? "") + "</p>"
        let scale = Self.scale(r)
        body +=
            "<p class=\"legend\">"
            + JoinGroup.allCases.map { "<span style=\"color:\(Self.groupColour[$0]!)\">▌\($0.rawValue)</span>" }.joined(separator: " ")
            + " ┆ every cycle on one scale; a step without a time gives its status, not a bar</p>"
        for c in r.cycles { body += cycle(c, scale: scale) }
        body += summary(r) + (r.apIdle.map(apIdle) ?? "") + findings(r)
        let css = """
            .legend{font-size:12px;color:#555}h2{font-size:17px;margin-top:28px}.step-name{font-size:12px;fill:#222}
            .step-status{font-size:12px;fill:#777;font-style:italic}.step-status.failed,.step-status.not_reached{fill:#b00020}
            .push-ready{stroke:#111;stroke-width:1.5;stroke-dasharray:4 3}.push-ready-label{font-size:11px;fill:#111}
            .steps td{font-size:12px}td.num{text-align:right;white-space:nowrap}tr.not-measured td{color:#777}
            """
        return HTML.page(title: "pushdiag join \(r.cycles.first?.start ?? r.interface)", css: css, body: body)
    }

    /// One cycle: its waterfall, then its steps as a table.
    func cycle(_ c: JoinCycleReport, scale: Double) -> String {
        // A row a step, the steps' names in the left margin.
        let (top, bottom) = (28.0, 26.0)
        let frame = SVGChart(height: top + Self.rowHeight * Double(c.steps.count) + bottom, left: 130, top: top, bottom: bottom)
        func x(_ ms: Double) -> Double { frame.x(min(max(ms, 0), scale), of: scale) }
        let ready = c.pushReadyMs.map { "push-ready in \(NumberText.format($0)) ms" } ?? "never push-ready"
        var out =
            "<section class=\"cycle \(c.severity.rawValue)\" id=\"cycle-\(c.cycle)\"><h2>Cycle \(c.cycle) at \(HTML.escape(c.start)), after \(HTML.escape(c.trigger)): \(ready) <span class=\"status \(c.severity.rawValue)\">\(c.severity.nagiosName)</span></h2>"
        var svg = frame.open(id: "waterfall-\(c.cycle)", classes: "chart waterfall", label: "cycle \(c.cycle): \(ready)")
        for t in WalkHTMLRenderer.ticks(0, scale, count: 6) {
            svg += "<line x1=\"\(x(t))\" x2=\"\(x(t))\" y1=\"\(top - 4)\" y2=\"\(frame.baseline)\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(x(t))\" y=\"\(frame.height - 8)\" class=\"axis\" text-anchor=\"\(t == 0 ? "start" : "middle")\">\(NumberText.format(t)) ms</text>"
        }
        for (i, s) in c.steps.enumerated() {
            let y = top + Self.rowHeight * Double(i)
            svg += "<text class=\"step-name\" x=\"\(frame.left - 8)\" y=\"\(y + 15)\" text-anchor=\"end\">\(HTML.escape(s.name.rawValue))</text>"
            if s.status == .ok, let o = s.offsetMs, let d = s.durationMs, o.isFinite, d.isFinite {
                let x0 = x(o)
                let what = "\(s.name): from \(NumberText.format(o)) ms, \(NumberText.format(d)) ms; \(s.detail)"
                svg +=
                    "<rect class=\"step ok \(s.name.group.rawValue)\" data-step=\"\(s.name.rawValue)\" data-offset-ms=\"\(NumberText.format(o))\" data-duration-ms=\"\(NumberText.format(d))\" x=\"\(x0)\" y=\"\(y + 4)\" width=\"\(max(x(o + d) - x0, 1))\" height=\"\(Self.rowHeight - 8)\" fill=\"\(Self.groupColour[s.name.group]!)\"><title>\(HTML.escape(what))</title></rect>"
            } else {
                // No time was measured: the status in words where its bar would start, no number.
                let at = s.offsetMs.flatMap { $0.isFinite ? x($0) : nil } ?? frame.left
                svg +=
                    "<text class=\"step-status \(s.status.rawValue)\" data-step=\"\(s.name.rawValue)\" x=\"\(at + 4)\" y=\"\(y + 15)\">\(HTML.escape(s.status.words))<title>\(HTML.escape(s.detail))</title></text>"
            }
        }
        if let p = c.pushReadyMs, p.isFinite {
            svg +=
                "<line class=\"push-ready\" data-push-ready-ms=\"\(NumberText.format(p))\" x1=\"\(x(p))\" x2=\"\(x(p))\" y1=\"\(top - 8)\" y2=\"\(frame.baseline)\"/>"
            svg +=
                "<text class=\"push-ready-label\" x=\"\(x(p) - 4)\" y=\"\(top - 12)\" text-anchor=\"end\">push-ready \(NumberText.format(p)) ms</text>"
        }
        out += "<figure>\(svg)</svg></figure>"
        let columns = ["Step", "Start", "Time", "Status", "Detail"]
        out += "<table class=\"steps\" id=\"steps-\(c.cycle)\"><tr>" + columns.map { "<th>\($0)</th>" }.joined() + "</tr>"
        for s in c.steps {
            let measured = s.status == .ok && s.durationMs != nil
            out +=
                "<tr class=\"\(measured ? "measured" : "not-measured")\" data-step=\"\(s.name.rawValue)\"><td>\(HTML.escape(s.name.rawValue))</td><td class=\"num\">\(Self.ms(s.offsetMs))</td><td class=\"num\">\(Self.ms(s.durationMs))</td><td>\(HTML.escape(s.status.words))</td><td>\(HTML.escape(s.detail))</td></tr>"
        }
        out += "</table>"
        var facts: [String] = []
        if let s = c.slowest { facts.append("slowest \(s)" + (c.slowestPercent.map { " (\(NumberText.format($0))% of push-ready)" } ?? "")) }
        if let b = c.bssid { facts.append("BSS \(b)") }
        if let idle = c.bssMaxIdleS { facts.append("BSS Max Idle \(NumberText.format(idle)) s") }
        if let a = c.address { facts.append("address \(a)" + (c.addressChanged ? " (was \(c.addressBefore ?? "?"))" : "")) }
        if !facts.isEmpty { out += "<p class=\"facts\">\(HTML.escape(facts.joined(separator: "; ")))</p>" }
        return out + "</section>"
    }

    /// The steps over all cycles, then push-ready and the groups graded.
    func summary(_ r: JoinReport) -> String {
        var out = "<h2>Over \(NumberText.count(r.cycles.count, "cycle"))</h2>"
        let statusColumns = JoinStepStatus.allCases.map { $0.words }
        out += "<table id=\"summary-table\"><tr><th>Step</th>" + statusColumns.map { "<th>\($0)</th>" }.joined() + "<th>p50</th><th>p95</th><th>max</th></tr>"
        for s in r.summary {
            let counts = JoinStepStatus.allCases.map { "<td class=\"num\">\(s.statuses[$0.rawValue] ?? 0)</td>" }.joined()
            out +=
                "<tr data-step=\"\(s.name.rawValue)\"><td>\(HTML.escape(s.name.rawValue))</td>\(counts)<td class=\"num\">\(Self.ms(s.durations.p50Ms))</td><td class=\"num\">\(Self.ms(s.durations.p95Ms))</td><td class=\"num\">\(Self.ms(s.durations.maxMs))</td></tr>"
        }
        out += "</table>"
        func limits(_ w: Double, _ c: Double?) -> String { "\(NumberText.format(w)) / \(c.map { NumberText.format($0) } ?? "–") ms" }
        func row(_ name: String, _ steps: String, _ d: JoinDurationStats, _ w: Double, _ c: Double?, _ s: Severity?) -> String {
            let grade = s ?? .unknown
            return
                "<tr class=\"\(grade.rawValue)\" data-group=\"\(name)\"><td>\(name)</td><td>\(HTML.escape(steps))</td><td class=\"num\">\(Self.ms(d.p50Ms))</td><td class=\"num\">\(Self.ms(d.p95Ms))</td><td class=\"num\">\(d.maxText(warning: w, critical: c).map { "\($0) ms" } ?? "–")</td><td>\(limits(w, c))</td><td class=\"grade\">\(grade.nagiosName)</td></tr>"
        }
        out +=
            "<h2>Groups</h2><table id=\"groups-table\"><tr><th>Group</th><th>Steps</th><th>p50</th><th>p95</th><th>max</th><th>warn / crit</th><th>Grade</th></tr>"
        out += row("push-ready", "all", r.pushReady, r.pushReadyWarningMs, r.pushReadyCriticalMs, r.pushReadySeverity)
        for g in r.groups {
            out += row(g.group.rawValue, g.group.steps.map(\.rawValue).joined(separator: ", "), g.durations, g.warningMs, g.criticalMs, g.severity)
        }
        out += "</table>"
        out += "<p class=\"legend\">Groups: the sum of their steps' times in each cycle, graded at the slowest; UNKNOWN where a step was not visible.</p>"
        if let s = r.slowest {
            out += "<p id=\"slowest\">Slowest step: \(s)" + (r.slowestPercent.map { ", its median \(NumberText.format($0))% of push-ready's" } ?? "") + "</p>"
        }
        return out
    }

    /// `--find-ap-idle`: a row per rung, then the safe interval and the limits it is the lowest of.
    func apIdle(_ a: APIdleReport) -> String {
        func s(_ v: Double?) -> String { v.map { "\(NumberText.format($0)) s" } ?? "–" }
        var out =
            "<h2>What the AP does to a silent station</h2><table id=\"ap-idle-table\"><tr><th>Silence</th><th>Outcome</th><th>Silent</th><th>Frames</th><th>Detail</th></tr>"
        for r in a.rungs {
            out +=
                "<tr class=\"\(r.outcome.rawValue)\"><td>\(HTML.escape(DurationText.format(r.idleS)))</td><td>\(HTML.escape(r.outcome.words))</td><td class=\"num\">\(s(r.silentS))</td><td class=\"num\">\(r.stationFrames)</td><td>\(HTML.escape(r.detail))</td></tr>"
        }
        out += "</table>"
        if let safe = a.safeIntervalS {
            out += "<p id=\"safe-interval\">Longest safe heartbeat interval: <b>\(HTML.escape(DurationText.format(safe)))</b>, the lowest of: "
            out += a.limits.map { HTML.escape("\($0.source.words) \(DurationText.format($0.seconds))") }.joined(separator: "; ") + ".</p>"
        }
        return out
    }

    func findings(_ r: JoinReport) -> String { HTML.findings(r.findings, notes: r.notes, none: "None.") }
}
