/// Coverage for roaming at one place (issue 29): how many BSSs of the SSID reach the coverage
/// level (one alone: a roam there has nowhere to go), how many BSSs of any SSID share the
/// channel above the co-channel level, and the share of samples on each band. Signals are
/// offset as the lens's; only samples whose scan cache held fresh entries count for the first
/// two, which are nil when none did.
public struct WalkPlaceCoverage: Codable, Sendable, Equatable {
    public var place: String
    /// Samples at the place, and those with fresh scan entries (the BSS counts come from these).
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
        let share = { (band: String) in NumberText.rounded(Double(frequencies.filter { WalkAnalysis.band($0) == band }.count) / n, places: 1000) }
        band24 = share("2.4 GHz")
        band5 = share("5 GHz")
        band6 = share("6 GHz")
    }
}

extension IPhoneLens {
    /// One row per place, in the order of `places` (the report's places).
    public func coverage(samples: [WalkSample], scans: [WalkScan], heartbeats: [WalkHeartbeat], places: [String]) -> [WalkPlaceCoverage] {
        let off = signalOffsetDb
        let views = views(samples, scans: scans, heartbeats: heartbeats)
        return places.map { name in
            let here = views.filter { $0.sample.location == name }
            var above: [Int] = []
            var cochannel: [Int] = []
            for v in here where !v.fresh.isEmpty {
                let s = v.sample
                var ssidSignals = v.candidates(besides: s.bssid, ssid: v.ssid, offset: off).map(\.dbm)
                if let b = s.bssid, let own = v.signal(b, offset: off) { ssidSignals.append(own) }
                above.append(ssidSignals.filter { $0 >= IOSRoamingRule.coverage.value }.count)
                if let f = s.freqMhz {
                    cochannel.append(
                        v.fresh.filter {
                            $0.freqMhz == f && $0.bssid != s.bssid && ($0.signalDbm.map { $0 + off } ?? -.infinity) >= IOSRoamingRule.coChannel.value
                        }
                        .count)
                }
            }
            return WalkPlaceCoverage(
                place: name, samples: here.count, samplesWithScan: here.filter { !$0.fresh.isEmpty }.count, bssAbove67: above.min(), bssAbove67Max: above.max(),
                cochannelAbove82: cochannel.max(), bandShares: BandShares(frequencies: here.compactMap(\.sample.freqMhz)))
        }
    }
}
