import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The survey's hints name the limit that was applied: Apple's guidance by default, the user's
/// own limit when one was set (they said "within Apple's guidance" whatever the limit).
struct SurveyHintTests {
    func wifi(_ fixture: String) throws -> WiFiReport {
        let transport = try ReplayNetlink(path: TestPaths.fixtures.appendingPathComponent(fixture).path, protocol: Netlink.protocolGeneric)
        return try WiFiSampler.run(try NL80211Client(transport: transport), interfaceName: "wlan2", count: nil, intervalSeconds: 0, thresholds: Thresholds())
    }

    @Test func hintsNameTheLimitApplied() throws {
        let r = try wifi("wifi-utilization-57pct.pcap")
        func row(_ t: SurveyThresholds, _ check: CheckName) -> SurveyCheck? { SurveyVerdicts.wifi(r, t: t).first { $0.check == check } }
        // Each hint ends with the source that decided.
        #expect(row(SurveyThresholds(), .retransmissions)?.hint == "within Apple's guidance (15% or less); from the station's retry counters")
        #expect(row(SurveyThresholds(), .channelUtilization)?.hint.hasSuffix("(Apple: 40% or less); from the channel's survey") == true)
        var mine = SurveyThresholds()
        mine["retransmission_critical"] = ThresholdRange("10")!
        mine["retransmission_warning"] = ThresholdRange("8")!
        mine["utilization_warning"] = ThresholdRange("50")!
        mine["utilization_critical"] = ThresholdRange("55")!
        #expect(row(mine, .retransmissions)?.hint == "within your limit of 10%; from the station's retry counters")
        let busy = try #require(row(mine, .channelUtilization))
        #expect(busy.status == .critical && busy.hint.hasSuffix("(your limit: 55%; Apple's: 40% or less); from the channel's survey"), "\(busy.hint)")
    }
}
