import Foundation
import Synchronization
import TestSupport
import Testing

@testable import PushdiagCore
@testable import PushdiagExporter

/// What the exporter makes of a followed interface's roams (watch's events, as nl80211 gave them).
@Suite struct InterfaceFollowerTests {
    let a = MACAddress("02:00:00:00:00:00")!, b = MACAddress("02:00:00:00:01:00")!

    /// A roam whose gap the kernel did not report (a fast transition that reassociated and
    /// failed) is counted as a roam and never observed as a 0 s gap; a measured one is.
    @Test func aGapNotReportedIsNotObserved() {
        let registry = MetricRegistry()
        let metrics = MetricSet(registry: registry, labels: [("interface", "wlan0")])
        let follower = InterfaceFollower(
            name: "wlan0", intervalSeconds: 1, limits: WalkThresholds(), replay: nil, metrics: metrics, log: ExporterLog(write: { _ in }))
        func text() -> String { String(decoding: registry.exposition(), as: UTF8.self) }
        let failed = FastTransitionFailure(stage: .keys, targetBssid: b, reasonCode: 2, byAp: false)
        follower.event(
            WatchEvent(
                timeNs: 1_000_000_000, event: .roam, interface: "wlan0", ssid: "ward-3", bssid: b, fromBssid: a, statusCode: 0, gapMs: nil,
                fastTransition: false, fastTransitionAttempt: true, fastTransitionFailure: failed))
        var t = text()
        #expect(Exposition.series(t, "pushdiag_roams_total").map(\.value).reduce(0, +) == 1, "\(t)")
        #expect(Exposition.value(t, "pushdiag_roam_gap_seconds_count") == nil || Exposition.value(t, "pushdiag_roam_gap_seconds_count") == 0, "\(t)")
        follower.event(
            WatchEvent(timeNs: 2_000_000_000, event: .roam, interface: "wlan0", ssid: "ward-3", bssid: a, fromBssid: b, statusCode: 0, gapMs: 45))
        t = text()
        #expect(Exposition.series(t, "pushdiag_roams_total").map(\.value).reduce(0, +) == 2, "\(t)")
        #expect(Exposition.value(t, "pushdiag_roam_gap_seconds_count") == 1 && Exposition.value(t, "pushdiag_roam_gap_seconds_sum") == 0.045, "\(t)")
    }

    /// A scrape while a sample is published sees the sample whole: the retransmission ratio or
    /// its `pushdiag_wifi_value_unknown`, never both and never neither (seen in the lab: the
    /// ratio of the new sample beside the reason of the one before). Samples that alternate
    /// between a ratio and none, published on one thread while another scrapes (before the
    /// fix, about one scrape in seven of 9,300 was torn).
    @Test func aScrapeSeesASampleWhole() {
        let registry = MetricRegistry()
        let metrics = MetricSet(registry: registry, labels: [("interface", "wlan0")])
        let follower = InterfaceFollower(
            name: "wlan0", intervalSeconds: 1, limits: WalkThresholds(), replay: nil, metrics: metrics, log: ExporterLog(write: { _ in }))
        func report(_ percent: Double?) -> WiFiReport {
            WiFiReport(
                interface: "wlan0", samples: 2, windowSeconds: 1, survey: [], stations: [], retransmissionPercent: percent,
                retransmissionSource: percent == nil ? nil : .stationRetries, retransmissionTrust: percent == nil ? nil : .measured, bss: [],
                findings: [], status: .ok, retransmissionsUnknown: percent == nil ? "retransmissions: no frames sent to the peer during the window" : nil,
                notes: [])
        }
        let known = report(2)
        let unknown = report(nil)
        follower.publish(unknown, scan: [], readAt: 0, now: 1, driver: nil)
        let rounds = 20_000
        let done = Atomic<Bool>(false)
        let publisher = Thread {
            for i in 0..<rounds { follower.publish(i % 2 == 0 ? known : unknown, scan: [], readAt: 0, now: 1, driver: nil) }
            done.store(true, ordering: .releasing)
        }
        publisher.start()
        var scrapes = 0
        var torn: [String] = []
        while !done.load(ordering: .acquiring) || scrapes == 0 {
            let t = String(decoding: registry.exposition(), as: UTF8.self)
            scrapes += 1
            let ratio = Exposition.series(t, "pushdiag_retransmission_ratio").count
            let why = Exposition.series(t, "pushdiag_wifi_value_unknown").filter { $0.labels.contains("value=\"retransmission\"") }.count
            if ratio + why != 1 { torn.append("ratio \(ratio), unknown \(why)") }
        }
        #expect(torn.count == 0, "\(torn.count) of \(scrapes) scrapes saw a sample torn: \(torn.prefix(3))")
    }

    /// The lens's values at a sample take the scans whose results the event follower saw: a scan
    /// that heard only the AP is a judgement (no roam, one BSS at -67 dBm or better), where
    /// without it the values are absent and said unknown.
    @Test func theLensTakesTheScansWhoseResultsCame() {
        let registry = MetricRegistry()
        let metrics = MetricSet(registry: registry, labels: [("interface", "wlan0")])
        let follower = InterfaceFollower(
            name: "wlan0", intervalSeconds: 1, limits: WalkThresholds(), replay: nil, metrics: metrics, log: ExporterLog(write: { _ in }))
        let s: Int64 = 1_000_000_000
        let report = WiFiReport(
            interface: "wlan0", ssid: "ward", bssid: a, frequencyMhz: 2412, samples: 2, windowSeconds: 1, survey: [], stations: [], bss: [],
            signalDbm: -60, findings: [], status: .ok, notes: [])
        var own = NL80211.ScanBSS(bssid: a, frequency: 2412, seenMsAgo: 0, ssid: Array("ward".utf8))
        own.signalMBm = -6000
        func lens(_ completed: [CompletedScan]) -> String {
            follower.publish(report, scan: [own], readAt: 10 * s, now: 10 * s, driver: nil, completed: completed)
            return String(decoding: registry.exposition(), as: UTF8.self)
        }
        let none = lens([])
        #expect(Exposition.series(none, "pushdiag_iphone_would_roam").isEmpty, "\(none)")
        #expect(
            Exposition.series(none, "pushdiag_wifi_value_unknown").contains {
                $0.labels.contains("value=\"iphone_lens\"") && $0.labels.contains("no scan at most 10 s old")
            },
            "\(none)")
        let scanned = lens([CompletedScan(timeNs: 8 * s, frequenciesMhz: [2412, 5180])])
        #expect(Exposition.series(scanned, "pushdiag_iphone_would_roam").map(\.value) == [0, 0], "\(scanned)")
        #expect(Exposition.value(scanned, "pushdiag_roaming_coverage_bss") == 1, "\(scanned)")
        #expect(!Exposition.series(scanned, "pushdiag_wifi_value_unknown").contains { $0.labels.contains("value=\"iphone_lens\"") }, "\(scanned)")
    }
}
