import PushdiagCore

/// `walk` for people: the push connection's fate, the roams with what each cost, one row per
/// place, notes and findings.
public enum WalkTextRenderer {
    public static func render(_ r: WalkReport) -> String {
        let c = r.connection
        var out = "pushdiag walk on \(r.interface) to \(r.server) (\(r.protocol)), \(NumberText.format(r.durationSeconds)) s from \(r.started)"
        out += r.interrupted ? " (interrupted)\n" : "\n"
        out +=
            "  push connection: \(c.heartbeatsAnswered)/\(c.heartbeatsSent) heartbeats answered, \(c.heartbeatsLost) lost, \(NumberText.count(c.reconnects, "reconnect"))"
        if let rtt = c.rttMs { out += ", round trip median \(NumberText.format(rtt.median)) ms, p95 \(NumberText.format(rtt.p95)) ms" }
        out += c.lost ? ", LOST\n" : "\n"
        if let e = c.error { out += "  could not connect: \(e)\n" }
        out += "\n"
        if r.roams.isEmpty {
            out += "  roams: none\n"
        } else {
            var t = TextTable([
                ("time", .left), ("from", .left), ("to", .left), ("MHz", .left), ("802.11r", .left), ("link gap", .right), ("push gap", .right),
                ("lost", .right), ("connection", .left), ("grade", .left), ("place", .left),
            ])
            for m in r.roams {
                let ssid = m.fromSsid != m.toSsid ? " (\(m.fromSsid ?? "?") → \(m.toSsid ?? "?"))" : ""
                t.add([
                    Timestamp.clock(m.time), m.fromBssid?.description ?? "?", (m.toBssid?.description ?? "none") + ssid,
                    "\(m.fromFreqMhz.map(String.init) ?? "?")→\(m.toFreqMhz.map(String.init) ?? "?")",
                    Self.fastTransition(m), m.linkGapText.map { "\($0) ms" } ?? "-",
                    m.pushGapMs.map { "\(NumberText.format($0)) ms" } ?? "-", String(m.heartbeatsLost),
                    m.connection.rawValue + (m.reconnectMs.map { " in \(NumberText.format($0)) ms" } ?? ""), m.grade.rawValue.uppercased(), m.location,
                ])
            }
            out += "  roams:\n" + t.render(indent: "    ")
        }
        if !r.locations.isEmpty {
            var t = TextTable([
                ("place", .left), ("samples", .right), ("signal median", .right), ("worst", .right), ("retries", .right), ("rtt p95", .right),
                ("lost", .right), ("roams", .right),
            ])
            for p in r.locations {
                t.add([
                    p.name.isEmpty ? "(unnamed)" : p.name, String(p.samples), p.signalMedianDbm.map { "\(NumberText.format($0)) dBm" } ?? "UNKNOWN",
                    p.signalMinDbm.map { "\($0) dBm" } ?? "UNKNOWN", p.retriesPct.map { "\(NumberText.format($0))%" } ?? "UNKNOWN",
                    p.rttP95Ms.map { "\(NumberText.format($0)) ms" } ?? "-", String(p.heartbeatsLost), String(p.roams),
                ])
            }
            out += "\n  places:\n" + t.render(indent: "    ")
        }
        if let changes = r.interfaceChanges, !changes.isEmpty {
            var t = TextTable([("time", .left), ("interface", .left), ("place", .left)])
            for c in changes {
                t.add([
                    Timestamp.clock(c.time), c.change.words + (c.address.map { " \($0)" } ?? ""), c.location,
                ])
            }
            out += "\n  interface changes:\n" + t.render(indent: "    ")
        }
        out += lens(r)
        out += StallTextRenderer.render(r.stalls, r.stallSummary)
        for n in r.notes { out += "  note: \(n)\n" }
        return out + "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
    }

    /// The live view's line: place, AP, channel, signal, retries, last round trip, state.
    public static func live(place: String, bssid: MACAddress?, freqMhz: Int?, signalDbm: Int?, retriesPct: Double?, lastRTT: Double?, state: String) -> String {
        // Typed: left to infer, this array took the type checker 3.4 s.
        let parts: [String] = [
            place.isEmpty ? "-" : place, bssid?.description ?? "not connected", freqMhz.map { "\($0) MHz" } ?? "? MHz",
            signalDbm.map { "\($0) dBm" } ?? "? dBm", "retries " + (retriesPct.map { "\(NumberText.format($0))%" } ?? "?"),
            "rtt " + (lastRTT.map { "\(NumberText.format($0)) ms" } ?? "-"), state,
        ]
        return parts.joined(separator: "  ")
    }

    /// The 802.11r column: yes (completed), no, ? (not known), or FAILED at its stage.
    public static func fastTransition(_ m: WalkRoamReport) -> String {
        if let f = m.fastTransitionFailure { return "FAILED (\(f.stage.rawValue))" }
        return m.fastTransition.map { $0 ? "yes" : "no" } ?? "?"
    }
}
