import PushdiagCore

/// `pushdiag capture` as a field engineer reads it: totals, BSS table, channels, transmitters,
/// roaming events, then findings with their thresholds.
public struct CaptureTextRenderer {
    /// At most this many rows per table (0: all).
    public var limit: Int
    /// One station asked for (`--station`): its details are shown whatever they hold.
    public var focused: Bool

    public init(limit: Int = 20, focused: Bool = false) {
        self.limit = limit
        self.focused = focused
    }

    func pct(_ v: Double?) -> String { v.map { NumberText.format($0) + "%" } ?? "-" }

    public func render(_ r: CaptureReport, title: String? = nil) -> String {
        var out = ""
        let name = title ?? r.file ?? "capture"
        var head = "\(name): \(grouped(r.frames)) frames"
        if let lt = r.linkTypeName, let n = r.linkType { head += " (\(lt), link type \(n))" }
        if let d = r.durationSeconds, let s = r.start { head += " over \(NumberText.format(d)) s from \(s)" }
        out += head + "\n"
        if let e = r.error { out += "  error: \(e)\n" }
        guard r.frames > 0 else { return out }
        let m = r.management
        out +=
            "  802.11 frames \(grouped(r.dot11Frames)), retries \(grouped(r.retryFrames)) (\(pct(r.retryPercent))), beacons \(grouped(r.beacons)), data \(grouped(r.dataFrames)), control \(grouped(r.controlFrames))"
        if r.undecodable > 0 { out += ", undecodable \(grouped(r.undecodable))" }
        if r.invalidFrames > 0 { out += ", invalid (protocol version not 0) \(grouped(r.invalidFrames))" }
        out += "\n"
        out +=
            "  management: assoc \(m.associationRequest)/\(m.associationResponse), reassoc \(m.reassociationRequest)/\(m.reassociationResponse), auth \(m.authentication), deauth \(m.deauthentication), disassoc \(m.disassociation), probe \(m.probeRequest)/\(m.probeResponse), action \(m.action)\n"
        var fcs = "  FCS: \(grouped(r.fcsFrames)) frames carry one, \(grouped(r.fcsBadFlagged)) flagged bad by the radio"
        if let bad = r.fcsBad { fcs += ", \(grouped(bad)) fail recomputation" }
        if r.fcsFrames > 0 || r.fcsBad != nil { out += fcs + "\n" }
        if r.malformedElements > 0 { out += "  \(grouped(r.malformedElements)) frames with malformed information elements (read up to the fault)\n" }

        if !r.bss.isEmpty {
            out += "\n"
            var t = TextTable([
                ("BSSID", .left), ("SSID", .left), ("CH", .right), ("FRAMES", .right), ("RETRY", .right),
                ("LOAD", .right), ("STA", .right), ("11r", .left), ("11k", .left), ("11v", .left), ("SIGNAL", .right),
            ])
            for b in rows(r.bss) {
                t.add([
                    b.bssid.description, b.ssid ?? "", b.channel.map(String.init) ?? "-", grouped(b.frames), pct(b.retryPercent),
                    pct(b.bssLoad?.channelUtilizationMeanPercent), b.bssLoad.map { String($0.stationCount) } ?? "-",
                    yn(b.fastTransition), yn(b.radioMeasurement), yn(b.bssTransition),
                    b.signalDbm.map { NumberText.format($0) } ?? "-",
                ])
            }
            out += t.render() + more(r.bss.count)
            out += "  LOAD: mean channel utilisation the BSS advertises (BSS Load element); STA: stations it reports\n"
        }
        if !r.channels.isEmpty {
            out += "\n"
            var t = TextTable([
                ("CHANNEL", .right), ("MHz", .right), ("FRAMES", .right), ("RETRY", .right), ("AIRTIME", .right),
                ("SPAN", .right), ("UTIL(est)", .right), ("ADVERTISED", .right),
            ])
            for c in rows(r.channels) {
                t.add([
                    c.channel.map(String.init) ?? "?", String(c.frequencyMhz), grouped(c.frames),
                    pct(NumberText.percent(c.retryFrames, of: c.frames)),
                    NumberText.format(c.airtimeMs) + " ms", NumberText.format(c.spanSeconds) + " s",
                    pct(c.utilizationPercent), pct(c.advertisedUtilizationPercent),
                ])
            }
            out += t.render() + more(r.channels.count)
            out += "  UTIL(est): airtime of the frames seen / time observed, a lower bound of the channel's busy time\n"
        }
        if !r.transmitters.isEmpty {
            out += "\n"
            var t = TextTable([("TRANSMITTER", .left), ("FRAMES", .right), ("RETRIES", .right), ("RETRY", .right)])
            for x in rows(r.transmitters) {
                t.add([x.mac.description, grouped(x.frames), grouped(x.retryFrames), pct(x.retryPercent)])
            }
            out += t.render() + more(r.transmitters.count)
        }
        if !r.roamingEvents.isEmpty {
            out += "\n  roaming events (\(r.roamingEvents.count)):\n"
            var t = TextTable([("TIME", .left), ("STATION", .left), ("FROM", .left), ("TO", .left), ("KIND", .left), ("DETAIL", .left)])
            for e in rows(r.roamingEvents) {
                var detail: [String] = []
                if let s = e.ssid { detail.append("ssid \(s)") }
                if let c = e.reasonCode {
                    detail.append("reason " + Dot11Codes.reason(String(c)))
                } else if e.kind == .associationAfterDeauthentication || e.kind == .associationAfterDisassociation {
                    detail.append("reason " + Dot11Codes.unknownReason)
                }
                if let c = e.statusCode { detail.append("status \(c)") }
                if let g = e.gapMs { detail.append("gap \(NumberText.format(g)) ms") }
                t.add([e.time, e.station.description, e.fromBssid?.description ?? "?", e.toBssid.description, e.kind.rawValue, detail.joined(separator: ", ")])
            }
            out += t.render() + more(r.roamingEvents.count)
        }
        let btm = r.bssTransitionManagement
        if btm.queries + btm.requests + btm.responses + btm.protectedActions > 0 {
            out +=
                "  BSS transition management: \(NumberText.count(btm.queries, "query", plural: "queries")), \(NumberText.count(btm.requests, "request")), \(NumberText.count(btm.responses, "response")) (\(btm.accepted) accepted, \(btm.rejected) rejected)"
            if btm.protectedActions > 0 {
                let n = NumberText.count(btm.protectedActions, "protected action frame")
                out += "; \(n) of any category not readable (802.11w: BTM among them not counted)"
            }
            out += "\n"
        }
        out += renderSteering(r)
        out += renderStations(r)
        out += "\n" + renderFindings(r.findings, status: r.status)
        return out
    }

    public func renderFindings(_ findings: [Finding], status: Severity) -> String {
        guard !findings.isEmpty else { return "  findings: none (\(status.rawValue.uppercased()))\n" }
        var out = "  findings (\(status.rawValue.uppercased())):\n"
        for f in findings { out += "    \(f.severity.rawValue.uppercased()) \(f.check): \(f.message)\n" }
        return out
    }

    public func render(_ m: MultiCaptureReport) -> String {
        var out = ""
        for f in m.files { out += render(f) + "\n" }
        out += render(m.total, title: "total of \(m.files.count) files")
        return out
    }

    func yn(_ b: Bool) -> String { b ? "yes" : "no" }

    func rows<T>(_ a: [T]) -> ArraySlice<T> { limit > 0 ? a.prefix(limit) : a[...] }

    func more(_ n: Int) -> String {
        limit > 0 && n > limit ? "  … \(n - limit) more (--limit 0 shows all)\n" : ""
    }
}
