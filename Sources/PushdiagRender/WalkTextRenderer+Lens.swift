import PushdiagCore

/// The walk through an iPhone's eyes, for people: the roams iOS's rules predict beside the
/// laptop's BSS at that moment, the sticky zones, the coverage holes and coverage per place.
extension WalkTextRenderer {
    static func lens(_ r: WalkReport) -> String {
        let offset = r.signalOffsetDb == 0 ? "no signal offset" : "signals offset by \(NumberText.format(r.signalOffsetDb)) dB"
        var out = "\n  through an iPhone's eyes (iOS's roaming rules on this walk's samples and scan cache; \(offset)):\n"
        let dbm = { (v: Double?) in v.map { "\(NumberText.format($0)) dBm" } ?? "-" }
        if r.predictedRoams.isEmpty {
            out += "    predicted roams: none\n"
        } else {
            var t = TextTable([
                ("time", .left), ("from", .left), ("to", .left), ("signal", .left), ("rule", .left), ("scan", .left), ("laptop on", .left),
                ("place", .left),
            ])
            for p in r.predictedRoams {
                t.add([
                    Timestamp.clock(p.time), p.fromBssid.description, p.toBssid.description, "\(dbm(p.fromSignalDbm)) → \(dbm(p.toSignalDbm))",
                    p.rule.words + (p.bandChanged ? " (band change: push restarts)" : ""),
                    p.scan.map { $0 == .full ? "every channel" : "802.11k neighbours" } ?? "?", p.laptopBssid?.description ?? "not connected", p.place,
                ])
            }
            out += "    predicted roams (the laptop's own: roams above):\n" + t.render(indent: "      ")
        }
        if !r.stickyZones.isEmpty {
            var t = TextTable([
                ("from", .left), ("to", .left), ("seconds", .right), ("who", .left), ("BSS", .left), ("weakest", .right), ("best other", .right),
                ("place", .left),
            ])
            for z in r.stickyZones {
                let who: String
                switch z.kind {
                case .iphoneStays: who = "iPhone stays (no candidate passes the margin)"
                case .laptopStays: who = "laptop stays (an iPhone would leave)"
                case .noFreshScan: who = "iPhone: UNKNOWN (no scan lately)"
                }
                t.add([
                    Timestamp.clock(z.start), Timestamp.clock(z.end), NumberText.format(z.seconds), who, z.bssid?.description ?? "-", dbm(z.signalMinDbm),
                    dbm(z.bestCandidateDbm),
                    z.place,
                ])
            }
            out += "    sticky zones (below \(NumberText.format(IOSRoamingRule.trigger.value)) dBm):\n" + t.render(indent: "      ")
        }
        if !r.coverageHoles.isEmpty {
            var t = TextTable([("from", .left), ("to", .left), ("seconds", .right), ("best of the SSID", .right), ("place", .left)])
            for h in r.coverageHoles { t.add([Timestamp.clock(h.start), Timestamp.clock(h.end), NumberText.format(h.seconds), dbm(h.bestSignalDbm), h.place]) }
            out += "    coverage holes (no BSS of the SSID at \(NumberText.format(IOSRoamingRule.trigger.value)) dBm or above):\n" + t.render(indent: "      ")
        }
        if !r.coverage.isEmpty {
            var t = TextTable([
                ("place", .left), ("with scan", .right), ("BSSs ≥ \(NumberText.format(IOSRoamingRule.coverage.value))", .right),
                ("co-channel ≥ \(NumberText.format(IOSRoamingRule.coChannel.value))", .right), ("2.4/5/6 GHz", .left),
            ])
            let share = { (v: Double?) in v.map { "\(NumberText.format(NumberText.rounded($0 * 100, places: 1)))%" } ?? "?" }
            for c in r.coverage {
                let bss = c.bssAbove67.map { low in c.bssAbove67Max.map { $0 == low ? "\(low)" : "\(low)–\($0)" } ?? "\(low)" } ?? "UNKNOWN"
                let b = c.bandShares
                t.add([
                    c.place.isEmpty ? "(unnamed)" : c.place, "\(c.samplesWithScan)/\(c.samples)", bss, c.cochannelAbove82.map(String.init) ?? "UNKNOWN",
                    b.band24 == nil ? "UNKNOWN" : [b.band24, b.band5, b.band6].map(share).joined(separator: " / "),
                ])
            }
            out += "    coverage per place (BSSs: fewest–most at a sample):\n" + t.render(indent: "      ")
        }
        return out
    }
}
