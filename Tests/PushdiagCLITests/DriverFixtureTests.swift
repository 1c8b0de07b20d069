import FixtureKit
import Foundation
import PushdiagCore
import TestSupport
import Testing

/// Recordings shaped like the drivers that fill nl80211 differently (FixtureKit's
/// NetlinkFixtures, from the lab's real recording), through every renderer: what `wifi` prints
/// as text and JSON, and what `survey` says in its table, its JSON and its Prometheus textfile.
/// No output may give a number the driver did not measure.
struct DriverFixtureTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    struct Outputs {
        var text: RunResult
        var json: [String: Any]
        var status: Int32
        var survey: RunResult
        var surveyJSON: [String: Any]
        var prometheus: String

        /// The survey's row for a check of the interface.
        func row(_ check: String) -> [String: Any]? {
            (surveyJSON["checks"] as? [[String: Any]])?.first { $0["check"] as? String == check && ($0["subject"] as? String)?.hasPrefix("wlan2") == true }
        }
    }

    func outputs(_ name: String, driver: String?) throws -> Outputs {
        let d = driver.map { ["--driver", $0] } ?? []
        let wifi = ["wifi", "--replay", fixture(name), "--interface", "wlan2", "--count", "3"] + d
        let survey = ["survey", "--replay", fixture(name), "--interface", "wlan2", "--duration", "3s"] + d
        let text = try pushdiag(wifi)
        let j = try pushdiag(wifi + ["--format", "json"])
        let s = try pushdiag(survey)
        let sj = try pushdiag(survey + ["--format", "json"])
        let p = try pushdiag(survey + ["--format", "prometheus"])
        #expect(text.status == j.status && s.status == sj.status && sj.status == p.status, "\(name): one status whatever the format")
        return Outputs(text: text, json: try json(j.stdout), status: j.status, survey: s, surveyJSON: try json(sj.stdout), prometheus: p.stdout)
    }

    /// A ratio as the textfile writes it (twelve significant digits).
    func ratio(_ percent: Double) -> String { String(format: "%.12g", percent / 100) }

    /// Rounded as the reports round (two places).
    func percent(_ part: Double, _ whole: Double) -> Double { (part * 100 / whole * 100).rounded() / 100 }

    @Test func iwlwifiKeepsNoBusyTimeSoTheAPsBSSLoadStandsIn() throws {
        let o = try outputs("driver-iwlwifi.pcap", driver: "iwlwifi")
        // 140/255 of the channel, as the AP advertises it (one decimal, as BSS Load is shown).
        let expected = (Double(NetlinkFixtures.bssLoadAdvertised) * 1000 / 255).rounded() / 10
        #expect(o.json["channel_utilization_percent"] as? Double == expected, "\(o.json)")
        #expect(o.json["channel_utilization_source"] as? String == "bss_load" && o.json["channel_utilization_trust"] as? String == "advertised")
        #expect(o.json["driver"] as? String == "iwlwifi" && o.json["driver_family"] as? String == "iwlwifi")
        #expect(o.text.stdout.contains("channel utilisation \(NumberText.format(expected))% (AP's BSS Load)"), "\(o.text.stdout)")
        #expect(o.text.stdout.contains("iwlwifi keeps no channel busy time"))
        // The radio-wide entry iwlwifi gives has on-air time but no busy time: shown, not used.
        #expect(o.text.stdout.contains("  radio "), "\(o.text.stdout)")
        // Its retries miss aggregated frames: an undercount, so a lower bound, which within the
        // limits decides nothing.
        #expect(o.json["retransmission_source"] as? String == "station_retries" && o.json["retransmission_trust"] as? String == "lower_bound")
        #expect(o.row("retransmissions")?["status"] as? String == "unknown")
        let share =
            Double(NetlinkFixtures.steadyRetries.last! - NetlinkFixtures.steadyRetries[0]) * 100
            / Double(NetlinkFixtures.steadyPackets.last! - NetlinkFixtures.steadyPackets[0])
        let frames = Int(NetlinkFixtures.steadyPackets.last! - NetlinkFixtures.steadyPackets[0])
        #expect(
            o.text.stdout.contains("retransmissions at least \(NumberText.format(share))% (station counters) over \(frames) frames, not judged"),
            "\(o.text.stdout)")
        let row = try #require(o.row("channel_utilization"))
        #expect(row["status"] as? String == "critical" && row["source"] as? String == "bss_load" && row["value"] as? Double == expected)
        #expect((row["hint"] as? String)?.contains("from the AP's BSS Load") == true)
        #expect(
            o.prometheus.contains(
                "pushdiag_channel_utilization_ratio{interface=\"wlan2\",frequency_mhz=\"2412\",source=\"bss_load\",trust=\"advertised\"} \(ratio(expected))"))
        #expect(o.status == 2 && o.survey.status == 2)
    }

    @Test func iwlwifiWithoutBSSLoadIsUnknownNeverZero() throws {
        let o = try outputs("driver-iwlwifi-no-bss-load.pcap", driver: "iwlwifi")
        #expect(o.json["channel_utilization_percent"] is NSNull && o.json["channel_utilization_source"] is NSNull, "\(o.json)")
        #expect(o.text.stdout.contains("channel utilisation UNKNOWN"))
        #expect(o.text.stdout.contains("UNKNOWN channel_utilization: iwlwifi keeps no channel busy time"), "\(o.text.stdout)")
        let row = try #require(o.row("channel_utilization"))
        #expect(row["status"] as? String == "unknown" && row["value"] is NSNull && (row["hint"] as? String)?.contains("iwlwifi") == true)
        #expect(o.survey.stdout.contains("UNKNOWN") && !o.survey.stdout.contains("channel_utilization  wlan2 channel 1      0%"))
        #expect(!o.prometheus.contains("pushdiag_channel_utilization_ratio{"), "no ratio rather than 0")
        #expect(o.prometheus.contains("pushdiag_check_status{check=\"channel_utilization\",subject=\"wlan2 channel 1\"} 3"))
        #expect(o.status == 3 && o.survey.status == 3)
    }

    @Test func rtw88RetriesOfZeroAreNotBelieved() throws {
        let o = try outputs("driver-rtw88.pcap", driver: "rtw_8822ce")
        // TX_RETRIES and TX_FAILED are 0 while 1000 frames went out: neither is a figure.
        let station = try #require((o.json["stations"] as? [[String: Any]])?.first)
        // The raw counters too: the kernel hands over 0s, the report shows no number.
        #expect(station["tx_retries"] is NSNull && station["tx_failed"] is NSNull, "\(station)")
        #expect(station["tx_packets"] as? Int == Int(NetlinkFixtures.retriesPackets[2]), "\(station)")
        let peer = try #require(o.text.stdout.split(separator: "\n").first { $0.hasPrefix("  02:00:00:00:00:00") && $0.contains("dBm") })
        let columns: [String] = peer.split(separator: " ").map(String.init)
        let packets: String = "\(NetlinkFixtures.retriesPackets[2])"
        #expect(Array(columns[1...3]) == [packets, "-", "-"], "\(peer)")
        #expect(o.json["retransmission_percent"] is NSNull && o.json["retransmission_source"] is NSNull, "\(o.json)")
        #expect(o.json["driver_family"] as? String == "rtw88")
        #expect(o.text.stdout.contains("retransmissions UNKNOWN"), "\(o.text.stdout)")
        #expect(o.text.stdout.contains("UNKNOWN retransmissions: rtw88 reports TX_RETRIES as 0") && o.text.stdout.contains("--capture"))
        let row = try #require(o.row("retransmissions"))
        #expect(row["status"] as? String == "unknown" && row["value"] is NSNull, "\(row)")
        #expect(!o.prometheus.contains("pushdiag_retransmission_ratio{"), "no ratio rather than 0")
        #expect(o.status == 3 && o.survey.status == 3)
        // No survey: the AP's BSS Load (0% in the lab's hostapd), said as such.
        #expect(o.json["channel_utilization_source"] as? String == "bss_load")
        // The sysfs name of newer kernels is the same family.
        #expect(try outputs("driver-rtw88.pcap", driver: "rtw88_8821cu").json["driver_family"] as? String == "rtw88")
        // Without the driver's name the counters are taken at their word: that is what the
        // table is for.
        let unaware = try outputs("driver-rtw88.pcap", driver: nil)
        #expect(unaware.json["retransmission_percent"] as? Double == 0 && unaware.json["retransmission_source"] as? String == "station_retries")
        #expect(unaware.json["driver"] is NSNull)
    }

    @Test func brcmfmacHasNoRetriesAtAll() throws {
        let o = try outputs("driver-brcmfmac.pcap", driver: "brcmfmac")
        let station = try #require((o.json["stations"] as? [[String: Any]])?.first)
        #expect(station["tx_retries"] is NSNull && station["tx_failed"] as? Int == Int(NetlinkFixtures.retriesFailed[2]), "\(station)")
        #expect(o.json["retransmission_source"] as? String == "tx_failed" && o.json["retransmission_trust"] as? String == "lower_bound")
        #expect(o.text.stdout.contains("brcmfmac does not report TX_RETRIES") && o.text.stdout.contains("survey: not reported by driver"))
        #expect(o.row("retransmissions")?["status"] as? String == "unknown")
        #expect(o.status == 3 && o.survey.status == 3)
        // Absent is absent whether the driver is named or not.
        let unaware = try outputs("driver-brcmfmac.pcap", driver: nil)
        #expect(unaware.json["retransmission_source"] as? String == "tx_failed")
    }

    @Test func ath10kSurveyIsThePeriodAndCountersGoingBackAreAReset() throws {
        let o = try outputs("driver-ath10k.pcap", driver: "ath10k_pci")
        let p = NetlinkFixtures.ath10kPackets
        let r = NetlinkFixtures.ath10kRetries
        #expect(o.json["retransmission_percent"] as? Double == percent(Double(r[2] - r[1]), Double(p[2] - p[1])), "\(o.json)")
        #expect((o.json["notes"] as? [String])?.contains { $0.contains("went back 1 time(s) without a reassociation") } == true)
        // Each dump holds the firmware's last period: the ratio of the samples' own times.
        let a = NetlinkFixtures.ath10kActive
        let b = NetlinkFixtures.ath10kBusy
        let expected = percent(Double(b.reduce(0, +)), Double(a.reduce(0, +)))
        #expect(o.json["channel_utilization_percent"] as? Double == expected && o.json["channel_utilization_trust"] as? String == "measured_period")
        #expect(o.json["channel_utilization_source"] as? String == "survey" && o.row("channel_utilization")?["source"] as? String == "survey")
        #expect(o.row("channel_utilization")?["status"] as? String == "critical")
        #expect(o.prometheus.contains("source=\"station_retries\",trust=\"measured\"} \(ratio(percent(Double(r[2] - r[1]), Double(p[2] - p[1]))))"))
        // Read as running totals, a period that never grows is no figure at all.
        let unaware = try outputs("driver-ath10k.pcap", driver: nil)
        #expect(unaware.json["channel_utilization_source"] as? String == "bss_load", "\(unaware.json)")
    }

    @Test func radioWideSurveyWhenNoChannelEntry() throws {
        let o = try outputs("driver-radio-wide.pcap", driver: "mt7921e")
        let a = NetlinkFixtures.radioActive
        let b = NetlinkFixtures.radioBusy
        let expected = percent(Double(b[2] - b[0]), Double(a[2] - a[0]))
        #expect(o.json["channel_utilization_percent"] as? Double == expected && o.json["channel_utilization_source"] as? String == "radio_survey")
        #expect(o.json["channel_utilization_trust"] as? String == "measured_radio_wide" && o.json["driver_family"] as? String == "mt76")
        #expect(o.text.stdout.contains("\(NumberText.format(expected))% (radio-wide survey)"), "\(o.text.stdout)")
        #expect(o.row("channel_utilization")?["status"] as? String == "critical")
        #expect(o.prometheus.contains("source=\"radio_survey\",trust=\"measured_radio_wide\"} \(ratio(expected))"))
        #expect(o.status == 2)
    }

    /// The current AP's signal against −67/−70 dBm and its SNR against 25 dB, in every output,
    /// with the limits configurable.
    @Test func weakSignalAndItsSNR() throws {
        // Taken at its word (no driver named), the survey's noise floor gives the SNR.
        let o = try outputs("wifi-weak-signal.pcap", driver: nil)
        let signal = Int(NetlinkFixtures.weakSignal)
        // The noise floor as the raw survey table has it for the channel in use.
        let inUse = (o.json["survey"] as? [[String: Any]])?.first { $0["frequency_mhz"] as? Int == o.json["frequency_mhz"] as? Int }
        let noise = try #require(inUse?["noise_dbm"] as? Int)
        #expect(o.json["signal_dbm"] as? Int == signal && o.json["noise_dbm"] as? Int == noise && o.json["snr_db"] as? Int == signal - noise)
        let findings = o.json["findings"] as? [[String: Any]] ?? []
        #expect(findings.contains { $0["check"] as? String == "signal" && $0["severity"] as? String == "critical" && $0["threshold"] as? Double == -70 })
        #expect(
            findings.contains { $0["check"] as? String == "snr" && $0["severity"] as? String == "warning" } == (signal - noise < 25), "\(findings)")
        #expect(o.text.stdout.contains("signal \(signal) dBm, noise \(noise) dBm, SNR \(signal - noise) dB"), "\(o.text.stdout)")
        #expect(o.row("signal")?["status"] as? String == "critical" && o.row("signal")?["value"] as? Double == Double(signal))
        #expect(o.row("snr")?["value"] as? Double == Double(signal - noise))
        #expect(o.prometheus.contains("pushdiag_signal_dbm{interface=\"wlan2\",bssid=\"02:00:00:00:00:00\"} \(signal)"), "\(o.prometheus)")
        #expect(o.prometheus.contains("pushdiag_snr_db{interface=\"wlan2\"} \(signal - noise)"))
        #expect(o.status == 2 && o.survey.status == 2)
        // Limits of one's own: the same signal is then a warning.
        let base = ["--replay", fixture("wifi-weak-signal.pcap"), "--interface", "wlan2"]
        let w = try json(try pushdiag(["wifi"] + base + ["--count", "3", "--signal-critical", "-75", "--format", "json"]).stdout)
        #expect((w["findings"] as? [[String: Any]])?.first { $0["check"] as? String == "signal" }?["severity"] as? String == "warning")
        let s = try json(try pushdiag(["survey"] + base + ["--duration", "3s", "--signal-critical=-75:", "--format", "json"]).stdout)
        let row = (s["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "signal" }
        #expect(row?["status"] as? String == "warning" && row?["threshold"] as? String == "-67: / -75:", "\(row ?? [:])")
        // As mac80211_hwsim's, whose survey (noise included: a constant) is not believed: no SNR.
        let hwsim = try outputs("wifi-weak-signal.pcap", driver: "mac80211_hwsim")
        #expect(hwsim.json["signal_dbm"] as? Int == signal && hwsim.json["noise_dbm"] is NSNull && hwsim.json["snr_db"] is NSNull)
        #expect(hwsim.row("snr") == nil && !hwsim.prometheus.contains("pushdiag_snr_db"))
        // The lab's own recording: a strong AP, OK.
        let lab = try outputs("lab-wifi.pcap", driver: nil)
        #expect(lab.row("signal")?["status"] as? String == "ok" && lab.row("snr")?["status"] as? String == "ok")
    }

    /// One judgement: `wifi` and `survey` (with no push server, so only the Wi-Fi checks count)
    /// end with the same status on every nl80211 recording.
    @Test func wifiAndSurveyAgreeOnEveryRecording() throws {
        var names = NetlinkFixtures.drivers.map { ($0.name, Optional($0.driver)) }
        names += NetlinkFixtures.all.map(\.name).filter { $0.hasPrefix("wifi-") }.map { ($0, nil) }
        names += [("lab-wifi.pcap", "mac80211_hwsim")]
        for (name, driver) in names {
            let d = driver.map { ["--driver", $0] } ?? []
            let w = try pushdiag(["wifi", "--replay", fixture(name), "--interface", "wlan2", "--count", "3"] + d)
            let s = try pushdiag(["survey", "--replay", fixture(name), "--interface", "wlan2", "--duration", "3s"] + d)
            #expect(w.status == s.status, "\(name): wifi \(w.status), survey \(s.status)\n\(w.stdout)\n\(s.stdout)")
        }
    }

    /// Every row of the driver table names a family and says why where it distrusts a counter.
    @Test func theDriverTableExplainsWhatItDistrusts() {
        for p in DriverProfiles.table {
            #expect(p.survey == .kept || p.surveyWhy != nil, "\(p.family): survey not kept, but no reason")
            #expect(p.txRetries == .kept || p.retriesWhy != nil, "\(p.family): retries not kept, but no reason")
            #expect(
                p.names.allSatisfy { DriverProfiles.profile($0.replacingOccurrences(of: "*", with: "x")) == p }, "\(p.family): a name matches another row first"
            )
        }
        #expect(DriverProfiles.profile("rtw_8822ce")?.family == "rtw88" && DriverProfiles.profile("iwlwifi")?.family == "iwlwifi")
        #expect(DriverProfiles.profile("e1000e") == nil)
    }
}
