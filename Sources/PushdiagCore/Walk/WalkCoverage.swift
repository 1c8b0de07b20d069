/// Coverage for roaming at one place (issue 29): how many BSSs of the SSID reach the coverage
/// level (one alone: a roam there has nowhere to go), how many BSSs of any SSID share the
/// channel above the co-channel level, and the share of samples on each band. Signals are
/// offset as the lens's; only samples a scan reached (`IPhoneLens.View.reached`: a scan's results
/// read lately, or a fresh entry besides the laptop's own BSS) count for the first two, which are
/// nil when none did.
public struct WalkPlaceCoverage: Codable, Sendable, Equatable {
    public var place: String
    /// Samples at the place, and those a scan reached (the BSS counts come from these).
    public var samples: Int
    public var samplesWithScan: Int
    /// The fewest BSSs of the SSID at or above `IOSRoamingRule.coverage` at any sample (the
    /// station's own BSS counted with its station signal), and the most.
    @Nullable public var bssAbove67: Int?
    @Nullable public var bssAbove67Max: Int?
    /// The most BSSs of any SSID on the station's channel (another BSSID) at or above
    /// `IOSRoamingRule.coChannel` at any sample.
    @Nullable public var cochannelAbove82: Int?
    public var bandShares: BandShares

    /// The contract's names (snake_case would write `bss_above67`); the JSON renderer's
    /// snake_case conversion leaves them as they are.
    enum CodingKeys: String, CodingKey {
        case place, samples
        case samplesWithScan = "samples_with_scan"
        case bssAbove67 = "bss_above_67"
        case bssAbove67Max = "bss_above_67_max"
        case cochannelAbove82 = "cochannel_above_82"
        case bandShares = "band_shares"
    }
}

/// The share (0–1) of a place's samples on each band, of those whose frequency is known; nil
/// when none is.
public struct BandShares: Codable, Sendable, Equatable {
    @Nullable public var band24: Double?
    @Nullable public var band5: Double?
    @Nullable public var band6: Double?

    enum CodingKeys: String, CodingKey {
        case band24 = "band_2_4ghz"
        case band5 = "band_5ghz"
        case band6 = "band_6ghz"
    }

    public init(frequencies: [Int]) {
        guard !frequencies.isEmpty else { return }
        let n = Double(frequencies.count)
        let share = { (band: WiFiBand) in Kept.ratio(Double(frequencies.filter { WiFiBand(frequencyMhz: $0) == band }.count) / n) }
        band24 = share(.twoPointFourGHz)
        band5 = share(.fiveGHz)
        band6 = share(.sixGHz)
    }
}

extension IPhoneLens {
    /// One row per place, in the order of `places` (the report's places).
    public func coverage(
        samples: [WalkSample], scans: [WalkScan], heartbeats: [WalkHeartbeat], places: [String], completed: [CompletedScan] = []
    ) -> [WalkPlaceCoverage] {
        let off = signalOffsetDb
        let views = views(samples, scans: scans, heartbeats: heartbeats, completed: completed)
        return places.map { name in
            let here = views.filter { $0.sample.location == name }
            var above: [Int] = []
            var cochannel: [Int] = []
            for v in here where v.reached {
                let c = counts(v, offset: off)
                above.append(c.above)
                if let n = c.cochannel { cochannel.append(n) }
            }
            return WalkPlaceCoverage(
                place: name, samples: here.count, samplesWithScan: here.filter(\.reached).count, bssAbove67: above.min(),
                bssAbove67Max: above.max(),
                cochannelAbove82: cochannel.max(), bandShares: BandShares(frequencies: here.compactMap(\.sample.freqMhz)))
        }
    }
}

extension IPhoneLens {
    /// A view's coverage counts: BSSs of the SSID at or above `IOSRoamingRule.coverage` (the
    /// station's own counted with its station signal), and BSSs of any SSID on the station's
    /// channel (another BSSID) at or above `IOSRoamingRule.coChannel` (nil: the channel is not known).
    func counts(_ v: View, offset off: Double) -> (above: Int, cochannel: Int?) {
        let s = v.sample
        var ssidSignals = v.candidates(besides: s.bssid, ssid: v.ssid, offset: off).map(\.dbm)
        if let b = s.bssid, let own = v.signal(b, offset: off) { ssidSignals.append(own) }
        let cochannel = s.freqMhz.map { f in
            v.fresh.filter { $0.freqMhz == f && $0.bssid != s.bssid && ($0.signalDbm.map { $0 + off } ?? -.infinity) >= IOSRoamingRule.coChannel.value }
                .count
        }
        return (ssidSignals.filter { $0 >= IOSRoamingRule.coverage.value }.count, cochannel)
    }

    /// The lens at one moment, for a resident process that samples the link (the exporter): what
    /// an iPhone on the station's BSS would do now, and the coverage counts there. Judged only on
    /// scan entries at most `staleAfterMs` old besides the station's own BSS, and only while it is
    /// on one (`fresh` 0: nothing is judged, every value nil; a moment has no history to tell a BSS
    /// just left as its beacons kept it from one a scan heard).
    public struct Moment: Sendable, Equatable {
        /// The fresh scan entries the moment was judged on, besides the station's own BSS (whose
        /// entry its beacons keep fresh, scan or none).
        public var fresh: Int
        /// The strongest fresh BSS of the SSID less the station's own signal, dB (the offset
        /// cancels); nil without either.
        public var bestCandidateMarginDb: Double?
        /// An iPhone on this BSS would roam now, passing traffic and idle (`choose`); nil when the
        /// station's signal is not known.
        public var roamWithTraffic: Bool?
        public var roamIdle: Bool?
        public var bssAbove67: Int?
        public var cochannelAbove82: Int?

        public init(
            fresh: Int, bestCandidateMarginDb: Double? = nil, roamWithTraffic: Bool? = nil, roamIdle: Bool? = nil, bssAbove67: Int? = nil,
            cochannelAbove82: Int? = nil
        ) {
            (self.fresh, self.bestCandidateMarginDb, self.roamWithTraffic, self.roamIdle, self.bssAbove67, self.cochannelAbove82) =
                (fresh, bestCandidateMarginDb, roamWithTraffic, roamIdle, bssAbove67, cochannelAbove82)
        }
    }

    /// The moment `timeNs` of a station on `bssid` (its signal as the station entry gives it), with
    /// the scan cache read at `readAtNs` (`entries`, each with its age then; aged by the time since).
    public func moment(timeNs: Int64, bssid: MACAddress?, ssid: String?, freqMhz: Int?, signalDbm: Int?, readAtNs: Int64, entries: [WalkBSS]) -> Moment {
        let sample = WalkSample(timeNs: timeNs, bssid: bssid, ssid: ssid, freqMhz: freqMhz, signalDbm: signalDbm)
        guard bssid != nil, let v = views([sample], scans: [WalkScan(timeNs: readAtNs, entries: entries)], heartbeats: []).first, !v.scanned.isEmpty
        else {
            return Moment(fresh: 0)
        }
        let off = signalOffsetDb
        let c = counts(v, offset: off)
        var m = Moment(fresh: v.scanned.count, bssAbove67: c.above, cochannelAbove82: c.cochannel)
        guard let b = bssid, let current = v.signal(b, offset: off) else { return m }
        let candidates = v.candidates(besides: b, ssid: v.ssid, offset: off)
        m.bestCandidateMarginDb = candidates.map(\.dbm).max().map { NumberText.rounded($0 - current) }
        m.roamWithTraffic = Self.choose(current: current, candidates: candidates, traffic: true) != nil
        m.roamIdle = Self.choose(current: current, candidates: candidates, traffic: false) != nil
        return m
    }
}
