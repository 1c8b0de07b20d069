import Foundation
import PushdiagRender
import Testing

@testable import PushdiagCore

/// The survey's verdict table from values: each check graded once against its row's ranges, the
/// limits carried as the ranges' text, and the hint naming the limit that applied.
struct SurveyVerdictsTests {
    func wifi(busy: UInt64) -> WiFiReport {
        var iface = NL80211.Interface(ifindex: 3)
        iface.frequency = 2437
        iface.type = 2
        func sample(_ t: Int64, _ active: UInt64, _ busy: UInt64) -> WiFiSample {
            var s = NL80211.SurveyEntry(frequency: 2437)
            s.active = active
            s.busy = busy
            s.inUse = true
            return WiFiSample(time: t * 1_000_000_000, interface: iface, survey: [s], stations: [])
        }
        return WiFiAnalysis.report(interface: iface, samples: [sample(0, 100, 0), sample(1, 1100, busy)], scan: [], thresholds: .init())
    }

    @Test func utilisationIsGradedAgainstTheRangesInForce() throws {
        let busy = wifi(busy: 350)  // 35% of 1000 ms
        let row = try #require(SurveyVerdicts.wifi(busy, t: SurveyThresholds()).first { $0.check == .channelUtilization })
        #expect(row.status == .warning && row.value == 35 && row.unit == .percent && row.threshold?.description == "32 / 40" && row.source == "survey")
        #expect(row.hint.contains("(Apple: 40% or less)"))
        var mine = SurveyThresholds()
        mine["utilization_critical"] = ThresholdRange("30")!
        let tight = try #require(SurveyVerdicts.wifi(busy, t: mine).first { $0.check == .channelUtilization })
        #expect(tight.status == .critical && tight.threshold?.description == "32 / 30" && tight.hint.contains("your limit: 30%"))
        let quiet = try #require(SurveyVerdicts.wifi(wifi(busy: 100), t: SurveyThresholds()).first { $0.check == .channelUtilization })
        #expect(quiet.status == .ok && quiet.hint.hasPrefix("within Apple's guidance (40% or less)"))
        // No station: the retransmissions are UNKNOWN with the reason, never a made-up 0.
        let retries = try #require(SurveyVerdicts.wifi(busy, t: SurveyThresholds()).first { $0.check == .retransmissions })
        #expect(retries.status == .unknown && retries.value == nil)
    }

    @Test func heartbeatLossAndRoundTrip() {
        var r = HeartbeatReport(target: "push:5223", protocol: "simplepush")
        r.sent = 100
        r.received = 97
        r.lossPercent = 3
        r.rttMs = RTTSummary.of(Array(repeating: 20, count: 97))
        let t = SurveyThresholds()
        let lossy = SurveyVerdicts.heartbeat(r, t: t)
        #expect(lossy.status == .warning && lossy.value == 3 && lossy.threshold?.description == "1 / 5" && lossy.unit == .percent)
        r.lossPercent = 0
        r.received = 100
        r.rttMs = RTTSummary.of(Array(repeating: 1500, count: 100))
        #expect(SurveyVerdicts.heartbeat(r, t: t).status == .critical, "a p95 above the rtt row's critical range")
        r.rttMs = RTTSummary.of(Array(repeating: 20, count: 100))
        #expect(SurveyVerdicts.heartbeat(r, t: t).status == .ok)
        r.connectionLost = true
        #expect(SurveyVerdicts.heartbeat(r, t: t).status == .critical)
    }

    @Test func certificateDaysAreGradedBelowTheirLimits() throws {
        var r = HeartbeatReport(target: "push:5223", protocol: "simplepush")
        #expect(SurveyVerdicts.certificate(r, t: SurveyThresholds()) == nil, "no TLS: no check")
        for (days, status) in [(90, CheckStatus.ok), (20, .warning), (3, .critical), (-1, .critical)] {
            r.tls = TLSInfo(
                version: "TLSv1.3", cipher: "x", subject: "s", issuer: "i", notAfter: "2030-01-01T00:00:00Z", notAfterSeconds: 0, daysLeft: days,
                spkiSha256: "", verified: true, verifyError: nil, pinMatched: nil)
            let c = try #require(SurveyVerdicts.certificate(r, t: SurveyThresholds()))
            #expect(c.status == status && c.value == Double(days) && c.unit == .days && c.threshold?.description == "30: / 7:", "\(days) days")
        }
    }

    /// The limits stay ranges up to the renderers; the JSON keeps its one string.
    @Test func limitsAreRangesInMemoryAndOneStringInJSON() throws {
        let check = SurveyCheck(
            check: .signal, status: .warning, subject: "wlan0", value: -68, unit: .dBm,
            threshold: SurveyLimits(warning: ThresholdRange("-67:")!, critical: ThresholdRange("-70:")!), hint: "")
        let text = try JSONRenderer.render(check, pretty: false)
        #expect(text.contains("\"threshold\":\"-67: / -70:\""), "\(text)")
        #expect(try JSONDecoder().decode(SurveyLimits.self, from: Data("\"-67: / -70:\"".utf8)) == check.threshold)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SurveyLimits.self, from: Data("\"32 - 40\"".utf8)) }
        #expect(
            SurveyNagiosRenderer().render(
                SurveyReport(
                    started: 0, durationSeconds: 1, checks: [check], wifi: nil, capture: nil, heartbeats: [], routes: nil)
            ).contains("'signal_wlan0'=-68;-67:;-70:;;"))
    }

    /// A hint names the limit by its number: 40, 40.0 and ~:40 are all Apple's 40% (they read
    /// "your limit: 40%" and "the range ~:40"); another number is the user's; a range with no
    /// one limit is said as the range.
    @Test func aHintNamesTheLimitByItsNumber() throws {
        for (critical, within) in [
            ("40", "within Apple's guidance (40% or less)"), ("40.0", "within Apple's guidance (40% or less)"),
            ("~:40", "within Apple's guidance (40% or less)"), ("45", "within your limit of 45%"), ("@10:20", "within your limit of the range @10:20"),
        ] {
            var t = SurveyThresholds()
            let range = try #require(ThresholdRange(critical) as ThresholdRange?, "\(critical)")
            t["utilization_critical"] = range
            #expect(t["utilization_critical"] == range && SurveyVerdicts.limit(.utilization, t).within == within, "\(critical)")
        }
    }
}
