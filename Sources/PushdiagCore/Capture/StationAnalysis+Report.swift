/// The per-station tables as report values, and the steering added to each BSS's row.
extension StationAnalysis {

    func steeringReport(_ s: Steering) -> SteeringReport {
        var r = s.counts
        r.btmResponsesByStatus = s.btmResponsesByStatus.keyed
        r.deauthByReason = s.deauthByReason.keyed
        r.disassocByReason = s.disassocByReason.keyed
        return r
    }

    /// A roam's grade as the walk grades its link gap (`WalkThresholds.gapLimits`: 802.11r
    /// against ft_gap, the others against roam_gap, on `options.roamLimits`); a refused one is
    /// critical.
    func grade(type: RoamType, gapMs: Double?, status: Int?) -> Severity? {
        if let s = status, s != 0 { return .critical }
        guard let gap = gapMs else { return nil }
        let (warning, critical) = options.roamLimits.gapLimits(fastTransition: type.isFastTransition)
        return Thresholds.grade(gap, warning: warning, critical: critical)?.0 ?? .ok
    }

    /// Every station, most frames first; `end` is the capture's last timestamp (a silence still
    /// running then is reported up to it).
    public func stationReports(end: Int64) -> [CaptureStationReport] {
        var out: [CaptureStationReport] = []
        out.reserveCapacity(stations.count)
        for i in 0..<stations.count {
            let s = stations[i]
            // The BSS it is in, or the one it last left.
            let lastBSSID = s.bssid ?? s.leave?.bssid
            let bss = lastBSSID.flatMap { bsses.find($0) }.map { bsses[$0] }
            let timKnown = s.dozesBuffered + s.dozesNotBuffered > 0
            let dozes = DozeReport(
                count: s.dozes, totalMs: Kept.ms(ns: s.dozeTotalNs), longestMs: s.dozes > 0 ? Kept.ms(ns: s.dozeLongestNs) : nil,
                wokeByPsPoll: s.wokeByPSPoll, wokeByPmClear: s.wokeByPMClear, wokeByUapsdTrigger: s.wokeByTrigger, wokeByOther: s.wokeByOther,
                framesFromApWhileDozing: s.framesWhileDozing,
                bufferedInTim: timKnown ? s.dozesBuffered : nil, notBufferedInTim: timKnown ? s.dozesNotBuffered : nil,
                timUnknown: s.dozesTIMUnknown, dozingAtEnd: s.dozing)
            var silences = s.silences.map {
                SilenceReport(start: Timestamp.rfc3339(nanoseconds: $0.start), durationMs: Kept.ms(ns: $0.durationNs), before: $0.before, after: $0.after)
            }
            var dropped = s.silencesDropped
            if s.lastFrame != .min, end - s.lastFrame > options.silenceNs {
                if silences.count < options.silencesPerStation {
                    silences.append(
                        SilenceReport(
                            start: Timestamp.rfc3339(nanoseconds: s.lastFrame), durationMs: Kept.ms(ns: end - s.lastFrame),
                            before: edgeBefore(i, start: s.lastFrame), after: SilenceEdge(kind: .endOfCapture)))
                } else {
                    dropped += 1
                }
            }
            let roams = s.roams.map { r -> StationRoamReport in
                let gap = r.gapNs.flatMap { $0 >= 0 ? Kept.ms(ns: $0) : nil }  // not one whose times went back
                let status = r.status.map(Int.init)
                return StationRoamReport(
                    time: Timestamp.rfc3339(nanoseconds: r.time), fromBssid: r.from, toBssid: r.to, type: r.type, statusCode: status, gapMs: gap,
                    grade: grade(type: r.type, gapMs: gap, status: status))
            }
            out.append(
                CaptureStationReport(
                    mac: stations.keys[i], bssid: lastBSSID, frames: s.frames, retryFrames: s.retries, powerSaveFrames: s.powerSaveFrames,
                    listenInterval: s.listenInterval.map(Int.init), aid: s.aid.map(Int.init),
                    beaconIntervalTu: bss?.beaconInterval.map(Int.init), dtimPeriod: bss?.dtimPeriod.map(Int.init),
                    authAlgorithms: s.authAlgorithms.keyed, dozes: dozes, silences: silences, silencesDropped: dropped,
                    roams: roams, roamsDropped: s.roamsDropped, steering: steeringReport(s.steering)))
        }
        out.sort { ($0.frames, $1.mac) > ($1.frames, $0.mac) }
        return out
    }

    /// Adds the stations, and each BSS's beacon interval, DTIM period and steering, to a report.
    public func add(to report: inout CaptureReport, end: Int64) {
        report.stations = stationReports(end: end)
        report.untrackedStations = untrackedStations
        report.untrackedTimBsses = untrackedTIMs
        for k in report.bss.indices {
            guard let i = bsses.find(report.bss[k].bssid) else { continue }
            report.bss[k].beaconIntervalTu = bsses[i].beaconInterval.map(Int.init)
            report.bss[k].dtimPeriod = bsses[i].dtimPeriod.map(Int.init)
            report.bss[k].steering = steeringReport(bsses[i].steering)
            report.bss[k].steeringByHour = bsses[i].hours.sorted { $0.key < $1.key }.map {
                SteeringHourReport(hour: Timestamp.rfc3339(nanoseconds: $0.key * 3_600_000_000_000), steering: steeringReport($0.value))
            }
            report.bss[k].steeringHoursDropped = bsses[i].hoursDropped
        }
    }
}
