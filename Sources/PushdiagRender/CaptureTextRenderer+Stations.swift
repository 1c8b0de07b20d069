import PushdiagCore

/// The per-station part of `pushdiag capture`'s text: a table of every station, then what
/// happened to each (dozes, silences, roams, steering), and the steering each AP did.
extension CaptureTextRenderer {
    func unknown(_ v: Int?) -> String { v.map(String.init) ?? "?" }

    func seconds(_ ms: Double) -> String { ms >= 1000 ? NumberText.format(NumberText.rounded(ms / 1000, places: 10)) + " s" : NumberText.format(ms) + " ms" }

    func renderStations(_ r: CaptureReport) -> String {
        guard !r.stations.isEmpty else {
            return focused ? "\n  stations (0): the station asked for (--station) is not in this capture: no frame from it, none to it\n" : ""
        }
        var out = "\n  stations (\(r.stations.count)):\n"
        var t = TextTable([
            ("STATION", .left), ("BSSID", .left), ("FRAMES", .right), ("RETRY", .right), ("PS", .right), ("LI", .right), ("AID", .right),
            ("DOZES", .right), ("DOZED", .right), ("LONGEST", .right), ("SILENCES", .right), ("ROAMS", .right),
        ])
        for s in rows(r.stations) {
            t.add([
                s.mac.description, s.bssid?.description ?? "?", grouped(s.frames), pct(NumberText.percent(s.retryFrames, of: s.frames)),
                grouped(s.powerSaveFrames), unknown(s.listenInterval), unknown(s.aid), String(s.dozes.count),
                s.dozes.count > 0 ? seconds(s.dozes.totalMs) : "-", s.dozes.longestMs.map(seconds) ?? "-", String(s.silences.count),
                String(s.roams.count),
            ])
        }
        out += t.render() + more(r.stations.count)
        out += "  PS: frames sent with the Power Management bit; LI: listen interval (beacon intervals)\n"
        // The reasons for a "?", only where a row shows one.
        if rows(r.stations).contains(where: { $0.listenInterval == nil || $0.aid == nil }) {
            out += "  ?: UNKNOWN, not in the capture (LI: no (re)association request from the station; AID: no successful (re)association response to it)\n"
        }
        if r.untrackedStations > 0 {
            out +=
                "  \(grouped(r.untrackedStations)) \(NumberText.noun(r.untrackedStations, "frame")) from stations beyond the table's bound were not followed\n"
        }
        if r.untrackedTimBsses > 0 {
            out +=
                "  \(grouped(r.untrackedTimBsses)) \(NumberText.noun(r.untrackedTimBsses, "BSS's", plural: "BSSs'")) TIMs beyond the BSSs followed were not read: whether a doze on one was buffered is UNKNOWN\n"
        }
        for s in rows(r.stations) where focused || !s.dozes.isQuiet || !s.silences.isEmpty || !s.roams.isEmpty || !s.steering.isEmpty {
            out += renderStation(s)
        }
        return out
    }

    func renderStation(_ s: CaptureStationReport) -> String {
        var bss = s.bssid.map { "BSS \($0)" } ?? "BSS UNKNOWN (no frame to or from an AP in the capture)"
        bss += ", beacon interval " + (s.beaconIntervalTu.map { "\($0) TU" } ?? "UNKNOWN (no beacon of its BSS)")
        bss += ", DTIM period " + (s.dtimPeriod.map(String.init) ?? "UNKNOWN (no TIM element)")
        var out = "\n  station \(s.mac) (\(bss)):\n"
        let li =
            s.listenInterval.map { "listen interval \(NumberText.count($0, "beacon interval"))" }
            ?? "listen interval UNKNOWN (no (re)association request in the capture)"
        let aid = s.aid.map { "AID \($0)" } ?? "AID UNKNOWN (no successful (re)association response in the capture)"
        out +=
            "    \(grouped(s.frames)) \(NumberText.noun(s.frames, "frame")) sent, \(grouped(s.retryFrames)) \(NumberText.noun(s.retryFrames, "retry", plural: "retries")),"
            + " \(grouped(s.powerSaveFrames)) with PM set; \(li); \(aid)\n"
        if !s.authAlgorithms.isEmpty {
            out +=
                "    authentication frames by algorithm: "
                + s.authAlgorithms.sorted { $0.key < $1.key }.map { "\(Dot11Codes.authAlgorithm($0.key)) \($0.value)" }.joined(separator: ", ") + "\n"
        }
        let d = s.dozes
        if d.count > 0 || d.dozingAtEnd {
            var line = "    dozes: \(d.count), \(seconds(d.totalMs)) in all"
            if let l = d.longestMs { line += ", longest \(seconds(l))" }
            line += "; woke by PS-Poll \(d.wokeByPsPoll), PM clear \(d.wokeByPmClear), U-APSD trigger \(d.wokeByUapsdTrigger), other \(d.wokeByOther)"
            line += "; \(NumberText.count(d.framesFromApWhileDozing, "frame")) from the AP meanwhile"
            if let b = d.bufferedInTim, let n = d.notBufferedInTim {
                line += "; its AID in the TIM during \(b) of \(NumberText.count(b + n, "doze"))"
                if d.timUnknown > 0 { line += " (UNKNOWN for \(d.timUnknown))" }
            } else if d.count > 0 {
                line += "; AID in the TIM UNKNOWN (" + (s.aid == nil ? "its AID was not seen" : "no beacon's TIM seen during its dozes") + ")"
            }
            if d.dozingAtEnd { line += "; dozing when the capture ended" }
            out += line + "\n"
        }
        for x in s.silences {
            out += "    silence from \(x.start) for \(seconds(x.durationMs)): before, \(edge(x.before)); after, \(edge(x.after))"
            out += "\n"
        }
        if s.silencesDropped > 0 { out += "    … \(s.silencesDropped) more silences not kept\n" }
        for x in s.roams {
            var line = "    roam at \(x.time): \(x.fromBssid?.description ?? "?") → \(x.toBssid), \(x.type.rawValue)"
            if let c = x.statusCode { line += ", status \(c)" }
            line += ", gap " + (x.gapMs.map { "\(NumberText.format($0)) ms" } ?? "UNKNOWN (no response seen)")
            line += ", " + (x.grade.map { $0.rawValue.uppercased() } ?? "UNKNOWN")
            out += line + "\n"
        }
        if s.roamsDropped > 0 { out += "    … \(s.roamsDropped) more roams not kept\n" }
        if !s.steering.isEmpty { out += "    steering: " + steering(s.steering) + "\n" }
        return out
    }

    func edge(_ e: SilenceEdge) -> String {
        switch e.kind {
        case .dozing: return "dozing (PM set)" + (e.bssid.map { " in \($0)" } ?? "")
        case .deauthentication, .disassociation:
            let what = e.kind == .deauthentication ? "deauthenticated" : "disassociated"
            let by = e.by == .ap ? "by the AP" : e.by == .station ? "by the station" : "by UNKNOWN"
            // Without a reason the frame was protected (802.11w): its body is encrypted.
            return "\(what) \(by)" + (e.bssid.map { " (\($0))" } ?? "")
                + ", reason " + (e.reasonCode.map { Dot11Codes.reason(String($0)) } ?? Dot11Codes.unknownReason)
        case .roam: return "roamed to \(e.bssid?.description ?? "?")"
        case .association: return "(re)associated with \(e.bssid?.description ?? "?")"
        case .woke: return "woke"
        case .nothing: return "nothing on the air"
        case .endOfCapture: return "the capture ended"
        }
    }

    /// The codes in numeric order, then "other" and "unknown".
    func counts(_ d: [String: Int], _ name: (String) -> String) -> String {
        d.sorted { (Int($0.key) ?? .max, $0.key) < (Int($1.key) ?? .max, $1.key) }.map { "\(name($0.key)) ×\($0.value)" }.joined(
            separator: ", ")
    }

    func steering(_ s: SteeringReport) -> String {
        var parts: [String] = []
        if s.btmQueries + s.btmRequests + s.btmResponses > 0 {
            var p =
                "BTM queries \(s.btmQueries), requests \(s.btmRequests) (\(s.btmDisassociationImminent) disassociation imminent, \(NumberText.count(s.btmCandidates, "candidate")))"
            p += ", responses \(s.btmResponses)"
            if !s.btmResponsesByStatus.isEmpty { p += ": " + counts(s.btmResponsesByStatus, Dot11Codes.btmStatus) }
            parts.append(p)
        }
        let deauths = s.deauthFromAp + s.deauthFromStations
        if deauths > 0 {
            parts.append(
                "deauthentications \(deauths) (\(s.deauthFromAp) by the AP, \(s.deauthFromStations) by stations): "
                    + counts(s.deauthByReason, Dot11Codes.reason))
        }
        let disassocs = s.disassocFromAp + s.disassocFromStations
        if disassocs > 0 {
            parts.append(
                "disassociations \(disassocs) (\(s.disassocFromAp) by the AP, \(s.disassocFromStations) by stations): "
                    + counts(s.disassocByReason, Dot11Codes.reason))
        }
        if s.saQueryRequests + s.saQueryResponses > 0 { parts.append("SA Query requests \(s.saQueryRequests), responses \(s.saQueryResponses)") }
        if s.protectedActions > 0 {
            parts.append("protected action frames \(s.protectedActions) (802.11w, any category: BTM and SA Query among them not told apart)")
        }
        return parts.joined(separator: "; ")
    }

    func renderSteering(_ r: CaptureReport) -> String {
        let steered = r.bss.filter { !$0.steering.isEmpty }
        guard !steered.isEmpty else { return "" }
        var out = "\n  steering and ejections per AP:\n"
        for b in rows(steered) {
            out += "    \(b.bssid)" + (b.ssid.map { " (\($0))" } ?? "") + ": " + steering(b.steering) + "\n"
            guard b.steeringByHour.count > 1 else { continue }
            for h in rows(b.steeringByHour) { out += "      hour from \(h.hour): " + steering(h.steering) + "\n" }
            out += more(b.steeringByHour.count)
        }
        return out + more(steered.count)
    }
}

extension DozeReport {
    /// Nothing to tell: no doze, not dozing at the end.
    var isQuiet: Bool { count == 0 && !dozingAtEnd }
}
