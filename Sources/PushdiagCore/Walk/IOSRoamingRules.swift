/// How an iPhone roams, one row per number, each with where it comes from. The sources' words are
/// as issue 29 gives them (Apple's "Wi-Fi roaming support in Apple devices" and its enterprise
/// roaming note, Cisco's iPhone roaming tech note), not copied from the pages. These are not user
/// thresholds (a phone does not read pushdiag's configuration): the phone's own rules, which the
/// iPhone lens (`IPhoneLens`) applies to a walk's samples, and the few choices pushdiag makes to
/// apply them, marked as such.
public struct IOSRoamingRule: Sendable, Equatable {
    public let name: String
    public let value: Double
    public let unit: ValueUnit
    /// Where the number comes from, in words.
    public let source: String

    /// Apple: iOS "keeps its BSS until the signal falls below -70 dBm, then scans" (Cisco's
    /// iPhone roaming tech note measured the same). -70.0 exactly does not trigger.
    public static let trigger = IOSRoamingRule(
        name: "trigger", value: -70, unit: .dBm, source: "Apple, Wi-Fi roaming support in Apple devices: roam trigger below -70 dBm")

    /// Apple: iOS "moves only to a candidate at least 8 dB stronger while sending or receiving"
    /// — exactly 8 dB qualifies. A heartbeat stream counts as traffic (issue 29).
    public static let marginWithTraffic = IOSRoamingRule(
        name: "margin_traffic", value: 8, unit: .dB, source: "Apple, Wi-Fi roaming support in Apple devices: candidate 8 dB stronger with traffic")

    /// Apple: "(12 dB when idle)" — exactly 12 dB qualifies.
    public static let marginIdle = IOSRoamingRule(
        name: "margin_idle", value: 12, unit: .dB, source: "Apple, Wi-Fi roaming support in Apple devices: candidate 12 dB stronger when idle")

    /// Apple: iOS moves "preferring 5 GHz when its signal is above -65 dBm": among the candidates
    /// that pass the margin, a 5 GHz (or 6 GHz) one above -65 dBm is chosen over a stronger
    /// 2.4 GHz one. -65.0 exactly is not above.
    public static let prefer5GHz = IOSRoamingRule(
        name: "prefer_5ghz", value: -65, unit: .dBm, source: "Apple, Wi-Fi roaming support in Apple devices: 5 GHz preferred above -65 dBm")

    /// Apple: iOS scans "the first six entries of the 802.11k neighbour report, or every channel
    /// without 11k, which can add seconds". A walk
    /// does not see the report itself: the lens names the scan (`IOSRoamScan`) from whether the
    /// current BSS advertises 802.11k.
    public static let neighbourReportEntries = IOSRoamingRule(
        name: "neighbour_report_entries", value: 6, unit: .bss, source: "Apple, Wi-Fi roaming support in Apple devices: first six 802.11k neighbours")

    /// pushdiag's choice: a scan cache entry older than this is stale, never a candidate (at a
    /// walking pace of about 1.4 m/s that is 14 m behind the walker). The kernel keeps entries
    /// up to 30 s (cfg80211's IEEE80211_SCAN_RESULT_EXPIRE).
    public static let staleAfter = IOSRoamingRule(
        name: "stale_after", value: 10_000, unit: .ms, source: "pushdiag: a scan entry older than 10 s is stale (14 m at a walking pace)")

    /// pushdiag's choice: the phone is passing traffic at a sample when a heartbeat was sent
    /// within this long before it.
    public static let trafficWindow = IOSRoamingRule(
        name: "traffic_window", value: 1_000, unit: .ms, source: "pushdiag: a heartbeat sent within 1 s is traffic")

    /// The voice-grade design level of Apple's and Cisco's design guidance: -67 dBm or better,
    /// and a second BSS at that level where a phone must roam ("secondary coverage", issue 29).
    /// One alone: a roam there has nowhere to go.
    public static let coverage = IOSRoamingRule(
        name: "coverage", value: -67, unit: .dBm, source: "voice design guidance: -67 dBm or better, from two BSSs (secondary coverage)")

    /// IEEE 802.11-2020 17.3.10.6: an OFDM receiver defers to a 20 MHz preamble at -82 dBm or
    /// stronger (clear channel assessment), so a BSS on the same channel at -82 dBm or above
    /// shares its airtime with the current one.
    public static let coChannel = IOSRoamingRule(
        name: "co_channel", value: -82, unit: .dBm, source: "IEEE 802.11-2020 17.3.10.6: CCA defers at -82 dBm (20 MHz)")

    public static let all: [IOSRoamingRule] = [
        .trigger, .marginWithTraffic, .marginIdle, .prefer5GHz, .neighbourReportEntries, .staleAfter, .trafficWindow, .coverage, .coChannel,
    ]
}

extension IOSRoamingRule {
    /// The roam trigger in words, said beside a signal only where it holds there (a signal below
    /// it, or a limit that is it): "iOS looks for another BSS below -70 dBm".
    public static var triggerWords: String { "iOS looks for another BSS below \(NumberText.format(trigger.value)) dBm" }
}

/// Which rule chose a predicted roam's target.
public enum IOSRoamRule: String, Codable, Sendable, CaseIterable {
    /// The strongest candidate, at least `marginWithTraffic` above the current BSS, with traffic.
    case marginTraffic = "margin_traffic"
    /// The strongest candidate, at least `marginIdle` above the current BSS, idle.
    case marginIdle = "margin_idle"
    /// A 5 GHz candidate above `prefer5GHz`, chosen over a stronger 2.4 GHz one.
    case prefer5GHz = "prefer_5ghz"

    /// In words, with the numbers of the table.
    public var words: String {
        switch self {
        case .marginTraffic:
            "below \(NumberText.format(IOSRoamingRule.trigger.value)) dBm, candidate ≥ \(NumberText.format(IOSRoamingRule.marginWithTraffic.value)) dB stronger (traffic)"
        case .marginIdle:
            "below \(NumberText.format(IOSRoamingRule.trigger.value)) dBm, candidate ≥ \(NumberText.format(IOSRoamingRule.marginIdle.value)) dB stronger (idle)"
        case .prefer5GHz: "5 GHz above \(NumberText.format(IOSRoamingRule.prefer5GHz.value)) dBm preferred"
        }
    }
}

/// How the phone would have looked for the candidate: the channels of the current BSS's 802.11k
/// neighbour report, or every channel (seconds off the channel).
public enum IOSRoamScan: String, Codable, Sendable {
    case neighbourReport = "neighbour_report"
    case full
}
