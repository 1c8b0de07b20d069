/// Turning the analyser's tables into the report model, and combining analysers of several files.
extension CaptureAnalyzer {
    /// BSS Load utilisation is advertised as 0–255 for 0–100%.
    static func utilizationPercent(_ raw: Int) -> Double { NumberText.rounded(Double(raw) * 100 / 255) }

    public func report(file: String? = nil, linkType: Int? = nil, linkTypeName: String? = nil, truncated: Bool = false, error: String? = nil) -> CaptureReport {
        let t = options.thresholds
        var m = ManagementCounts()
        let s = managementBySubtype
        m.associationRequest = s[0]
        m.associationResponse = s[1]
        m.reassociationRequest = s[2]
        m.reassociationResponse = s[3]
        m.probeRequest = s[4]
        m.probeResponse = s[5]
        m.disassociation = s[10]
        m.authentication = s[11]
        m.deauthentication = s[12]
        m.action = s[13]

        var bssReports: [BSSReport] = []
        for i in 0..<bssTable.count {
            let b = bssTable[i]
            var load: BSSLoadReport?
            if b.loadSamples > 0 {
                load = BSSLoadReport(
                    stationCount: Int(b.stationsLast),
                    channelUtilizationPercent: Self.utilizationPercent(Int(b.loadLast)),
                    channelUtilizationRaw: Int(b.loadLast),
                    channelUtilizationMinPercent: Self.utilizationPercent(Int(b.loadMin)),
                    channelUtilizationMaxPercent: Self.utilizationPercent(Int(b.loadMax)),
                    channelUtilizationMeanPercent: NumberText.rounded(Double(b.loadSum) * 100 / 255 / Double(b.loadSamples)),
                    samples: b.loadSamples)
            }
            var channel = b.channel.map(Int.init)
            if channel == nil, b.frequency != 0 { channel = ChannelPlan.channel(forFrequency: Int(b.frequency)) }
            var frequency: Int? = b.frequency != 0 ? Int(b.frequency) : nil
            if frequency == nil, let c = channel { frequency = ChannelPlan.frequency(forChannel: c) }
            bssReports.append(
                BSSReport(
                    bssid: bssTable.keys[i], ssid: b.ssid.map(SSIDText.render), channel: channel, frequencyMhz: frequency,
                    frames: b.frames, retryFrames: b.retries, retryPercent: NumberText.percent(b.retries, of: b.frames),
                    beacons: b.beacons, probeResponses: b.probeResponses, bssLoad: load,
                    fastTransition: b.fastTransition, radioMeasurement: b.radioMeasurement, bssTransition: b.bssTransition,
                    mobilityDomain: b.mobilityDomain.map(Int.init),
                    signalDbm: b.signalSamples > 0 ? NumberText.rounded(Double(b.signalSum) / Double(b.signalSamples), places: 10) : nil))
        }
        bssReports.sort { ($0.frames, $1.bssid) > ($1.frames, $0.bssid) }

        var transmitters: [TransmitterReport] = []
        transmitters.reserveCapacity(transmitterTable.count)
        for i in 0..<transmitterTable.count {
            let x = transmitterTable[i]
            transmitters.append(
                TransmitterReport(
                    mac: transmitterTable.keys[i], frames: x.frames, retryFrames: x.retries, retryPercent: NumberText.percent(x.retries, of: x.frames) ?? 0))
        }
        transmitters.sort { ($0.frames, $1.mac) > ($1.frames, $0.mac) }

        var channelReports: [ChannelReport] = []
        for (freq, c) in channels.sorted(by: { $0.0 < $1.0 }) {
            let span = c.last > c.first ? Double(c.last - c.first) / 1e9 : 0
            let utilization: Double? =
                span >= t.minimumSpanSeconds && c.airtimeFrames > 0
                ? NumberText.rounded(min(c.airtimeUs / 1e6 / span * 100, 100)) : nil
            let channelNumber = ChannelPlan.channel(forFrequency: Int(freq))
            let advertised = bssReports.filter { $0.frequencyMhz == Int(freq) || ($0.frequencyMhz == nil && $0.channel != nil && $0.channel == channelNumber) }
                .compactMap { $0.bssLoad?.channelUtilizationPercent }.max()
            channelReports.append(
                ChannelReport(
                    frequencyMhz: Int(freq), channel: channelNumber, frames: c.frames, retryFrames: c.retries,
                    airtimeFrames: c.airtimeFrames, airtimeMs: Kept.ms(c.airtimeUs / 1000),
                    spanSeconds: Kept.seconds(span),
                    utilizationPercent: utilization, advertisedUtilizationPercent: advertised))
        }

        let ssidOf: [MACAddress: String] = Dictionary(bssReports.compactMap { b in b.ssid.map { (b.bssid, $0) } }, uniquingKeysWith: { a, _ in a })
        let events = roams.map { r in
            RoamingEventReport(
                time: Timestamp.rfc3339(nanoseconds: r.time), station: r.station, fromBssid: r.from, toBssid: r.to, kind: r.kind,
                ssid: ssidOf[r.to], reasonCode: r.reason.map(Int.init), statusCode: r.status.map(Int.init),
                gapMs: r.gapNs.flatMap { $0 >= 0 ? Kept.ms(ns: $0) : nil })  // not one whose times went back
        }

        // Findings: retry rates, advertised utilisation (BSS Load), estimated utilisation (airtime).
        var findings: [Finding] = []
        func retryFinding(_ subject: String, retries: Int, frames: Int) {
            guard t.judgesRetries(over: frames), let p = NumberText.percent(retries, of: frames), let g = t.grade(p, .retransmission) else { return }
            findings.append(
                Finding(
                    check: .frameRetries, severity: g.severity, subject: subject, value: p, threshold: g.limit, unit: .percent, source: "retry_bit",
                    message: "\(subject): \(NumberText.format(p))% of frames are retransmissions (\(retries) of \(frames)), \(t.passed(.retransmission, g))")
            )
        }
        func label(_ b: BSSReport) -> String { b.ssid.map { "\(b.bssid) (\($0))" } ?? b.bssid.description }
        let retryBase = CaptureReport.retryBase(dot11Frames: dot11Frames, invalidFrames: invalidFrames)
        retryFinding("overall", retries: retryFrames, frames: retryBase)
        for b in bssReports { retryFinding(label(b), retries: b.retryFrames, frames: b.frames) }
        for b in bssReports {
            guard let load = b.bssLoad, let g = t.grade(load.channelUtilizationMeanPercent, .utilization) else { continue }
            let place = b.channel.map { "channel \($0)" } ?? "its channel"
            findings.append(
                Finding(
                    check: .channelUtilization, severity: g.severity, subject: label(b), value: load.channelUtilizationMeanPercent, threshold: g.limit,
                    unit: .percent, source: UtilizationSource.bssLoad.rawValue,
                    message:
                        "\(label(b)) advertises \(place) as \(NumberText.format(load.channelUtilizationMeanPercent))% busy (mean of \(load.samples) BSS Load elements), \(t.passed(.utilization, g))"
                ))
        }
        for c in channelReports {
            guard let u = c.utilizationPercent, let g = t.grade(u, .utilization) else { continue }
            let subject = c.channel.map { "channel \($0) (\(c.frequencyMhz) MHz)" } ?? "\(c.frequencyMhz) MHz"
            findings.append(
                Finding(
                    check: .channelUtilization, severity: g.severity, subject: subject, value: u, threshold: g.limit, unit: .percent,
                    source: "airtime_estimate",
                    message:
                        "\(subject): frames seen occupied \(NumberText.format(u))% of the air over \(NumberText.format(c.spanSeconds)) s, \(t.passed(.utilization, g))"
                ))
        }
        findings.sort { $0.severity > $1.severity }

        var status = findings.map(\.severity).max() ?? .ok
        if error != nil { status = max(status, .unknown) }

        var report = CaptureReport(
            file: file, linkType: linkType, linkTypeName: linkTypeName,
            frames: frames, dot11Frames: dot11Frames, undecodable: undecodable, invalidFrames: invalidFrames, retryFrames: retryFrames,
            retryPercent: NumberText.percent(retryFrames, of: retryBase), beacons: s[8], management: m,
            dataFrames: dataFrames, controlFrames: controlFrames, extensionFrames: extensionFrames,
            fcsFrames: fcsFrames, fcsBadFlagged: fcsBadFlagged, fcsBad: options.checkFCS ? fcsBad : nil,
            malformedElements: malformedElements,
            start: frames > 0 ? Timestamp.rfc3339(nanoseconds: firstTimestamp) : nil,
            end: frames > 0 ? Timestamp.rfc3339(nanoseconds: lastTimestamp) : nil,
            durationSeconds: frames > 0 ? Kept.seconds(ns: lastTimestamp - firstTimestamp) : nil,
            bss: bssReports, transmitters: transmitters, untrackedTransmitters: untrackedTransmitters,
            channels: channelReports, roamingEvents: events, roamingEventsDropped: roamsDropped,
            bssTransitionManagement: btm, findings: findings, status: status, truncated: truncated, error: error)
        stationAnalysis.add(to: &report, end: lastTimestamp)
        return report
    }

    private mutating func appendChannel(_ freq: UInt16) -> Int? {
        guard channels.count < 1024 else { return nil }
        if channelSlot.isEmpty { channelSlot = [Int16](repeating: 0, count: 65536) }
        channels.append((freq, Channel()))
        channelSlot[Int(freq)] = Int16(channels.count)
        return channels.count - 1
    }

    /// Adds another analyser's counts and tables to this one (for the combined result of several
    /// files). Roaming state is not carried across files; their events are appended.
    public mutating func merge(_ o: CaptureAnalyzer) {
        frames += o.frames
        dot11Frames += o.dot11Frames
        undecodable += o.undecodable
        invalidFrames += o.invalidFrames
        retryFrames += o.retryFrames
        dataFrames += o.dataFrames
        controlFrames += o.controlFrames
        extensionFrames += o.extensionFrames
        for i in 0..<16 { managementBySubtype[i] += o.managementBySubtype[i] }
        fcsFrames += o.fcsFrames
        fcsBadFlagged += o.fcsBadFlagged
        fcsBad += o.fcsBad
        malformedElements += o.malformedElements
        firstTimestamp = min(firstTimestamp, o.firstTimestamp)
        lastTimestamp = max(lastTimestamp, o.lastTimestamp)
        for i in 0..<4 { utilizationValuesSeen[i] |= o.utilizationValuesSeen[i] }
        for i in 0..<o.bssTable.count {
            let x = o.bssTable[i]
            guard let j = bssTable.slot(o.bssTable.keys[i], make: { BSS() }) else { continue }
            var b = bssTable[j]
            b.ssid = x.ssid ?? b.ssid
            b.channel = x.channel ?? b.channel
            if x.frequency != 0 { b.frequency = x.frequency }
            b.frames += x.frames
            b.retries += x.retries
            b.beacons += x.beacons
            b.probeResponses += x.probeResponses
            if x.loadSamples > 0 {
                b.loadSamples += x.loadSamples
                b.loadSum += x.loadSum
                b.loadMin = min(b.loadMin, x.loadMin)
                b.loadMax = max(b.loadMax, x.loadMax)
                b.loadLast = x.loadLast
                b.stationsLast = x.stationsLast
            }
            b.fastTransition = b.fastTransition || x.fastTransition
            b.radioMeasurement = b.radioMeasurement || x.radioMeasurement
            b.bssTransition = b.bssTransition || x.bssTransition
            b.mobilityDomain = x.mobilityDomain ?? b.mobilityDomain
            b.signalSum += x.signalSum
            b.signalSamples += x.signalSamples
            bssTable[j] = b
        }
        for i in 0..<o.transmitterTable.count {
            if let j = transmitterTable.slot(o.transmitterTable.keys[i], make: { Transmitter() }) {
                transmitterTable[j].frames += o.transmitterTable[i].frames
                transmitterTable[j].retries += o.transmitterTable[i].retries
            } else {
                untrackedTransmitters += o.transmitterTable[i].frames
            }
        }
        untrackedTransmitters += o.untrackedTransmitters
        for (freq, c) in o.channels {
            guard let i = channels.firstIndex(where: { $0.0 == freq }) ?? appendChannel(freq) else { continue }
            channels[i].1.frames += c.frames
            channels[i].1.retries += c.retries
            channels[i].1.airtimeFrames += c.airtimeFrames
            channels[i].1.airtimeUs += c.airtimeUs
            channels[i].1.first = min(channels[i].1.first, c.first)
            channels[i].1.last = max(channels[i].1.last, c.last)
        }
        let room = max(0, options.roamingEventCapacity - roams.count)
        roams.append(contentsOf: o.roams.prefix(room))
        roamsDropped += o.roamsDropped + max(0, o.roams.count - room)
        btm.add(o.btm)
        stationAnalysis.merge(o.stationAnalysis)
    }
}
