import PushdiagCore

/// The iPhone lens on the walk's page: predicted roams as markers on the same time axis as the
/// laptop's real ones, coverage holes and sticky zones as strips, and their tables.
extension WalkHTMLRenderer {
    static let predictedColour = "#1f9e89"
    static let holeColour = "#d62728"
    static let stickyColour = "#ff9f1c"

    /// The chart's marks for the lens, between `top` and `bottom`.
    func lensMarks(_ r: WalkReport, _ axis: Axis, top: Double, bottom: Double) -> String {
        var svg = ""
        let strip = { (cls: String, from: String, to: String, y: Double, colour: String, what: String) -> String in
            guard let a = axis.seconds(from), let b = axis.seconds(to) else { return "" }
            let x0 = axis.x(a)
            return
                "<rect class=\"\(cls)\" x=\"\(x0)\" y=\"\(y)\" width=\"\(max(axis.x(b) - x0, 2))\" height=\"5\" fill=\"\(colour)\" opacity=\"0.8\"><title>\(HTML.escape(what))</title></rect>"
        }
        for h in r.coverageHoles {
            svg += strip(
                "coverage-hole", h.start, h.end, bottom - 5, Self.holeColour,
                "coverage hole: no BSS of the SSID at \(NumberText.format(IOSRoamingRule.trigger.value)) dBm or above (\(NumberText.format(h.seconds)) s)")
        }
        for z in r.stickyZones {
            svg += strip(
                "sticky-zone \(z.kind.rawValue)", z.start, z.end, top, Self.stickyColour, "sticky zone (\(z.kind.rawValue)) on \(z.bssid?.description ?? "?")")
        }
        for p in r.predictedRoams {
            guard let t = axis.seconds(p.time) else { continue }
            let x = axis.x(t)
            let what = "iPhone would roam \(p.fromBssid) → \(p.toBssid): \(p.rule.words)"
            svg +=
                "<line class=\"predicted-roam\" x1=\"\(x)\" x2=\"\(x)\" y1=\"\(top)\" y2=\"\(bottom)\" stroke=\"\(Self.predictedColour)\" stroke-width=\"2\" stroke-dasharray=\"1 3\"><title>\(HTML.escape(what))</title></line>"
        }
        return svg
    }

    func lensTables(_ r: WalkReport) -> String {
        let dbm = { (v: Double?) in v.map { "\(NumberText.format($0)) dBm" } ?? "–" }
        let cells = { (c: [String]) in "<tr>" + c.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>" }
        var out =
            "<p class=\"legend\">Through an iPhone's eyes: iOS's roaming rules on this walk's samples and scan cache, signals offset by \(NumberText.format(r.signalOffsetDb)) dB. <span style=\"color:\(Self.predictedColour)\">┆ predicted iPhone roam</span> <span style=\"color:\(Self.stickyColour)\">▬ sticky zone</span> <span style=\"color:\(Self.holeColour)\">▬ coverage hole</span></p>"
        out += Self.table(
            "Predicted iPhone roams", id: "predicted-roams-table", columns: ["Time", "Place", "From", "To", "Signal", "Rule", "Scan", "Laptop on"],
            r.predictedRoams, empty: "None: an iPhone would have stayed where it was (see the sticky zones and the notes)."
        ) { p in
            cells([
                Timestamp.clock(p.time), p.place, p.fromBssid.description, p.toBssid.description, "\(dbm(p.fromSignalDbm)) → \(dbm(p.toSignalDbm))",
                p.rule.words + (p.bandChanged ? " (band change: push restarts)" : ""),
                p.scan?.rawValue ?? "?", p.laptopBssid?.description ?? "not connected",
            ])
        }
        out += Self.table(
            "Sticky zones", id: "sticky-zones-table", columns: ["From", "To", "Seconds", "Kind", "BSS", "Weakest", "Best other", "Place"], r.stickyZones,
            empty: "None."
        ) { z in
            cells([
                Timestamp.clock(z.start), Timestamp.clock(z.end), NumberText.format(z.seconds), z.kind.rawValue, z.bssid?.description ?? "–",
                dbm(z.signalMinDbm),
                dbm(z.bestCandidateDbm), z.place,
            ])
        }
        out += Self.table(
            "Coverage holes", id: "coverage-holes-table", columns: ["From", "To", "Seconds", "Best of the SSID", "Place"], r.coverageHoles, empty: "None seen."
        ) { h in
            cells([Timestamp.clock(h.start), Timestamp.clock(h.end), NumberText.format(h.seconds), dbm(h.bestSignalDbm), h.place])
        }
        out += Self.table(
            "Coverage per place", id: "coverage-table",
            columns: [
                "Place", "Samples with scan", "BSSs ≥ \(NumberText.format(IOSRoamingRule.coverage.value)) dBm (fewest)", "Most",
                "Co-channel ≥ \(NumberText.format(IOSRoamingRule.coChannel.value)) dBm",
            ] + WiFiBand.allCases.map(\.description), r.coverage,
            empty: "No samples."
        ) { c in
            let n = { (v: Int?) in v.map(String.init) ?? "UNKNOWN" }
            let share = { (v: Double?) in v.map { "\(NumberText.format(NumberText.rounded($0 * 100, places: 1)))%" } ?? "UNKNOWN" }
            return cells([
                c.place.isEmpty ? "(unnamed)" : c.place, "\(c.samplesWithScan)/\(c.samples)", n(c.bssAbove67), n(c.bssAbove67Max), n(c.cochannelAbove82),
                share(c.bandShares.band24), share(c.bandShares.band5), share(c.bandShares.band6),
            ])
        }
        return out
    }
}
