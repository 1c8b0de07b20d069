import Foundation
import PushdiagCore
import PushdiagRender
import TestSupport
import Testing

/// The join's text waterfall and JSON against golden files (fixtures/join-report.txt, .json),
/// from three synthetic cycles: a pre-shared key rejoin seen whole, a passive rejoin with a kept
/// lease on a full-MAC driver, and a refused association. `RECORD_SNAPSHOTS=1` rewrites them.
@Suite struct JoinRendererTests {
    static var report: JoinReport {
        let a = JoinAnalysisTests.self
        let kept = [
            a.at(-100, .addressAdded("10.0.0.2/24")), a.at(0, .cycleStart("disconnected: reason 4")),
            a.at(40, .connected(bssid: a.ap, status: 0, timedOut: false)), a.at(55, .portAuthorized), a.at(60, .push(.resolveStarted("push.example"))),
            a.at(61, .push(.resolved(a.server))), a.at(62, .push(.tcpStarted(a.server))), a.at(64, .push(.tcpConnected)),
            a.at(70, .push(.tlsDone)), a.at(71, .push(.heartbeatSent)), a.at(73, .push(.heartbeatAnswered)),
            a.at(0, .notVisible(.eap, "EAPOL, DHCP and DNS packets need CAP_NET_RAW")),
            a.at(0, .notVisible(.dhcp, "EAPOL, DHCP and DNS packets need CAP_NET_RAW")),
        ]
        let refused = [
            a.at(0, .cycleStart("wpa_supplicant RECONNECT")), a.at(5, .scanStarted), a.at(50, .scanFinished(aborted: false)),
            a.at(52, .authenticated(bssid: a.ap, status: 0)), a.at(54, .associated(bssid: a.ap, status: 17, maxIdle: nil)), a.at(3000, .cycleEnd),
        ]
        let cycles = [a.psk, kept, refused].enumerated().map { JoinAnalysis.cycle($0 + 1, events: $1, setup: a.setup) }
        return JoinAnalysis.report(
            interface: "wlan0", server: "push.example:5223", mode: "kick (wpa_supplicant)", cycles: cycles, thresholds: JoinThresholds(),
            notes: ["a synthetic report"])
    }

    static func golden(_ name: String, _ text: String) throws {
        let url = TestPaths.fixtures.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil { try text.write(to: url, atomically: true, encoding: .utf8) }
        let want = try String(contentsOf: url, encoding: .utf8)
        #expect(text == want, "\(name) differs; RECORD_SNAPSHOTS=1 rewrites it after a look at the difference")
    }

    @Test func textWaterfallMatchesItsGoldenFile() throws {
        let text = JoinTextRenderer.render(Self.report)
        try Self.golden("join-report.txt", text)
        // The bars sit where the steps lie: the scan's (2–60 ms of 110) covers columns 0 to 17 of 32.
        #expect(text.contains("|" + String(repeating: "#", count: 18) + String(repeating: " ", count: 14) + "|"))
    }

    /// The slowest push-ready just above its warning limit reads above it in the groups' tables
    /// (it printed as the limit beside WARNING); the steps' own statistics keep two decimals.
    @Test func aTimeJustAboveALimitReadsAboveItInTheTables() throws {
        // The pre-shared key rejoin, answered 4 µs later: push-ready just above a whole limit.
        let a = JoinAnalysisTests.self
        let late = a.psk.map { $0.kind == .push(.heartbeatAnswered) ? JoinEvent($0.timeNs + 4_000, $0.kind) : $0 }
        let cycle = JoinAnalysis.cycle(1, events: late, setup: a.setup)
        let ready = try #require(cycle.pushReadyMs)
        let limit = ready.rounded(.down)
        #expect(ready > limit && NumberText.format(ready) == NumberText.format(limit), "\(ready)")
        let thresholds = try JoinThresholds.resolve([ThresholdRow.pushReady.key(.warning): limit]).get()
        let r = JoinAnalysis.report(interface: "wlan0", server: "push.example:5223", mode: "passive", cycles: [cycle], thresholds: thresholds)
        #expect(r.pushReadySeverity == .warning)
        let cell = NumberText.format(ready, beside: limit) + " ms"
        let text = JoinTextRenderer.render(r)
        let html = JoinHTMLRenderer().render(r)
        // The groups' row (the finding's message said it already).
        let row = text.split(separator: "\n").first { $0.hasPrefix("  push-ready  all") }.map(String.init) ?? ""
        #expect(row.contains(" \(cell) ") && html.contains("<td class=\"num\">\(cell)</td>"), "\(cell): \(text)")
        #expect(html.contains(", slowest \(cell)</p>"), "the page's heading")
    }

    @Test func jsonKeepsTheContract() throws {
        let text = try JSONRenderer.render(Self.report)
        try Self.golden("join-report.json", text + "\n")
        let j = try json(text)
        let cycles = try #require(j["cycles"] as? [[String: Any]])
        #expect(cycles.count == 3)
        for c in cycles {
            for s in try #require(c["steps"] as? [[String: Any]]) {
                #expect(Set(s.keys) == ["name", "start", "offset_ms", "duration_ms", "status", "detail"])
                // A duration only where the step was measured; null, not 0, elsewhere.
                #expect((s["status"] as? String == "ok") == !(s["duration_ms"] is NSNull), "\(s)")
            }
        }
        let summary = try #require(j["summary"] as? [[String: Any]])
        #expect(summary.map { $0["name"] as? String } == JoinStep.allCases.map(\.rawValue))
        #expect(j["status"] as? String == "critical")
    }

    /// The page and the textfile of a refused association, a step not visible and a kept lease:
    /// no bar and no quantile where nothing was measured, the cycle that failed counted.
    @Test func pageAndTextfileGiveNoTimeThatWasNotMeasured() throws {
        let r = Self.report
        let page = JoinHTMLRenderer().render(r)
        let refused = try #require(page.components(separatedBy: "id=\"cycle-3\"").dropFirst().first?.components(separatedBy: "</section>").first)
        #expect(!refused.contains("class=\"push-ready\"") && refused.contains("never push-ready"))
        #expect(
            refused.contains("<text class=\"step-status failed\" data-step=\"association\"") && !refused.contains("data-step=\"association\" data-offset-ms"))
        let kept = try #require(page.components(separatedBy: "id=\"cycle-2\"").dropFirst().first?.components(separatedBy: "</section>").first)
        #expect(kept.contains("<text class=\"step-status not_visible\" data-step=\"dhcp\""))
        let prom = JoinPrometheusRenderer().render(r)
        #expect(Exposition.value(prom, "pushdiag_join_cycles", ["result": "failed"]) == 1)
        #expect(Exposition.value(prom, "pushdiag_join_cycles", ["result": "push_ready"]) == 2)
        #expect(Exposition.value(prom, "pushdiag_join_status") == 2)
        #expect(Exposition.value(prom, "pushdiag_join_step_cycles", ["step": "dhcp", "status": "not_visible"]) == 1)
        #expect(!prom.contains("NaN") && !prom.contains("Inf"))
    }

    /// Names from a recording are someone else's text: escaped in the page and in the labels; a
    /// run without a cycle renders (no scale, no quantile) rather than failing.
    @Test func hostileNamesAndAnEmptyRunRender() throws {
        let r = JoinAnalysis.report(
            interface: "wl\"an<script>0\n", server: "</title>push\\:1", mode: "passive", cycles: [], thresholds: JoinThresholds(), notes: ["<b>"])
        let page = JoinHTMLRenderer().render(r)
        #expect(!page.contains("<script>") && !page.contains("<b>") && page.contains("wl&quot;an&lt;script&gt;0"))
        #expect(page.components(separatedBy: "</title>").count == 2)
        let prom = JoinPrometheusRenderer().render(r)
        #expect(prom.contains("interface=\"wl\\\"an<script>0\\n\",target=\"</title>push\\\\:1\"") && !prom.contains("quantile"))
        #expect(
            Exposition.value(prom, "pushdiag_join_status") == 3
                && prom.split(separator: "\n").allSatisfy { $0.hasPrefix("#") || $0.hasPrefix("pushdiag_join_") })
    }

    /// `--find-ap-idle` in every output: the rungs in the text and the page, the limits as
    /// series (only those found), the safe interval as the lowest; nothing of it without the ladder.
    @Test func theAPIdleLadderInEveryOutput() throws {
        let a = APIdleTests.self
        let rungs = APIdle.rungs([
            a.at(0, .silenceStart(idleS: 10)), a.at(10, .silenceEnd), a.at(10.2, .push(.heartbeatAnswered)), a.at(10.3, .rungEnd),
            a.at(11, .silenceStart(idleS: 30)), a.at(13, .stationSent("ARP <x>")), a.at(29.5, .disconnected(reason: 4, byAP: true)), a.at(31, .rungEnd),
        ])
        var r = Self.report
        r = JoinAnalysis.report(
            interface: r.interface, server: r.server, mode: r.mode, cycles: r.cycles, thresholds: JoinThresholds(), notes: r.notes,
            apIdle: APIdleReport.conclude(rungs: rungs, bssMaxIdleS: 39.936, pathIdleTimeoutS: nil))
        let text = JoinTextRenderer.render(r)
        #expect(text.contains("what the AP does to a silent station") && text.contains("dropped by the AP (reason 4 (inactivity)) after 16.5s"), "\(text)")
        #expect(
            text.contains(
                "longest safe heartbeat interval: 10s, the lowest of: the longest silence the AP kept 10s; the BSS Max Idle Period advertised 39.94s"),
            "\(text)")
        let page = JoinHTMLRenderer().render(r)
        #expect(
            page.contains("id=\"ap-idle-table\"") && page.contains("<tr class=\"dropped\">")
                && page.contains("Longest safe heartbeat interval: <b>10s</b>, the lowest of: the longest silence the AP kept"))
        let prom = JoinPrometheusRenderer().render(r)
        #expect(Exposition.value(prom, "pushdiag_join_idle_limit_seconds", ["source": "ap_kept"]) == 10)
        #expect(Exposition.value(prom, "pushdiag_join_idle_limit_seconds", ["source": "ap_dropped"]) == nil)
        #expect(Exposition.value(prom, "pushdiag_join_idle_limit_seconds", ["source": "bss_max_idle"]) == 39.936)
        #expect(Exposition.value(prom, "pushdiag_join_idle_limit_seconds", ["source": "path_idle_timeout"]) == nil)
        #expect(Exposition.value(prom, "pushdiag_join_safe_heartbeat_interval_seconds") == 10)
        let j = try json(try JSONRenderer.render(r))
        let idle = try #require(j["ap_idle"] as? [String: Any])
        #expect(idle["dropped_after_s"] as? Double == 16.5 && idle["kept_s"] as? Double == 10 && idle["safe_interval_s"] as? Double == 10)
        #expect(
            (idle["rungs"] as? [[String: Any]])?.first.map { Set($0.keys) } == [
                "idle_s", "outcome", "silent_s", "reason", "station_frames", "keep_alives", "hidden_frames", "detail",
            ])
        // Without the ladder: null in the JSON, nothing in the text, page or metrics.
        let plain = Self.report
        #expect(try json(try JSONRenderer.render(plain))["ap_idle"] is NSNull)
        #expect(!JoinTextRenderer.render(plain).contains("silent station") && !JoinPrometheusRenderer().render(plain).contains("idle"))
    }
}
