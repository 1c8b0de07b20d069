import Foundation
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
}
