import Foundation
import Testing

@testable import PushdiagCore

struct WiFiAnalysisTests {
    let ap = MACAddress("02:00:00:00:01:00")!

    func sample(
        _ t: Int64, active: UInt64?, busy: UInt64?, inUse: Bool = false, packets: UInt32? = nil, retries: UInt32? = nil, connected: UInt32 = 10,
        peer: MACAddress? = nil
    ) -> WiFiSample {
        var iface = NL80211.Interface(ifindex: 3)
        iface.frequency = 2437
        iface.type = 2
        var s = NL80211.SurveyEntry(frequency: 2437)
        s.active = active
        s.busy = busy
        s.inUse = inUse
        var other = NL80211.SurveyEntry(frequency: 2412)
        other.active = 1000
        other.busy = 900
        var st = NL80211.Station(mac: peer ?? ap)
        st.txPackets = packets
        st.txRetries = retries
        st.connectedTime = connected
        return WiFiSample(time: t * 1_000_000_000, interface: iface, survey: [other, s], stations: packets == nil ? [] : [st])
    }

    @Test func utilisationFromTheChannelInUse() {
        let r = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: 100, busy: 10), sample(1, active: 1100, busy: 460)], scan: [],
            thresholds: .init())
        #expect(r.channelUtilizationPercent == 45)
        #expect(r.findings.first?.severity == .critical)
        // A driver reset (counters going down) is left out, not reported as nonsense.
        let reset = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3),
            samples: [sample(0, active: 5000, busy: 100), sample(1, active: 100, busy: 10), sample(2, active: 1100, busy: 110)], scan: [], thresholds: .init())
        #expect(reset.channelUtilizationPercent == 10)
        #expect(reset.notes.contains { $0.contains("restarted") })
        // Not reported: null with the reason.
        let missing = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: nil, busy: nil), sample(1, active: nil, busy: nil)], scan: [],
            thresholds: .init())
        #expect(missing.channelUtilizationPercent == nil && missing.notes.contains { $0.contains("not reported by driver") })
        // The reason travels with the value, for the survey's UNKNOWN row (it picked it out of the
        // notes by their first words).
        #expect(missing.utilizationUnknown?.hasPrefix("channel utilisation: active/busy time not reported by driver; run with --capture") == true)
        #expect(r.utilizationUnknown == nil && r.channelUtilizationSource == .survey && r.channelUtilizationTrust == .measured)
        let row = SurveyVerdicts.wifi(missing, t: SurveyThresholds()).first { $0.check == .channelUtilization }
        #expect(row?.status == .unknown && row?.hint == missing.utilizationUnknown)
    }

    /// Signal over the in-use channel's noise floor (-75 over -95: 20 dB): a warning below
    /// --snr-warning (25 by default), critical below --snr-critical only when one is set (the
    /// table has none), refused when it is above the warning.
    @Test func snrIsCriticalOnlyWhenALimitIsSet() throws {
        var samples = [
            sample(0, active: 100, busy: 10, inUse: true, packets: 10, retries: 0), sample(1, active: 1100, busy: 20, inUse: true, packets: 20, retries: 0),
        ]
        for i in samples.indices {
            samples[i].survey[1].noise = -95
            samples[i].stations[0].signal = -75
        }
        func snr(_ t: Thresholds) -> Finding? {
            WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: samples, scan: [], thresholds: t).findings.first { $0.check == .snr }
        }
        let byDefault = snr(Thresholds())
        #expect(byDefault?.severity == .warning && byDefault?.value == 20 && byDefault?.threshold == 25, "\(String(describing: byDefault))")
        let critical = snr(try Thresholds.resolve(["snr_critical": 22]).get())
        #expect(critical?.severity == .critical && critical?.threshold == 22, "\(String(describing: critical))")
        #expect(critical?.message.hasSuffix("is 20 dB, below 22 dB") == true, "\(String(describing: critical))")
        let notYet = snr(try Thresholds.resolve(["snr_critical": 15]).get())
        #expect(notYet?.severity == .warning && notYet?.threshold == 25)
        #expect(snr(try Thresholds.resolve(["snr_warning": 18, "snr_critical": 10]).get()) == nil)
        #expect(throws: SettingsError.usage("--snr-critical (30) must not be above --snr-warning (25)")) {
            try Thresholds.resolve(["snr_critical": 30]).get()
        }
    }

    /// iOS's roam trigger is named beside a signal below it, whatever the limits: not beside a
    /// critical limit set above it (it said "iOS looks for another BSS" at -65 dBm), and beside a
    /// warning under a critical limit set below it.
    @Test func theRoamTriggerIsSaidWhereItHolds() throws {
        func signal(_ dBm: Int8, _ t: Thresholds) -> Finding? {
            var samples = [
                sample(0, active: 100, busy: 10, inUse: true, packets: 10, retries: 0), sample(1, active: 1100, busy: 20, inUse: true, packets: 20, retries: 0),
            ]
            for i in samples.indices { samples[i].stations[0].signal = dBm }
            return WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: samples, scan: [], thresholds: t).findings.first {
                $0.check == .signal
            }
        }
        let words = " (\(IOSRoamingRule.triggerWords))"
        let byDefault = try #require(signal(-72, Thresholds()))
        #expect(byDefault.severity == .critical && byDefault.message.hasSuffix("below -70 dBm" + words), "\(byDefault)")
        let strict = try #require(signal(-65, try Thresholds.resolve(["signal_warning": -55, "signal_critical": -60]).get()))
        #expect(strict.severity == .critical && !strict.message.contains("iOS"), "\(strict)")
        let lenient = try #require(signal(-72, try Thresholds.resolve(["signal_critical": -80]).get()))
        #expect(lenient.severity == .warning && lenient.message.hasSuffix(words), "\(lenient)")
        #expect(ThresholdRow.signal.warning == IOSRoamingRule.coverage.value && ThresholdRow.signal.critical == IOSRoamingRule.trigger.value)
    }

    @Test func retransmissionsWrapAndRebaseline() {
        let wrap = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3),
            samples: [sample(0, active: 1, busy: 0, packets: 0xFFFF_FFF0, retries: 0xFFFF_FFFF), sample(1, active: 2, busy: 0, packets: 0x90, retries: 0x20)],
            scan: [], thresholds: .init())
        #expect(wrap.retransmissionPercent == NumberText.rounded(Double(0x21) * 100 / Double(0xA0)))
        // The finding names its source as the report does (it said "station_counters" beside the
        // report's "station_retries").
        let f = wrap.findings.first { $0.check == .retransmissions }
        #expect(f?.source == RetransmissionSource.stationRetries.rawValue && wrap.retransmissionSource == .stationRetries, "\(wrap.findings)")
        let reassoc = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3),
            samples: [
                sample(0, active: 1, busy: 0, packets: 900, retries: 90, connected: 50),
                sample(1, active: 2, busy: 0, packets: 10, retries: 1, connected: 1),
                sample(2, active: 3, busy: 0, packets: 110, retries: 6, connected: 2),
            ],
            scan: [], thresholds: .init())
        #expect(reassoc.retransmissionPercent == 5)
        let one = WiFiAnalysis.report(
            interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: 1, busy: 0, packets: 5, retries: 1)], scan: [], thresholds: .init())
        #expect(one.retransmissionPercent == nil && one.channelUtilizationPercent == nil && one.stations.first?.txPackets == 5)
    }

    /// `--min-frames`: a retry share over fewer frames is shown with its count but not judged:
    /// no finding, retransmissions UNKNOWN with the reason, the status UNKNOWN; at the minimum
    /// it is judged, and a survey says the same.
    @Test func aShareOverTooFewFramesIsShownNotJudged() {
        func report(frames: UInt32, retries: UInt32, minimum: Int = 50) -> WiFiReport {
            var t = Thresholds()
            t.minimumFrames = minimum
            return WiFiAnalysis.report(
                interface: NL80211.Interface(ifindex: 3),
                samples: [
                    sample(0, active: 1000, busy: 100, inUse: true, packets: 100, retries: 10),
                    sample(1, active: 2000, busy: 200, inUse: true, packets: 100 + frames, retries: 10 + retries),
                ],
                scan: [], thresholds: t)
        }
        let few = report(frames: 49, retries: 20)
        #expect(few.retransmissionPercent == NumberText.rounded(2000 / 49.0) && few.retransmissionFrames == 49)
        #expect(!few.findings.contains { $0.check == .retransmissions } && few.status == .unknown, "\(few.findings) \(few.status)")
        #expect(
            few.retransmissionsUnknown
                == "retransmissions: 20 retries for 49 frames sent to the peer during the window, fewer than the 50 frames a share is judged over: not judged")
        let survey = SurveyVerdicts.wifi(few, t: SurveyThresholds()).first { $0.check == .retransmissions }
        #expect(survey?.status == .unknown && survey?.value == nil && survey?.hint == few.retransmissionsUnknown, "\(String(describing: survey))")
        let enough = report(frames: 50, retries: 20)
        #expect(enough.findings.first { $0.check == .retransmissions }?.severity == .critical && enough.status == .critical, "\(enough.findings)")
        #expect(
            enough.retransmissionsUnknown == nil
                && SurveyVerdicts.wifi(enough, t: SurveyThresholds()).first { $0.check == .retransmissions }?.status == .critical)
        // The user's minimum: one frame is enough.
        let one = report(frames: 1, retries: 0, minimum: 1)
        #expect(one.retransmissionsUnknown == nil && !one.notes.contains { $0.contains("fewer than") }, "\(one.notes)")
    }
}
