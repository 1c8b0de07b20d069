/// Coverage for roaming at one place (issue 29): how many BSSs of the SSID reach the coverage
/// level (one alone: a roam there has nowhere to go), how many BSSs of any SSID share the
/// channel above the co-channel level, and the share of samples on each band. Signals are
/// offset as the lens's; only samples a scan reached (`IPhoneLens.View.reached`: a scan's results
/// read lately, or a fresh entry besides the laptop's own BSS) count for the first two, which are
/// nil when none did; for the SSID's count, not one where a BSS of the SSID that no scan reached
/// (`IPhoneLens.View.unreached`) was at the level when last heard.
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
                if let n = c.above { above.append(n) }
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
    /// The first is nil where a BSS of the SSID that no scan reached lately (`View.unreached`) was
    /// at or above the level when last heard (whether it still is, is not known), or where a BSS of
    /// the SSID has no signal (`View.ssidSignalsKnown`); the second where a BSS on the channel has none.
    func counts(_ v: View, offset off: Double) -> (above: Int?, cochannel: Int?) {
        let s = v.sample
        var ssidSignals = v.candidates(besides: s.bssid, ssid: v.ssid, offset: off).map(\.dbm)
        if let b = s.bssid, let own = v.signal(b, offset: off) { ssidSignals.append(own) }
        let cochannel = s.freqMhz.flatMap { f -> Int? in
            let others = v.fresh.filter { $0.freqMhz == f && $0.bssid != s.bssid }
            let signals = others.compactMap { $0.signalDbm.map { $0 + off } }
            return signals.count == others.count ? signals.filter { $0 >= IOSRoamingRule.coChannel.value }.count : nil
        }
        let unreached = v.unreached(besides: nil, offset: off).contains { $0.dbm >= IOSRoamingRule.coverage.value }
        return (unreached || !v.ssidSignalsKnown ? nil : ssidSignals.filter { $0 >= IOSRoamingRule.coverage.value }.count, cochannel)
    }

    /// The lens at one moment, for a resident process that samples the link (the exporter): what
    /// an iPhone on the station's BSS would do now, and the coverage counts there. Judged only
    /// where a scan reached the moment (`View.reached`: a scan's results at most `staleAfterMs`
    /// old and read since, or a fresh entry besides the station's own BSS) and while it is on one;
    /// a moment has no history to tell a BSS just left as its beacons kept it from one a scan heard.
    public struct Moment: Sendable, Equatable {
        /// Why a value is not judged.
        public enum Unknown: Sendable, Equatable {
            case notConnected
            /// No scan's results and no fresh entry besides the station's own BSS.
            case noScan(staleAfterMs: Double)
            /// A scan's results came after the cache was read (`View.superseded`).
            case superseded
            case noSignal
            /// A BSS of the SSID that no scan reached lately (`View.unreached`) would be taken, or
            /// counted, as it was last heard.
            case unreached

            public var reason: String {
                switch self {
                case .notConnected: "not connected to an AP"
                case .noScan(let ms):
                    "no scan at most \(NumberText.format(ms / 1000)) s old: no scan's results seen, no scan cache entry besides the AP's own (nothing scanned lately)"
                case .superseded: "a scan's results came after the last read of the scan cache"
                case .noSignal: "a signal is not known (the AP's, or a BSS of the SSID's in the scan cache)"
                case .unreached: "a BSS of the SSID on a channel no scan covered lately may be taken as last heard"
                }
            }
        }
        /// The fresh scan entries the moment was judged on, besides the station's own BSS (whose
        /// entry its beacons keep fresh, scan or none), and the scans whose results came lately.
        public var fresh: Int
        public var scansCompleted: Int
        /// The strongest fresh BSS of the SSID less the station's own signal, dB (the offset
        /// cancels); nil without either.
        public var bestCandidateMarginDb: Double?
        /// An iPhone on this BSS would roam now, passing traffic and idle (`choose`); nil when
        /// that is not known (`unknown`).
        public var roamWithTraffic: Bool?
        public var roamIdle: Bool?
        public var bssAbove67: Int?
        public var cochannelAbove82: Int?
        /// Why the roam or the coverage count is nil; nil when both are judged.
        public var unknown: Unknown?

        public init(
            fresh: Int, scansCompleted: Int = 0, bestCandidateMarginDb: Double? = nil, roamWithTraffic: Bool? = nil, roamIdle: Bool? = nil,
            bssAbove67: Int? = nil, cochannelAbove82: Int? = nil, unknown: Unknown? = nil
        ) {
            (self.fresh, self.scansCompleted, self.bestCandidateMarginDb, self.roamWithTraffic, self.roamIdle) =
                (fresh, scansCompleted, bestCandidateMarginDb, roamWithTraffic, roamIdle)
            (self.bssAbove67, self.cochannelAbove82, self.unknown) = (bssAbove67, cochannelAbove82, unknown)
        }
    }

    /// The moment `timeNs` of a station on `bssid` (its signal as the station entry gives it), with
    /// the scan cache read at `readAtNs` (`entries`, each with its age then; aged by the time since)
    /// and the scans whose results came (`completed`, the interface's nl80211 events).
    public func moment(
        timeNs: Int64, bssid: MACAddress?, ssid: String?, freqMhz: Int?, signalDbm: Int?, readAtNs: Int64, entries: [WalkBSS],
        completed: [CompletedScan] = []
    ) -> Moment {
        let sample = WalkSample(timeNs: timeNs, bssid: bssid, ssid: ssid, freqMhz: freqMhz, signalDbm: signalDbm)
        guard let b = bssid else { return Moment(fresh: 0, unknown: .notConnected) }
        let v = views([sample], scans: [WalkScan(timeNs: readAtNs, entries: entries)], heartbeats: [], completed: completed)[0]
        guard v.reached else { return Moment(fresh: 0, unknown: v.superseded ? .superseded : .noScan(staleAfterMs: staleAfterMs)) }
        let off = signalOffsetDb
        let c = counts(v, offset: off)
        var m = Moment(
            fresh: v.scanned.count, scansCompleted: v.scansCompleted, bssAbove67: c.above, cochannelAbove82: c.cochannel,
            unknown: c.above == nil ? .unreached : nil)
        // A signal not known, the AP's or a candidate's: no roam is judged (a candidate without one
        // might be the one taken).
        guard let current = v.signal(b, offset: off), v.ssidSignalsKnown else {
            m.unknown = .noSignal
            return m
        }
        let candidates = v.candidates(besides: b, ssid: v.ssid, offset: off)
        m.bestCandidateMarginDb = candidates.map(\.dbm).max().map { NumberText.rounded($0 - current) }
        // As the walk's clinging: a fresh candidate the rule takes, else not unless a BSS no scan
        // reached lately would be taken as last heard (then not known).
        let unreached = v.unreached(besides: b, offset: off)
        func roams(_ traffic: Bool) -> Bool? {
            if Self.choose(current: current, candidates: candidates, traffic: traffic) != nil { return true }
            return Self.choose(current: current, candidates: unreached, traffic: traffic) == nil ? false : nil
        }
        (m.roamWithTraffic, m.roamIdle) = (roams(true), roams(false))
        if m.roamWithTraffic == nil || m.roamIdle == nil { m.unknown = .unreached }
        return m
    }
}
