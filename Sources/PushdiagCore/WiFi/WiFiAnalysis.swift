/// From nl80211 samples to a `WiFiReport`: channel utilisation from survey counters,
/// retransmissions from the associated peer's station counters, the roaming support of every
/// BSS of the SSID.
public struct WiFiSample: Sendable {
    public var time: Int64
    public var interface: NL80211.Interface
    public var survey: [NL80211.SurveyEntry]
    public var stations: [NL80211.Station]

    public init(time: Int64, interface: NL80211.Interface, survey: [NL80211.SurveyEntry], stations: [NL80211.Station]) {
        self.time = time
        self.interface = interface
        self.survey = survey
        self.stations = stations
    }
}

public enum WiFiAnalysis {
    /// The survey entry of the channel in use: the IN_USE flag, or the interface's frequency
    /// when the driver sets no flag (mac80211_hwsim does not).
    public static func inUse(_ survey: [NL80211.SurveyEntry], frequency: UInt32?) -> NL80211.SurveyEntry? {
        survey.first(where: \.inUse) ?? survey.first { $0.frequency == frequency }
    }

    /// Δ of a u32 counter that may have wrapped once.
    static func delta32(_ a: UInt32, _ b: UInt32) -> UInt64 { UInt64(b &- a) }

    /// The peer whose counters count: the station entry of the associated BSSID, else the only one.
    public static func peer(_ stations: [NL80211.Station], bssid: MACAddress?) -> NL80211.Station? {
        if let bssid, let s = stations.first(where: { $0.mac == bssid }) { return s }
        return stations.count == 1 ? stations[0] : nil
    }

    public struct Window: Equatable, Sendable {
        public var busyMs: UInt64 = 0
        public var activeMs: UInt64 = 0
        public var retries: UInt64 = 0
        public var packets: UInt64 = 0
        public var failed: UInt64 = 0
        public var surveyPairs = 0
        public var stationPairs = 0
        public var rebaselines = 0
    }

    /// Sums the deltas between consecutive samples, skipping pairs where counters restarted.
    public static func window(_ samples: [WiFiSample], bssid: MACAddress?) -> Window {
        var w = Window()
        for (a, b) in zip(samples, samples.dropFirst()) {
            if let sa = inUse(a.survey, frequency: a.interface.frequency), let sb = inUse(b.survey, frequency: b.interface.frequency),
                sa.frequency == sb.frequency, let a0 = sa.active, let a1 = sb.active, let b0 = sa.busy, let b1 = sb.busy
            {
                if a1 > a0, b1 >= b0, b1 - b0 <= a1 - a0 {
                    w.activeMs += a1 - a0
                    w.busyMs += b1 - b0
                    w.surveyPairs += 1
                } else if a1 < a0 || b1 < b0 {
                    w.rebaselines += 1  // the driver reset its survey counters
                }
            }
            if let pa = peer(a.stations, bssid: bssid), let pb = peer(b.stations, bssid: bssid) {
                // A new peer, or connected time going down, means a (re)association: the
                // counters started again, so this pair says nothing.
                let reassociated = pa.mac != pb.mac || (pa.connectedTime != nil && pb.connectedTime != nil && pb.connectedTime! < pa.connectedTime!)
                if reassociated {
                    w.rebaselines += 1
                } else if let p0 = pa.txPackets, let p1 = pb.txPackets {
                    w.packets += delta32(p0, p1)
                    if let r0 = pa.txRetries, let r1 = pb.txRetries { w.retries += delta32(r0, r1) }
                    if let f0 = pa.txFailed, let f1 = pb.txFailed { w.failed += delta32(f0, f1) }
                    w.stationPairs += 1
                }
            }
        }
        return w
    }

    public static func report(interface: NL80211.Interface, samples: [WiFiSample], scan: [NL80211.ScanBSS], thresholds: Thresholds) -> WiFiReport {
        let last = samples.last
        let iface = last?.interface ?? interface
        let associated = scan.first(where: \.associated)
        let bssid = associated?.bssid ?? (iface.type == 2 && last?.stations.count == 1 ? last?.stations.first?.mac : nil)
        let ssidBytes = iface.ssid ?? associated?.ssid
        var notes: [String] = []

        let w = window(samples, bssid: bssid)
        var utilization: Double?
        var retrans: Double?
        var failed: UInt64?
        // Why a ratio is missing, kept with the value it explains as well as among the notes.
        var utilizationWhy: String?
        var retransWhy: String?
        func note(_ why: inout String?, _ text: String) {
            notes.append(text)
            why = text
        }
        if samples.count >= 2 {
            if w.surveyPairs > 0, w.activeMs > 0 {
                utilization = NumberText.rounded(Double(w.busyMs) * 100 / Double(w.activeMs))
            } else if let s = last.flatMap({ inUse($0.survey, frequency: iface.frequency) }), s.active == nil || s.busy == nil {
                note(&utilizationWhy, "channel utilisation: active/busy time not reported by driver")
            } else if last.flatMap({ inUse($0.survey, frequency: iface.frequency) }) == nil {
                note(&utilizationWhy, "channel utilisation: no survey entry for the channel in use")
            } else {
                note(&utilizationWhy, "channel utilisation: the channel's active time did not advance during the window")
            }
            if w.stationPairs > 0 {
                failed = w.failed
                if w.packets > 0 {
                    retrans = NumberText.rounded(Double(w.retries) * 100 / Double(w.packets))
                } else {
                    note(&retransWhy, "retransmissions: no frames sent to the peer during the window")
                }
                if let p = last.flatMap({ peer($0.stations, bssid: bssid) }), p.txRetries == nil {
                    retrans = nil
                    note(&retransWhy, "retransmissions: tx retries not reported by driver")
                }
            } else if bssid == nil && (last?.stations.isEmpty ?? true) {
                note(&retransWhy, "retransmissions: not associated")
            } else {
                note(&retransWhy, "retransmissions: the peer's counters restarted (reassociation) in every pair of samples")
            }
            if w.rebaselines > 0 {
                notes.append("counters restarted \(w.rebaselines) time(s) during the window (reassociation or driver reset): those intervals are left out")
            }
        } else {
            note(&utilizationWhy, "one sample: raw counters only (use --count 2 or more for ratios)")
            retransWhy = utilizationWhy
        }

        let survey = (last?.survey ?? []).map { e in
            ChannelSurveyReport(
                frequencyMhz: Int(e.frequency), inUse: e.inUse, noiseDbm: e.noise.map(Int.init), activeMs: e.active, busyMs: e.busy,
                extBusyMs: e.extBusy, rxMs: e.rx, txMs: e.tx)
        }
        let stations = (last?.stations ?? []).map { s in
            StationReport(
                mac: s.mac, txPackets: s.txPackets, txRetries: s.txRetries, txFailed: s.txFailed, rxPackets: s.rxPackets,
                signalDbm: s.signal.map(Int.init), connectedSeconds: s.connectedTime)
        }
        let sameSSID = scan.filter { b in ssidBytes == nil ? b.associated : b.ssid == ssidBytes }
        let bss = sameSSID.map { b in
            ScanBSSReport(
                bssid: b.bssid, ssid: b.ssid.map(SSIDText.render), frequencyMhz: b.frequency.map(Int.init),
                channel: b.channel.map(Int.init) ?? b.frequency.flatMap { ChannelPlan.channel(forFrequency: Int($0)) },
                signalDbm: b.signalMBm.map { Double($0) / 100 },
                bssLoad: b.bssLoadUtilization.map {
                    ScanBSSLoad(stationCount: Int(b.bssLoadStations ?? 0), channelUtilizationPercent: CaptureAnalyzer.utilizationPercent(Int($0)))
                },
                fastTransition: b.fastTransition, radioMeasurement: b.radioMeasurement, bssTransition: b.bssTransition,
                current: b.bssid == bssid)
        }.sorted { ($0.current ? 1 : 0, $0.signalDbm ?? -200) > ($1.current ? 1 : 0, $1.signalDbm ?? -200) }

        var findings: [Finding] = []
        let name = iface.name ?? "ifindex \(iface.ifindex)"
        let freq = iface.frequency.map(Int.init)
        let chan = freq.flatMap { ChannelPlan.channel(forFrequency: $0) }
        if let u = utilization, let (sev, limit) = Thresholds.grade(u, warning: thresholds.utilizationWarning, critical: thresholds.utilizationCritical) {
            let subject = chan.map { "\(name) channel \($0)" } ?? name
            findings.append(
                Finding(
                    check: "channel_utilization", severity: sev, subject: subject, value: u, threshold: limit, unit: "percent", source: "survey",
                    message: "\(subject) is \(NumberText.format(u))% busy (survey busy/active time), above \(NumberText.format(limit))%"))
        }
        if let r = retrans, let (sev, limit) = Thresholds.grade(r, warning: thresholds.retryWarning, critical: thresholds.retryCritical) {
            let subject = bssid.map { "\(name) → \($0)" } ?? name
            findings.append(
                Finding(
                    check: "retransmissions", severity: sev, subject: subject, value: r, threshold: limit, unit: "percent", source: "station_counters",
                    message:
                        "\(subject): \(NumberText.format(r))% retransmissions (\(w.retries) retries for \(w.packets) frames sent), above \(NumberText.format(limit))%"
                ))
        }
        for b in bss {
            guard let l = b.bssLoad,
                let (sev, limit) = Thresholds.grade(
                    l.channelUtilizationPercent, warning: thresholds.utilizationWarning, critical: thresholds.utilizationCritical)
            else { continue }
            let subject = "\(b.bssid)" + (b.ssid.map { " (\($0))" } ?? "")
            findings.append(
                Finding(
                    check: "channel_utilization", severity: sev, subject: subject, value: l.channelUtilizationPercent, threshold: limit, unit: "percent",
                    source: "bss_load",
                    message:
                        "\(subject) advertises \(b.channel.map { "channel \($0)" } ?? "its channel") as \(NumberText.format(l.channelUtilizationPercent))% busy, above \(NumberText.format(limit))%"
                ))
        }
        findings.sort { $0.severity > $1.severity }
        let window = samples.count >= 2 ? Double(samples.last!.time - samples.first!.time) / 1e9 : 0
        return WiFiReport(
            interface: name, ssid: ssidBytes.map(SSIDText.render), bssid: bssid, frequencyMhz: freq, channel: chan,
            channelWidthMhz: iface.channelWidth.flatMap(NL80211.channelWidthMHz), samples: samples.count,
            windowSeconds: NumberText.rounded(window, places: 1000), survey: survey, stations: stations,
            channelUtilizationPercent: utilization, retransmissionPercent: retrans, txFailed: failed, bss: bss,
            findings: findings, status: findings.map(\.severity).max() ?? .ok, utilizationUnknown: utilization == nil ? utilizationWhy : nil,
            retransmissionsUnknown: retrans == nil ? retransWhy : nil, notes: notes)
    }
}
