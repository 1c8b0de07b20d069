import Foundation
import PushdiagCore

/// `pushdiag report html`: a self-contained page (inline SVG and CSS, nothing fetched) from the
/// survey history: channel utilisation with the 40% line, retransmissions with the 15% line,
/// heartbeat round-trip percentiles, roams on a timeline, and the worst hours.
public struct HistoryHTMLRenderer {
    public struct Point {
        public var time: Date
        public var report: SurveyReport
        public init(time: Date, report: SurveyReport) {
            self.time = time
            self.report = report
        }
    }

    public init() {}

    static func esc(_ s: String) -> String { HTML.escape(s) }

    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// A percentage row's Apple limit (its default critical level) as a chart's limit line.
    static func apple(_ row: ThresholdRow) -> (Double, String)? {
        row.critical.map { ($0, "\(NumberText.format($0))% (Apple)") }
    }

    /// A line chart: series of (time, value), a horizontal limit line, y from 0.
    static func chart(
        id: String, title: String, unit: String, series: [(name: String, points: [(Date, Double)])], limit: (Double, String)?, from: Date, to: Date
    ) -> String {
        let maxV = max((series.flatMap { $0.points.map(\.1) }.max() ?? 0) * 1.15, (limit?.0 ?? 0) * 1.25, 1)
        let frame = SVGChart(height: 260, left: 56, top: 28, bottom: 34, high: maxV)
        let span = max(to.timeIntervalSince(from), 1)
        func x(_ d: Date) -> Double { frame.x(d.timeIntervalSince(from), of: span) }
        let y = frame.y
        var svg = frame.open(id: id, label: title) + frame.title(title)
        svg += frame.grid((0...4).map { maxV * Double($0) / 4 }, unit: unit)
        let fmt = DateFormatter()
        fmt.dateFormat = span > 3 * 86_400 ? "MM-dd" : "MM-dd HH:mm"
        fmt.timeZone = TimeZone(identifier: "UTC")
        for k in 0...4 {
            let d = from.addingTimeInterval(span * Double(k) / 4)
            let anchor = k == 0 ? "start" : k == 4 ? "end" : "middle"
            svg += "<text x=\"\(x(d))\" y=\"\(frame.height - 10)\" class=\"axis\" text-anchor=\"\(anchor)\">\(fmt.string(from: d))</text>"
        }
        if let (v, label) = limit { svg += frame.limit(v, label, labelOffset: -5) }
        for (i, s) in series.enumerated() {
            let color = palette[i % palette.count]
            let pts = s.points.sorted { $0.0 < $1.0 }.map { "\(x($0.0)),\(y($0.1))" }.joined(separator: " ")
            svg += "<polyline class=\"series\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(pts)\"/>"
            for p in s.points { svg += "<circle cx=\"\(x(p.0))\" cy=\"\(y(p.1))\" r=\"2.5\" fill=\"\(color)\"/>" }
            svg +=
                "<text x=\"\(frame.left + 8 + Double(i) * 170)\" y=\"\(frame.height - 22)\" class=\"legend\" fill=\"\(color)\" visibility=\"hidden\">\(esc(s.name))</text>"
        }
        svg += "</svg>"
        let legend = series.enumerated().map { "<span style=\"color:\(palette[$0.offset % palette.count])\">■ \(esc($0.element.name))</span>" }.joined(
            separator: " ")
        return "<figure>\(svg)<figcaption>\(legend.isEmpty ? "no data in this period" : legend)</figcaption></figure>"
    }

    public func render(_ points: [Point], from: Date, to: Date, title: String) -> String {
        func series(_ check: CheckName) -> [(name: String, points: [(Date, Double)])] {
            var by: [String: [(Date, Double)]] = [:]
            for p in points {
                for c in p.report.checks where c.check == check { if let v = c.value { by[c.subject, default: []].append((p.time, v)) } }
            }
            return by.keys.sorted().map { ($0, by[$0]!) }
        }
        var rtt: [String: [(Date, Double)]] = [:]
        var roams: [(Date, String)] = []
        for p in points {
            for h in p.report.heartbeats {
                guard let r = h.rttMs else { continue }
                rtt["\(h.target) median", default: []].append((p.time, r.median))
                rtt["\(h.target) p95", default: []].append((p.time, r.p95))
                rtt["\(h.target) p99", default: []].append((p.time, r.p99))
            }
            for e in p.report.capture?.roamingEvents ?? [] {
                roams.append((p.time, "\(e.station): \(e.fromBssid?.description ?? "?") → \(e.toBssid) (\(e.kind))"))
            }
        }
        // Worst hours: the worst status in each hour, then the highest utilisation.
        let hourFmt = DateFormatter()
        hourFmt.dateFormat = "yyyy-MM-dd HH:00"
        hourFmt.timeZone = TimeZone(identifier: "UTC")
        var hours: [String: (Severity, Double, [String])] = [:]
        for p in points {
            let key = hourFmt.string(from: p.time)
            var cur = hours[key] ?? (.ok, 0, [])
            cur.0 = max(cur.0, p.report.status)
            for c in p.report.checks where c.status == .critical || c.status == .warning {
                cur.2.append("\(c.check) \(c.subject)" + (c.value.map { " \(NumberText.format($0))" } ?? ""))
                if c.check == .channelUtilization, let v = c.value { cur.1 = max(cur.1, v) }
            }
            hours[key] = cur
        }
        let worst = hours.filter { $0.value.0 != .ok }.sorted { ($0.value.0, $0.value.1) > ($1.value.0, $1.value.1) }.prefix(10)

        var body =
            "<h1>\(Self.esc(title))</h1><p class=\"meta\">\(points.count) surveys from \(ISO8601DateFormatter().string(from: from)) to \(ISO8601DateFormatter().string(from: to))</p>"
        body += Self.chart(
            id: "utilization", title: "Channel utilisation", unit: "%", series: series(.channelUtilization), limit: Self.apple(.utilization), from: from, to: to
        )
        body += Self.chart(
            id: "retransmissions", title: "Retransmissions", unit: "%", series: series(.retransmissions) + series(.frameRetries),
            limit: Self.apple(.retransmission),
            from: from, to: to)
        body += Self.chart(
            id: "heartbeat-rtt", title: "Heartbeat round trip", unit: " ms", series: rtt.keys.sorted().map { ($0, rtt[$0]!) }, limit: nil, from: from, to: to)
        // Roams on a timeline.
        let frame = SVGChart(height: 90, left: 56, top: 40, bottom: 20)
        let span = max(to.timeIntervalSince(from), 1)
        var tl = frame.open(id: "roams", label: "Roaming events") + frame.title("Roaming events (\(roams.count))")
        tl += "<line x1=\"\(frame.left)\" x2=\"\(frame.width - frame.right)\" y1=\"55\" y2=\"55\" class=\"grid\"/>"
        for (d, label) in roams {
            let x = frame.x(d.timeIntervalSince(from), of: span)
            tl +=
                "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(frame.top)\" y2=\"\(frame.baseline)\" stroke=\"#d62728\" stroke-width=\"2\"><title>\(Self.esc(label))</title></line>"
        }
        tl += "</svg>"
        body += "<figure>\(tl)</figure>"
        body += "<h2>Worst hours</h2>"
        if worst.isEmpty {
            body += "<p>No warnings or critical checks in this period.</p>"
        } else {
            body += "<table id=\"worst-hours\"><tr><th>Hour (UTC)</th><th>Status</th><th>What</th></tr>"
            for (hour, v) in worst {
                body +=
                    "<tr class=\"\(v.0.rawValue)\"><td>\(hour)</td><td>\(v.0.rawValue.uppercased())</td><td>\(Self.esc(Array(Set(v.2)).sorted().prefix(6).joined(separator: "; ")))</td></tr>"
            }
            body += "</table>"
        }
        let css = "tr.critical td:nth-child(2){color:#b00020;font-weight:600}tr.warning td:nth-child(2){color:#a15c00}"
        return HTML.page(title: title, css: css, body: body)
    }
}
