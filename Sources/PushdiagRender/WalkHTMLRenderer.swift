import PushdiagCore

/// `walk --html FILE`: one self-contained page (inline SVG and CSS, nothing fetched) with the
/// walk's timeline (signal against the iPhone's limits and the heartbeat round trip over time,
/// places as bands, roams and disconnects as markers coloured by grade, the push connection's
/// losses; the iPhone lens's predicted roams, sticky zones and holes on the same axis) and the
/// roams, the lens's tables, places and findings under it.
public struct WalkHTMLRenderer {
    let limits: WalkThresholds

    public init(limits: WalkThresholds = WalkThresholds()) { self.limits = limits }

    /// Every chart of the page: one time axis, so the marks line up from chart to chart.
    static let frame = SVGChart(height: 240, left: 56, top: 30, bottom: 30)
    static let gradeColour = HTML.gradeColour
    static let bandFill = ["#eef3fb", "#f8f1e7"]

    /// Places as stretches of time: each sample's place from its time to the next sample's.
    struct Band {
        var name: String
        var from: Double
        var to: Double
    }

    /// The x axis: seconds since the walk's start.
    struct Axis {
        var start: Int64
        var span: Double
        func x(_ seconds: Double) -> Double { WalkHTMLRenderer.frame.x(seconds, of: span) }
        func seconds(_ rfc3339: String) -> Double? { Timestamp.nanoseconds(rfc3339: rfc3339).map { Double($0 - start) / 1e9 } }
    }

    static func clock(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? "\(t / 3600):\(pad(t / 60 % 60)):\(pad(t % 60))" : "\(t / 60):\(pad(t % 60))"
    }

    /// Round steps for an axis: about `count` ticks of 1, 2 or 5 × 10ⁿ between `low` and `high`.
    static func ticks(_ low: Double, _ high: Double, count: Double, steps: [Double] = []) -> [Double] {
        let raw = max((high - low) / count, 1e-9)
        var step = steps.first { $0 >= raw } ?? 0
        if step == 0 {
            let p = pow10(raw)
            step = [1.0, 2, 5, 10].map { $0 * p }.first { $0 >= raw } ?? 10 * p
        }
        var out: [Double] = []
        var v = (low / step).rounded(.up) * step
        while v <= high + step * 1e-9 {
            out.append(v)
            v += step
        }
        return out
    }

    static func pow10(_ x: Double) -> Double {
        var p = 1.0
        while p * 10 <= x { p *= 10 }
        while p > x { p /= 10 }
        return p
    }

    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    static func ms(_ v: Double?) -> String { v.map { "\(NumberText.format($0)) ms" } ?? "–" }

    public func render(_ r: WalkReport) -> String {
        let start = Timestamp.nanoseconds(rfc3339: r.started) ?? 0
        let axis = Axis(start: start, span: max(r.durationSeconds, 1))
        // A place runs from its first sample to the next place's first sample.
        var bands: [Band] = []
        for s in r.samples {
            guard let t = axis.seconds(s.time), bands.last?.name != s.location else { continue }
            if !bands.isEmpty { bands[bands.count - 1].to = t }
            bands.append(Band(name: s.location, from: bands.isEmpty ? 0 : t, to: t))
        }
        if !bands.isEmpty { bands[bands.count - 1].to = axis.span }

        var body = "<h1>pushdiag walk on \(HTML.escape(r.interface)) to \(HTML.escape(r.server)) (\(HTML.escape(r.protocol)))</h1>"
        let c = r.connection
        body +=
            "<p class=\"meta\"><span id=\"status\" class=\"status \(r.status.rawValue)\">\(r.status.nagiosName)</span> · \(HTML.escape(r.started)) · \(NumberText.format(r.durationSeconds)) s\(r.interrupted ? " (interrupted)" : "") · "
            + "\(c.heartbeatsAnswered)/\(c.heartbeatsSent) heartbeats answered, \(c.heartbeatsLost) lost, \(NumberText.count(c.reconnects, "reconnect"))"
            + (c.rttMs.map { ", round trip median \(NumberText.format($0.median)) ms, p95 \(NumberText.format($0.p95)) ms" } ?? "")
            + (c.lost ? ", <strong>connection lost</strong>" : "") + "</p>"
        if let e = c.error { body += "<p class=\"error\">The push connection could not be opened: \(HTML.escape(e))</p>" }

        let signal = r.samples.compactMap { s in s.roamSignalDbm.flatMap { v in axis.seconds(s.time).map { ($0, Double(v)) } } }
        let low = min(signal.map(\.1).min() ?? limits.signalCriticalDbm, limits.signalCriticalDbm) - 6
        let high = max(signal.map(\.1).max() ?? limits.signalWarningDbm, limits.signalWarningDbm) + 6
        body += chart(
            id: "signal", title: "Signal of the AP (dBm; the driver's average where it keeps one)", axis: axis, bands: bands, report: r, range: (low, high),
            tickCount: 5,
            series: segments(r.samples, axis) { $0.roamSignalDbm.map(Double.init) },
            limits: [
                (limits.signalWarningDbm, "\(NumberText.format(limits.signalWarningDbm)) dBm (cell edge, warning)"),
                (
                    limits.signalCriticalDbm,
                    "\(NumberText.format(limits.signalCriticalDbm)) dBm (\(limits.signalCriticalIsIOSTrigger ? "iOS looks elsewhere" : "critical"))"
                ),
            ], unit: "")
        let rtts = r.samples.compactMap(\.rttMs)
        body += chart(
            id: "rtt", title: "Heartbeat round trip (ms)", axis: axis, bands: bands, report: r, range: (0, max((rtts.max() ?? 0) * 1.15, 10)), tickCount: 4,
            series: segments(r.samples, axis) { $0.rttMs }, limits: [], unit: "")
        body +=
            "<p class=\"legend\"><span style=\"color:\(Self.gradeColour[.ok]!)\">▌roam OK</span> <span style=\"color:\(Self.gradeColour[.warning]!)\">▌warning</span> <span style=\"color:\(Self.gradeColour[.critical]!)\">▌critical</span> ┆ dashed: a disconnect with no return, or the push connection waiting or failed</p>"
        body += roamsTable(r) + lensTables(r) + stallsTable(r) + placesTable(r) + interfaceTable(r) + findings(r)
        let css = """
            .place-label{font-size:11px;fill:#555}.legend{font-size:12px;color:#555}.error{color:#b00020}
            .series{fill:none;stroke:#1f77b4;stroke-width:2}h2{font-size:17px;margin-top:28px}
            #roams-table td{font-size:12px}tr.why td{color:#555;border-top:none}
            """
        return HTML.page(title: "pushdiag walk \(r.started)", css: css, body: body)
    }

    /// A series as polylines, broken where a sample has no value.
    func segments(_ samples: [WalkSampleReport], _ axis: Axis, _ value: (WalkSampleReport) -> Double?) -> [[(Double, Double)]] {
        var out: [[(Double, Double)]] = [[]]
        for s in samples {
            if let v = value(s), let t = axis.seconds(s.time) {
                out[out.count - 1].append((t, v))
            } else if !out[out.count - 1].isEmpty {
                out.append([])
            }
        }
        return out.filter { !$0.isEmpty }
    }

    func chart(
        id: String, title: String, axis: Axis, bands: [Band], report r: WalkReport, range: (Double, Double), tickCount: Double, series: [[(Double, Double)]],
        limits: [(Double, String)], unit: String
    ) -> String {
        var frame = Self.frame
        (frame.low, frame.high) = range
        let (top, bottom) = (frame.top, frame.baseline)
        var svg = frame.open(id: id, label: title)
        for (i, b) in bands.enumerated() {
            let x0 = axis.x(b.from)
            let x1 = axis.x(b.to)
            svg +=
                "<rect class=\"place\" data-place=\"\(HTML.escape(b.name))\" x=\"\(x0)\" y=\"\(top)\" width=\"\(max(x1 - x0, 0.5))\" height=\"\(bottom - top)\" fill=\"\(Self.bandFill[i % 2])\"><title>\(HTML.escape(b.name.isEmpty ? "(no place named)" : b.name))</title></rect>"
            if !b.name.isEmpty, x1 - x0 >= Double(b.name.count) * 6.5 + 6 {
                svg += "<text class=\"place-label\" x=\"\(x0 + 3)\" y=\"\(top + 12)\">\(HTML.escape(b.name))</text>"
            }
        }
        svg += frame.title(title) + frame.grid(Self.ticks(range.0, range.1, count: tickCount), unit: unit)
        let seconds = Self.ticks(0, axis.span, count: 6, steps: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200])
        for s in seconds {
            svg += "<text x=\"\(axis.x(s))\" y=\"\(frame.height - 10)\" class=\"axis\" text-anchor=\"\(s == 0 ? "start" : "middle")\">\(Self.clock(s))</text>"
        }
        // The first limit's label above its line, the next below (-67 and -70 are close).
        for (i, (v, label)) in limits.enumerated() { svg += frame.limit(v, label, labelOffset: i % 2 == 0 ? -4 : 12) }
        for line in series {
            svg += "<polyline class=\"series\" points=\"\(line.map { "\(axis.x($0.0)),\(frame.y($0.1))" }.joined(separator: " "))\"/>"
        }
        svg += lensMarks(r, axis, top: top, bottom: bottom)
        // Roams and disconnects, coloured by grade; the push connection's waits and failures.
        for m in r.roams {
            guard let t = axis.seconds(m.time) else { continue }
            let x = axis.x(t)
            let what =
                "\(Timestamp.clock(m.time)) \(m.fromBssid?.description ?? "?") → \(m.toBssid?.description ?? "none"): link gap \(m.linkGapText.map { "\($0) ms" } ?? "–"), push gap \(Self.ms(m.pushGapMs)), connection \(m.connection), \(m.grade.rawValue.uppercased())"
            svg +=
                "<line class=\"roam \(m.grade.rawValue)\(m.toBssid == nil ? " disconnect" : "")\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(top)\" y2=\"\(bottom)\" stroke=\"\(Self.gradeColour[m.grade]!)\" stroke-width=\"2.5\"\(m.toBssid == nil ? " stroke-dasharray=\"5 3\"" : "")><title>\(HTML.escape(what))</title></line>"
        }
        for c in r.interfaceChanges ?? [] {
            guard let t = axis.seconds(c.time) else { continue }
            let x = axis.x(t)
            svg +=
                "<line class=\"interface \(c.change)\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(bottom - 10)\" y2=\"\(bottom)\" stroke=\"#555\" stroke-width=\"2\"><title>\(HTML.escape(c.change.words + (c.address.map { " \($0)" } ?? "")))</title></line>"
        }
        for s in r.connection.states where s.state == .waiting || s.state == .failed {
            guard let t = axis.seconds(s.time) else { continue }
            let x = axis.x(t)
            svg +=
                "<line class=\"push-state \(s.state.rawValue)\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(top)\" y2=\"\(bottom)\" stroke=\"#7f3fbf\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"><title>push connection \(s.state.rawValue)\(HTML.escape(s.reason.map { ": \($0)" } ?? ""))</title></line>"
        }
        return "<figure>\(svg)</figure>"
    }

    /// A table of the page: its heading with the count of rows, then the rows under their
    /// columns, or `empty` in a paragraph when there are none.
    static func table<Row>(_ title: String, id: String, columns: [String], _ rows: [Row], empty: String, row: (Row) -> String) -> String {
        let heading = "<h2>\(title) (\(rows.count))</h2>"
        guard !rows.isEmpty else { return heading + "<p>\(empty)</p>" }
        return heading + "<table id=\"\(id)\"><tr>" + columns.map { "<th>\($0)</th>" }.joined() + "</tr>" + rows.map(row).joined() + "</table>"
    }

    func roamsTable(_ r: WalkReport) -> String {
        let columns = ["Time", "Place", "From", "To", "MHz", "802.11r", "Link gap", "Push gap", "Lost", "Connection", "Grade"]
        return Self.table("Roams", id: "roams-table", columns: columns, r.roams, empty: "The link did not move.") { m in
            let ssid = m.fromSsid != m.toSsid ? " (\(m.fromSsid ?? "?") → \(m.toSsid ?? "?"))" : ""
            let cells: [String] = [
                Timestamp.clock(m.time), m.location, m.fromBssid?.description ?? "?", (m.toBssid?.description ?? "none") + ssid,
                "\(m.fromFreqMhz.map(String.init) ?? "?") → \(m.toFreqMhz.map(String.init) ?? "?")", WalkTextRenderer.fastTransition(m),
                m.linkGapText.map { "\($0) ms" } ?? "–", Self.ms(m.pushGapMs), String(m.heartbeatsLost),
                m.connection.rawValue + (m.reconnectMs.map { " in \(NumberText.format($0)) ms" } ?? ""),
            ]
            return "<tr class=\"\(m.grade.rawValue)\">" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined()
                + "<td class=\"grade\">\(m.grade.rawValue.uppercased())</td></tr>"
                + "<tr class=\"why \(m.grade.rawValue)\"><td></td><td colspan=\"10\">\(HTML.escape(m.reason))</td></tr>"
        }
    }

    func placesTable(_ r: WalkReport) -> String {
        let columns = ["Place", "Samples", "Signal median", "Worst", "Retries", "Round trip p95", "Heartbeats lost", "Roams"]
        return Self.table("Places", id: "places-table", columns: columns, r.locations, empty: "No samples.") { p in
            let median: String = p.signalMedianDbm.map { "\(NumberText.format($0)) dBm" } ?? "UNKNOWN"
            let worst: String = p.signalMinDbm.map { "\($0) dBm" } ?? "UNKNOWN"
            let retries: String = p.retriesPct.map { "\(NumberText.format($0))%" } ?? "UNKNOWN"
            let cells: [String] = [
                p.name.isEmpty ? "(unnamed)" : p.name, String(p.samples), median, worst, retries, Self.ms(p.rttP95Ms), String(p.heartbeatsLost),
                String(p.roams),
            ]
            return "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }
    }

    /// Each bad heartbeat with what overlapped it; the summary and repeats under the table.
    func stallsTable(_ r: WalkReport) -> String {
        let s = r.stallSummary
        var head = "<p id=\"stall-summary\">\(HTML.escape(StallTextRenderer.headline(s)))</p>"
        if !s.periodic.isEmpty {
            head += "<ul id=\"stall-periodic\">" + s.periodic.map { "<li>\(HTML.escape(StallTextRenderer.periodic($0)))</li>" }.joined() + "</ul>"
        }
        return Self.table("Stalls", id: "stalls-table", columns: ["Sent", "Round trip", "Cause", "What overlapped it"], r.stalls, empty: "No bad heartbeat.") {
            x in
            let cells = [
                Timestamp.clock(x.time), x.rttMs.map { "\(NumberText.format($0)) ms" } ?? "lost", x.cause.rawValue, x.detail ?? x.cause.words,
            ]
            return "<tr class=\"\(x.cause.rawValue)\">" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        } + head
    }

    func interfaceTable(_ r: WalkReport) -> String {
        guard let changes = r.interfaceChanges, !changes.isEmpty else { return "" }
        return Self.table("Interface changes", id: "interface-table", columns: ["Time", "Place", "Change"], changes, empty: "") { c in
            let what = c.change.words + (c.address.map { " \($0)" } ?? "")
            return "<tr><td>\(HTML.escape(Timestamp.clock(c.time)))</td><td>\(HTML.escape(c.location))</td><td>\(HTML.escape(what))</td></tr>"
        }
    }

    func findings(_ r: WalkReport) -> String { HTML.findings(r.findings, notes: r.notes, none: "None: every roam, sample and place within the limits.") }
}
