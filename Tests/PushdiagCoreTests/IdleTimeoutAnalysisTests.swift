import PushdiagCore
import Testing

@Suite struct IdleTimeoutAnalysisTests {
    typealias R = IdleTimeout.Rung

    @Test func theLadderEndsAtItsMaximum() {
        #expect(IdleTimeout.rungs(upTo: 600) == [30, 60, 120, 300, 600])
        #expect(IdleTimeout.rungs(upTo: 400) == [30, 60, 120, 300, 400])
        #expect(IdleTimeout.rungs(upTo: 10, from: [20, 5, 1]) == [1, 5, 10])
        #expect(IdleTimeout.rungs(upTo: 5, from: [5, 1, 5]) == [1, 5], "one connection per idle time")
    }

    @Test func aDeathAboveASurvivalBracketsTheTimeout() {
        let r = IdleTimeoutReport.conclude(
            target: "t", protocol: "simplepush",
            rungs: [R(idleS: 300, outcome: .reset), R(idleS: 30, outcome: .survived, rttMs: 1), R(idleS: 60, outcome: .survived, rttMs: 1)],
            interrupted: false)
        #expect(r.longestSurvivedS == 60 && r.shortestDiedS == 300 && r.died == .reset && r.status == .warning)
        #expect(r.rungs.map(\.idleS) == [30, 60, 300])
        #expect(r.findings.first?.message.contains("shorter than 1m") == true, "\(r.findings)")
    }

    @Test func rungsThatNeverOpenedSayNothing() {
        let none = IdleTimeoutReport.conclude(target: "t", protocol: "line", rungs: [R(idleS: 30, outcome: .notOpened)], interrupted: false)
        #expect(none.status == .unknown && none.longestSurvivedS == nil && none.shortestDiedS == nil)
        let all = IdleTimeoutReport.conclude(
            target: "t", protocol: "line", rungs: [R(idleS: 30, outcome: .survived), R(idleS: 60, outcome: .notOpened)], interrupted: false)
        #expect(all.status == .ok && all.longestSurvivedS == 30 && all.shortestDiedS == nil)
        let odd = IdleTimeoutReport.conclude(
            target: "t", protocol: "line", rungs: [R(idleS: 30, outcome: .blackHole), R(idleS: 60, outcome: .survived)], interrupted: true)
        #expect(odd.status == .unknown && odd.findings.contains { $0.check == "idle_inconsistent" })
    }
}
