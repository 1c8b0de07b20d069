import PushdiagCore

/// `pushdiag wifi` for people: where the interface is, the two ratios, raw counters, the BSSes of
/// the SSID with their roaming support, notes and findings.
public struct WiFiTextRenderer {
    public init() {}

    func opt<T>(_ v: T?) -> String { v.map { "\($0)" } ?? "-" }

    /// Channels shown besides the one in use, the busiest first.
    static let otherChannels = 4

    public func render(_ r: WiFiReport) -> String {
        var out = "\(r.interface): "
        if let b = r.bssid {
            out += "connected to \(b)" + (r.ssid.map { " (\($0))" } ?? "")
        } else {
            out += r.ssid.map { "SSID \($0), no BSSID known" } ?? "not connected"
        }
        if let f = r.frequencyMhz {
            out += ", " + (r.channel.map { "channel \($0) " } ?? "") + "(\(f) MHz" + (r.channelWidthMhz.map { ", \($0) MHz wide" } ?? "") + ")"
        }
        out += "\n  \(NumberText.count(r.samples, "sample")) over \(NumberText.format(r.windowSeconds)) s"
        out +=
            "; channel utilisation "
            + (r.channelUtilizationPercent.map { NumberText.format($0) + "% (\(r.channelUtilizationSource?.said ?? "?"))" } ?? "UNKNOWN")
        out +=
            "; retransmissions "
            + (r.retransmissionPercent.map {
                (r.retransmissionTrust == .lowerBound ? "at least " : "") + NumberText.format($0) + "% (\(r.retransmissionSource?.said ?? "?"))"
                    // Over how many frames, and whether it was judged (too few frames, or a lower
                    // bound within the limits: the finding below says why).
                    + (r.retransmissionFrames.map { " over " + NumberText.count($0, "frame") } ?? "") + (r.retransmissionsUnknown != nil ? ", not judged" : "")
            } ?? "UNKNOWN")
        if let f = r.txFailed { out += "; tx failed \(f)" }
        out += "\n"
        if let sig = r.signalDbm {
            out +=
                "  signal \(sig) dBm" + (r.noiseDbm.map { n in ", noise \(n) dBm, SNR \(sig - n) dB" } ?? " (no noise floor from the driver: SNR unknown)")
                + "\n"
        }
        if let d = r.driver { out += "  driver \(d)" + (r.driverFamily.map { $0 == d ? "" : " (\($0))" } ?? " (not in pushdiag's driver table)") + "\n" }
        if !r.survey.isEmpty {
            var t = TextTable([
                ("FREQ", .right), ("IN USE", .left), ("NOISE", .right), ("ACTIVE ms", .right), ("BUSY ms", .right),
                ("EXT BUSY ms", .right), ("RX ms", .right), ("TX ms", .right),
            ])
            // The channel in use (the driver's flag, or the interface's frequency where the driver
            // sets none), then the busiest others: a terminal, not every channel of the band.
            let inUse = { (s: ChannelSurveyReport) in s.inUse || s.frequencyMhz == r.frequencyMhz }
            let busiest = r.survey.filter { !inUse($0) }.sorted { ($0.busyMs ?? 0) > ($1.busyMs ?? 0) }
            let shown = r.survey.filter(inUse) + busiest.prefix(Self.otherChannels)
            for s in shown {
                t.add([
                    s.frequencyMhz == 0 ? "radio" : String(s.frequencyMhz), inUse(s) ? (s.inUse ? "yes" : "yes (interface)") : "", opt(s.noiseDbm),
                    opt(s.activeMs), opt(s.busyMs),
                    opt(s.extBusyMs), opt(s.rxMs), opt(s.txMs),
                ])
            }
            out += "\n" + t.render()
            if r.survey.count > shown.count {
                out += "  and \(r.survey.count - shown.count) quieter channels (--format json lists every one)\n"
            }
        } else {
            out += "\n  survey: not reported by driver\n"
        }
        if !r.stations.isEmpty {
            var t = TextTable([
                ("PEER", .left), ("TX PACKETS", .right), ("TX RETRIES", .right), ("TX FAILED", .right), ("RX PACKETS", .right),
                ("SIGNAL", .right), ("CONNECTED", .right),
            ])
            for s in r.stations {
                t.add([
                    s.mac.description, opt(s.txPackets), opt(s.txRetries), opt(s.txFailed), opt(s.rxPackets), s.signalDbm.map { "\($0) dBm" } ?? "-",
                    s.connectedSeconds.map { "\($0) s" } ?? "-",
                ])
            }
            out += "\n" + t.render()
        }
        if !r.bss.isEmpty {
            var t = TextTable([
                ("", .left), ("BSSID", .left), ("SSID", .left), ("CH", .right), ("SIGNAL", .right), ("LOAD", .right), ("STA", .right),
                ("11r", .left), ("11k", .left), ("11v", .left),
            ])
            for b in r.bss {
                t.add([
                    b.current ? "*" : "", b.bssid.description, b.ssid ?? "", opt(b.channel), b.signalDbm.map { NumberText.format($0) + " dBm" } ?? "-",
                    b.bssLoad.map { NumberText.format($0.channelUtilizationPercent) + "%" } ?? "-", b.bssLoad.map { String($0.stationCount) } ?? "-",
                    b.fastTransition ? "yes" : "no", b.radioMeasurement ? "yes" : "no", b.bssTransition ? "yes" : "no",
                ])
            }
            out += "\n" + t.render() + "  * the BSS this interface is on; from the kernel's scan cache\n"
        }
        // What left a check undecided is said once, under the findings (the survey's UNKNOWN
        // rows, in the same words), not among the notes.
        let undecided = [
            ("channel_utilization", "channel utilisation: ", r.utilizationUnknown), ("retransmissions", "retransmissions: ", r.retransmissionsUnknown),
        ]
        .compactMap { c, prefix, why in why.map { (c, $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0, $0) } }
        for n in r.notes where !undecided.contains(where: { $0.2 == n }) { out += "  note: \(n)\n" }
        out += "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
        for (check, why, _) in undecided { out += "    UNKNOWN \(check): \(why)\n" }
        return out
    }
}
