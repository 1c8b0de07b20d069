import PushdiagRender
import Testing

@testable import PushdiagCore

/// Every check of a survey names one Prometheus series and one Nagios label, so no two may share
/// a name, whatever the parts measured.
@Suite struct SurveyReportTests {
    func report(_ checks: [SurveyCheck]) -> SurveyReport {
        SurveyReport(started: 0, durationSeconds: 1, checks: checks, wifi: nil, capture: nil, heartbeats: [], routes: nil)
    }

    @Test func checksOfOneNameAreNumbered() {
        let r = report([
            SurveyCheck(check: .route, status: .ok, subject: "10.0.0.1", hint: "via wlan0"),
            SurveyCheck(check: .route, status: .critical, subject: "10.0.0.1", hint: "no route"),
            SurveyCheck(check: .heartbeat, status: .ok, subject: "10.0.0.1", hint: "ok"),
            SurveyCheck(check: .route, status: .ok, subject: "10.0.0.1 (2)", hint: "a subject that looks numbered already"),
            SurveyCheck(check: .route, status: .ok, subject: "10.0.0.1", hint: "third"),
        ])
        #expect(r.checks.map(\.subject) == ["10.0.0.1", "10.0.0.1 (2)", "10.0.0.1", "10.0.0.1 (2) (2)", "10.0.0.1 (3)"])
        #expect(r.checks.map(\.hint) == ["via wlan0", "no route", "ok", "a subject that looks numbered already", "third"])
        #expect(r.status == .critical)
    }

    /// The survey's default ranges are the other commands' limits, written as plain ranges.
    @Test func defaultRangesAreTheOtherCommandsLimits() {
        let t = SurveyThresholds()
        #expect(
            [ThresholdRow.utilization, .retransmission, .loss, .rtt].flatMap { [t[$0].warning, t[$0].critical] }.map(\.text)
                == ["32", "40", "12", "15", "1", "5", "200", "1000"])
        #expect(t[.utilization].critical.alerts(40.5) && !t[.utilization].critical.alerts(40) && t[.rtt].critical == ThresholdRange("1000"))
    }

    @Test func prometheusAndNagiosNameEachCheckOnce() {
        let r = report([
            SurveyCheck(check: .roaming, status: .ok, subject: "ward 3", value: 2, unit: .bss, hint: ""),
            SurveyCheck(check: .roaming, status: .ok, subject: "ward 3", value: 2, unit: .bss, hint: ""),
            SurveyCheck(check: .roaming, status: .ok, subject: "ward_3", value: 1, unit: .bss, hint: "differs only where a label cannot"),
        ])
        let prom = SurveyPrometheusRenderer().render(r)
        let series = prom.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        #expect(Set(series).count == series.count, "\(prom)")
        #expect(series.filter { $0.hasPrefix("pushdiag_check_status") }.count == 3)
        let nagios = SurveyNagiosRenderer().render(r)
        let labels = nagios.split(separator: "|").last!.split(separator: " ").map { $0.split(separator: "=").first! }
        #expect(labels == ["'roaming_ward_3'", "'roaming_ward_3_2'", "'roaming_ward_3_3'"], "\(nagios)")
    }
}
