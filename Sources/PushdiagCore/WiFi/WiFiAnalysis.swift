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

    /// Δ of a u32 counter: its increase, across one wrap (from near the top to near zero); nil
    /// when it went back otherwise (a driver or firmware reset, never a huge or negative Δ).
    static func delta32(_ a: UInt32, _ b: UInt32) -> UInt64? {
        if b >= a { return UInt64(b - a) }
        return a > 0xF000_0000 && b < 0x1000_0000 ? UInt64(b &- a) : nil
    }

    /// The radio-wide survey entry (no channel: NL80211_ATTR_SURVEY_RADIO_STATS), if any.
    public static func radioWide(_ survey: [NL80211.SurveyEntry]) -> NL80211.SurveyEntry? {
        survey.first { $0.frequency == 0 && $0.active != nil && $0.busy != nil }
    }

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
        /// Station counters that went back without a reassociation (a driver or firmware reset).
        public var resets = 0
        /// Radio-wide busy/active time, when the driver has no entry for the channel in use.
        public var radioBusyMs: UInt64 = 0
        public var radioActiveMs: UInt64 = 0
        public var radioPairs = 0
    }

    /// Sums the deltas between consecutive samples, skipping pairs where counters restarted.
    /// `surveyTotals`: false for a driver whose survey holds its last period (it goes up and down
    /// by nature: not a reset).
    public static func window(_ samples: [WiFiSample], bssid: MACAddress?, surveyTotals: Bool = true) -> Window {
        var w = Window()
        // Sums of untrusted counters: a pair that would overflow them says nothing.
        func add(_ x: inout UInt64, _ d: UInt64) -> Bool {
            let (v, o) = x.addingReportingOverflow(d)
            if !o { x = v }
            return !o
        }
        // One survey entry across a pair: true when its times advanced (added to the sums), false
        // when they went down (the driver reset them), nil otherwise (or when the sums would
        // overflow).
        func advance(_ a: NL80211.SurveyEntry, _ b: NL80211.SurveyEntry, _ active: inout UInt64, _ busy: inout UInt64) -> Bool? {
            guard let a0 = a.active, let a1 = b.active, let b0 = a.busy, let b1 = b.busy else { return nil }
            if a1 > a0, b1 >= b0, b1 - b0 <= a1 - a0, add(&active, a1 - a0) {
                busy += b1 - b0  // no more than active
                return true
            }
            return a1 < a0 || b1 < b0 ? false : nil
        }
        for (a, b) in zip(samples, samples.dropFirst()) {
            // A survey of the last period (surveyTotals false) is read sample by sample in report().
            var advanced: Bool?
            if surveyTotals {
                if let sa = inUse(a.survey, frequency: a.interface.frequency), let sb = inUse(b.survey, frequency: b.interface.frequency),
                    sa.frequency == sb.frequency, sa.active != nil, sa.busy != nil, sb.active != nil, sb.busy != nil
                {
                    advanced = advance(sa, sb, &w.activeMs, &w.busyMs)
                    if advanced == true { w.surveyPairs += 1 }
                } else if let ra = radioWide(a.survey), let rb = radioWide(b.survey) {
                    advanced = advance(ra, rb, &w.radioActiveMs, &w.radioBusyMs)
                    if advanced == true { w.radioPairs += 1 }
                }
            }
            if advanced == false { w.rebaselines += 1 }
            if let pa = peer(a.stations, bssid: bssid), let pb = peer(b.stations, bssid: bssid) {
                // A new peer, or connected time going down, means a (re)association: the
                // counters started again, so this pair says nothing.
                let reassociated = pa.mac != pb.mac || (pa.connectedTime != nil && pb.connectedTime != nil && pb.connectedTime! < pa.connectedTime!)
                if reassociated {
                    w.rebaselines += 1
                } else if let p0 = pa.txPackets, let p1 = pb.txPackets {
                    let packets = delta32(p0, p1)
                    let retries = pa.txRetries.flatMap { r0 in pb.txRetries.map { r1 in delta32(r0, r1) } }
                    let failed = pa.txFailed.flatMap { f0 in pb.txFailed.map { f1 in delta32(f0, f1) } }
                    // A counter that went back is a reset: this pair says nothing.
                    if packets == nil || retries == .some(nil) || failed == .some(nil) {
                        w.rebaselines += 1
                        w.resets += 1
                    } else if add(&w.packets, packets!) {
                        if let r = retries ?? nil { _ = add(&w.retries, r) }
                        if let f = failed ?? nil { _ = add(&w.failed, f) }
                        w.stationPairs += 1
                    }
                }
            }
        }
        return w
    }

    /// `driver`: the driver's name in sysfs, when known (live, or given with a replay); its
    /// profile decides which counters are believed.
    public static func report(
        interface: NL80211.Interface, samples: [WiFiSample], scan: [NL80211.ScanBSS], thresholds: Thresholds, driver: String? = nil
    ) -> WiFiReport {
        let last = samples.last
        let iface = last?.interface ?? interface
        let associated = scan.first(where: \.associated)
        let bssid = associated?.bssid ?? (iface.type == 2 && last?.stations.count == 1 ? last?.stations.first?.mac : nil)
        let ssidBytes = iface.ssid ?? associated?.ssid
        let profile = driver.flatMap(DriverProfiles.profile)
        var notes: [String] = []

        let w = window(samples, bssid: bssid, surveyTotals: profile?.survey != .perPeriod)
        var utilization: Double?
        var utilizationSource: (UtilizationSource, UtilizationTrust)?
        var retrans: Double?
        var retransSource: (RetransmissionSource, RetransmissionTrust)?
        var failed: UInt64?
        // Why a ratio is missing, kept with the value it explains as well as among the notes.
        var utilizationWhy: String?
        var retransWhy: String?
        func note(_ why: inout String?, _ text: String) {
            notes.append(text)
            why = text
        }
        // The station entry of the AP as the last sample has it.
        let peerNow = last.flatMap { peer($0.stations, bssid: bssid) }
        // The AP's own figure, the fallback when the driver measures nothing.
        let advertised = associated?.bssLoadUtilization.map { CaptureAnalyzer.utilizationPercent(Int($0)) }
        // A survey the driver fills with something else is not used at all; one that holds
        // the last measurement period is read sample by sample instead of as differences.
        let surveyMode = profile?.survey ?? .kept
        let surveyTrusted = surveyMode == .kept || surveyMode == .perPeriod
        var period: (busy: UInt64, active: UInt64) = (0, 0)
        if surveyMode == .perPeriod {
            for s in samples {
                guard let e = inUse(s.survey, frequency: s.interface.frequency ?? iface.frequency), let a = e.active, let b = e.busy, a > 0, b <= a,
                    period.active <= UInt64.max - a
                else { continue }
                period = (period.busy + b, period.active + a)
            }
        }
        if samples.count >= 2 {
            if surveyMode == .perPeriod, period.active > 0 {
                utilization = NumberText.percent(period.busy, of: period.active)
                utilizationSource = (.survey, .measuredPeriod)
                notes.append("channel utilisation: \(profile?.surveyWhy ?? "the survey holds the last period"): each sample's own busy/active time")
            } else if surveyMode != .perPeriod, surveyTrusted, w.surveyPairs > 0, w.activeMs > 0 {
                utilization = NumberText.percent(w.busyMs, of: w.activeMs)
                utilizationSource = (.survey, .measured)
            } else if surveyMode != .perPeriod, surveyTrusted, w.radioPairs > 0, w.radioActiveMs > 0 {
                utilization = NumberText.percent(w.radioBusyMs, of: w.radioActiveMs)
                utilizationSource = (.radioSurvey, .measuredRadioWide)
                notes.append("channel utilisation: from the radio-wide survey (the driver has no entry for the channel in use)")
            } else {
                var why: String
                if let s = last.flatMap({ inUse($0.survey, frequency: iface.frequency) }), s.active == nil || s.busy == nil {
                    why = "channel utilisation: active/busy time not reported by driver"
                } else if last?.survey.isEmpty == true {
                    why = "channel utilisation: the driver reports no survey"
                } else if last.flatMap({ inUse($0.survey, frequency: iface.frequency) }) == nil {
                    why = "channel utilisation: no survey entry for the channel in use"
                } else {
                    why = "channel utilisation: the channel's active time did not advance during the window"
                }
                if let p = profile, p.survey != .kept, let pw = p.surveyWhy { why = "channel utilisation: \(pw)" }
                if let a = advertised {
                    utilization = a
                    utilizationSource = (.bssLoad, .advertised)
                    notes.append("\(why); using the AP's BSS Load (its own figure)")
                } else {
                    note(&utilizationWhy, why + "; run with --capture on a monitor interface, or join an AP that advertises BSS Load")
                }
            }
            if w.stationPairs > 0 {
                // Frames given up: only where the driver reports them and is believed.
                let failedKept = peerNow?.txFailed != nil && profile?.txFailed != .unreliable
                failed = failedKept ? w.failed : nil
                let retriesUsable = peerNow?.txRetries != nil && profile?.txRetries != .unreliable
                if w.packets == 0 {
                    note(&retransWhy, "retransmissions: no frames sent to the peer during the window")
                } else if retriesUsable {
                    retrans = NumberText.percent(w.retries, of: w.packets)
                    if profile?.txRetries == .undercounted {
                        retransSource = (.stationRetries, .lowerBound)
                        note(&retransWhy, "retransmissions: \(profile?.retriesWhy ?? "the driver counts the retries of some frames only")")
                    } else {
                        retransSource = (.stationRetries, .measured)
                    }
                } else {
                    var why = "retransmissions: tx retries not reported by driver"
                    if let p = profile, p.txRetries != .kept, let pw = p.retriesWhy { why = "retransmissions: \(pw)" }
                    if failedKept {
                        // Frames given up after every retry: fewer than the retransmissions, so a lower bound.
                        retrans = NumberText.percent(w.failed, of: w.packets)
                        retransSource = (.txFailed, .lowerBound)
                        note(&retransWhy, "\(why); frames given up (tx failed) give a lower bound")
                    } else {
                        if let fw = profile?.failedWhy { why += "; \(fw)" }
                        note(&retransWhy, why + "; a capture on a monitor interface (--capture) counts them")
                    }
                }
            } else if bssid == nil && (last?.stations.isEmpty ?? true) {
                note(&retransWhy, "retransmissions: not associated")
            } else {
                note(&retransWhy, "retransmissions: the peer's counters restarted (reassociation) in every pair of samples")
            }
            if w.resets > 0 {
                notes.append(
                    "station counters went back \(w.resets) time(s) without a reassociation (a driver or firmware reset): those intervals are left out")
            }
            if w.rebaselines > w.resets {
                notes.append(
                    "counters restarted \(w.rebaselines - w.resets) time(s) during the window (reassociation or driver reset): those intervals are left out")
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
        // The raw counters, except those the table says are not what their names say (rtw88's
        // retries, virt_wifi's constant signal): those are null, never a number.
        let stations = (last?.stations ?? []).map { raw in
            let s = profile?.believed(raw) ?? raw
            return StationReport(
                mac: s.mac, txPackets: s.txPackets, txRetries: s.txRetries, txFailed: s.txFailed, rxPackets: s.rxPackets,
                signalDbm: s.signal.map(Int.init), connectedSeconds: s.connectedTime)
        }
        let sameSSID = scan.filter { b in ssidBytes == nil ? b.associated : b.ssid == ssidBytes }
        let bss = sameSSID.map { b in
            ScanBSSReport(b, current: b.bssid == bssid, signalBelieved: profile?.signal != .unreliable)
        }.sorted { ($0.current ? 1 : 0, $0.signalDbm ?? -200) > ($1.current ? 1 : 0, $1.signalDbm ?? -200) }

        // The signal an iPhone at this spot would roam on: the AP's, averaged where the driver
        // averages; SNR over the in-use channel's noise floor where the survey has one.
        let believedPeer = peerNow.map { profile?.believed($0) ?? $0 }
        let signal = believedPeer?.roamSignal.map(Int.init)
        var signalWhy: String?
        if signal == nil, bssid != nil {
            if peerNow?.signal != nil, let p = profile, p.signal == .unreliable {
                signalWhy = p.signalWhy ?? "\(p.family)'s signal is not a measurement"
                notes.append("signal: \(signalWhy!)")
            } else {
                signalWhy = "the driver reports no signal for its AP"
            }
        }
        // The noise floor comes with the survey: not where the table distrusts it (hwsim's is a
        // constant).
        let noise = surveyMode == .unreliable ? nil : last.flatMap { inUse($0.survey, frequency: iface.frequency) }?.noise.map(Int.init)
        let snr = signal.flatMap { s in noise.map { s - $0 } }

        var findings: [Finding] = []
        let name = iface.name ?? "ifindex \(iface.ifindex)"
        // A full-MAC driver without a channel query (virt_wifi) leaves the interface's frequency
        // out: the scan cache's entry of the BSS it is on says it.
        let freq = (iface.frequency ?? scan.first(where: \.associated)?.frequency).map(Int.init)
        let chan = freq.flatMap { ChannelPlan.channel(forFrequency: $0) }
        // The AP's own BSS Load already has its finding below (one per BSS).
        if let u = utilization, let (source, _) = utilizationSource, source != .bssLoad, let g = thresholds.grade(u, .utilization) {
            let subject = chan.map { "\(name) channel \($0)" } ?? name
            let how = source == .survey ? "survey busy/active time" : "the radio's busy/active time"
            findings.append(
                Finding(
                    check: .channelUtilization, severity: g.severity, subject: subject, value: u, threshold: g.limit, unit: .percent, source: source.rawValue,
                    message: "\(subject) is \(NumberText.format(u))% busy (\(how)), \(thresholds.passed(.utilization, g))"))
        }
        // The frames the share is over, where the peer's counters gave any pair of samples; a
        // share over too few of them is shown, not judged (`--min-frames`).
        let frames = w.stationPairs > 0 ? w.packets : nil
        let tooFew = retrans != nil && !thresholds.judgesRetries(over: w.packets)
        let how =
            retransSource?.0 == .txFailed
            ? "at least: \(NumberText.count(w.failed, "frame")) given up of \(w.packets) sent"
            : "\(NumberText.count(w.retries, "retry", plural: "retries")) for \(NumberText.count(w.packets, "frame")) sent"
                + (retransSource?.1 == .lowerBound ? "; an undercount" : "")
        if tooFew {
            note(
                &retransWhy,
                "retransmissions: \(how) to the peer during the window, fewer than the \(thresholds.minimumFrames) frames a share is judged over: not judged"
            )
        }
        if !tooFew, let r = retrans, let (source, _) = retransSource, let g = thresholds.grade(r, .retransmission) {
            let subject = bssid.map { "\(name) → \($0)" } ?? name
            findings.append(
                Finding(
                    check: .retransmissions, severity: g.severity, subject: subject, value: r, threshold: g.limit, unit: .percent,
                    source: source.rawValue,
                    message: "\(subject): \(NumberText.format(r))% retransmissions (\(how)), \(thresholds.passed(.retransmission, g))"))
        }
        if let s = signal {
            let subject = bssid.map { "\(name) → \($0)" } ?? name
            let v = Double(s)
            if let g = thresholds.grade(v, .signal) {
                findings.append(
                    Finding(
                        check: .signal, severity: g.severity, subject: subject, value: v, threshold: g.limit, unit: .dBm, source: SignalSource.station.rawValue,
                        message: "\(subject): signal \(s) dBm, \(thresholds.passed(.signal, g))"
                            + (v < IOSRoamingRule.trigger.value ? " (\(IOSRoamingRule.triggerWords))" : "")
                    ))
            }
        }
        if let snr, let g = thresholds.grade(Double(snr), .snr) {
            let subject = bssid.map { "\(name) → \($0)" } ?? name
            findings.append(
                Finding(
                    check: .snr, severity: g.severity, subject: subject, value: Double(snr), threshold: g.limit, unit: .dB,
                    source: "station_and_survey",
                    message: "\(subject): signal \(signal!) dBm over noise \(noise!) dBm is \(snr) dB, \(thresholds.passed(.snr, g))"))
        }
        for b in bss {
            guard let l = b.bssLoad, let g = thresholds.grade(l.channelUtilizationPercent, .utilization) else { continue }
            let subject = "\(b.bssid)" + (b.ssid.map { " (\($0))" } ?? "")
            findings.append(
                Finding(
                    check: .channelUtilization, severity: g.severity, subject: subject, value: l.channelUtilizationPercent, threshold: g.limit, unit: .percent,
                    source: UtilizationSource.bssLoad.rawValue,
                    message:
                        "\(subject) advertises \(b.channel.map { "channel \($0)" } ?? "its channel") as \(NumberText.format(l.channelUtilizationPercent))% busy, \(thresholds.passed(.utilization, g))"
                ))
        }
        findings.sort { $0.severity > $1.severity }
        let window = samples.count >= 2 ? Double(samples.last!.time - samples.first!.time) / 1e9 : 0
        // One judgement with the survey's (SurveyVerdicts.wifi): a ratio that could not be had,
        // or a lower bound within the limits, leaves the check undecided: UNKNOWN, which only a
        // critical finding outranks.
        var status = findings.map(\.severity).max() ?? .ok
        let retransUndecided = retrans == nil || tooFew || (retransSource?.1 == .lowerBound && !findings.contains { $0.check == .retransmissions })
        if utilization == nil || retransUndecided || (bssid != nil && signal == nil) { status = max(status, .unknown) }
        return WiFiReport(
            interface: name, ssid: ssidBytes.map(SSIDText.render), bssid: bssid, frequencyMhz: freq, channel: chan,
            channelWidthMhz: iface.channelWidth.flatMap(NL80211.channelWidthMHz), samples: samples.count,
            windowSeconds: Kept.seconds(window), survey: survey, stations: stations,
            channelUtilizationPercent: utilization, channelUtilizationSource: utilizationSource?.0, channelUtilizationTrust: utilizationSource?.1,
            retransmissionPercent: retrans, retransmissionSource: retransSource?.0, retransmissionTrust: retransSource?.1, retransmissionFrames: frames,
            txFailed: failed, bss: bss,
            signalDbm: signal, noiseDbm: noise, snrDb: snr,
            driver: driver, driverFamily: profile?.family,
            findings: findings, status: status, utilizationUnknown: utilization == nil ? utilizationWhy : nil,
            retransmissionsUnknown: retransUndecided ? retransWhy : nil, signalUnknown: signalWhy, notes: notes, retransmissionTooFewFrames: tooFew)
    }
}
