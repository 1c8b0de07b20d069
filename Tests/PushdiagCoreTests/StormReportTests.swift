import PushdiagRender
import Testing

@testable import PushdiagCore

/// The storm's report and verdict, from measured devices.
struct StormReportTests {
    func measurement(_ devices: [StormDevice], dropped: Bool = true, tls: Bool = false) -> StormMeasurement {
        var m = StormMeasurement(
            target: "push.example:3000", protocol: "simplepush", tls: tls, schedule: [0.5, 1, 2], jitter: 0.5, settleSeconds: 1, devices: devices)
        m.dropped = dropped
        return m
    }

    func device(backAfterMs: Double?, failures: [ConnectionFailure] = [], gaveUp: Bool = false, resumed: Bool? = nil) -> StormDevice {
        var d = StormDevice()
        d.upAtDrop = true
        d.backAfterMs = backAfterMs
        d.failures = failures
        d.attempts = failures.count + (backAfterMs == nil ? 0 : 1)
        d.gaveUp = gaveUp
        d.resumedOnReturn = resumed
        return d
    }

    @Test func everyDeviceBackAtItsFirstAttemptIsOK() {
        // 20 devices back at 100, 200, … 2000 ms.
        let r = StormReport.assemble(measurement((1...20).map { device(backAfterMs: Double($0) * 100) }))
        #expect(r.status == .ok && r.findings.isEmpty)
        #expect(r.dropped == 20 && r.back == 20 && r.backPercent == 100 && r.attempts == 20)
        // Nearest rank: the 10th, the 19th and the 20th device back.
        #expect(r.recovery.p50Ms == 1000 && r.recovery.p95Ms == 1900 && r.recovery.p100Ms == 2000 && r.recovery.firstMs == 100)
        // 9 back in second 0 (100…900 ms), 10 in second 1, 1 in second 2; 20 over 1.9 s.
        #expect(r.acceptRate.perSecond == [9, 10, 1] && r.acceptRate.peakPerSecond == 10)
        #expect(r.acceptRate.meanPerSecond == 10.5)
        #expect(r.tlsResumed == nil && r.tlsFull == nil)
    }

    @Test func failuresAreCountedByKindFromTheTypedValue() {
        let refused = ConnectionFailure.connect(host: "h", errno: .connectionRefused)
        let reset = ConnectionFailure.closedByPeer("gone")
        let timeout = ConnectionFailure.timeout("connecting")
        let tls = ConnectionFailure.tls("TLS handshake with h: bad certificate")
        let local = ConnectionFailure.connect(host: "h", errno: .addressNotAvailable)
        var c = StormFailureCounts()
        for f in [refused, refused, reset, timeout, tls, local, ConnectionFailure.io("x", errno: .connectionReset)] { c.add(f) }
        #expect(c.refused == 2 && c.reset == 2 && c.timeout == 1 && c.tls == 1 && c.local == 1 && c.total == 7)
        #expect(StormAnalysis.describe(c) == "2 refused, 2 reset or closed, 1 timed out, 1 TLS failed, 1 local limits")
    }

    @Test func attemptsTurnedAwayButAllBackIsAWarning() {
        let refused = ConnectionFailure.connect(host: "h", errno: .connectionRefused)
        let r = StormReport.assemble(
            measurement([device(backAfterMs: 600), device(backAfterMs: 2100, failures: [refused]), device(backAfterMs: 4000, failures: [refused, refused])]))
        #expect(r.status == .warning && r.findings.map(\.check) == [.stormRetries])
        #expect(r.failures.refused == 3 && r.attempts == 6 && r.back == 3)
        #expect(r.findings[0].message == "push.example:3000: 3 of 6 reconnect attempts failed during the storm (3 refused); 95% back after 4 s")
        #expect(r.failureExamples == ["refused: cannot connect to h: connection refused (ECONNREFUSED)"])
        // One number for the 95th percentile in the finding and the report's text: rounded once
        // (1.2346 s is 1.23 s; the text rounded to the millisecond first and read 1.24 s).
        let one = StormReport.assemble(measurement([device(backAfterMs: 1234.6, failures: [refused])]))
        #expect(one.findings.first?.message.hasSuffix("; 95% back after 1.23 s") == true, "\(one.findings)")
        let text = HeartbeatTextRenderer().render(one)
        #expect(text.contains("back after: 50% 1.23 s, 95% 1.23 s, 100% 1.23 s (first 1.23 s)"), "\(text)")
    }

    @Test func devicesThatGaveUpAreCritical() {
        let timeout = ConnectionFailure.timeout("connecting")
        let r = StormReport.assemble(
            measurement([device(backAfterMs: 700), device(backAfterMs: nil, failures: [timeout, timeout, timeout], gaveUp: true)]))
        #expect(r.status == .critical && r.gaveUp == 1 && r.back == 1 && r.backPercent == 50)
        #expect(r.recovery.p50Ms == 700 && r.recovery.p95Ms == nil && r.recovery.p100Ms == nil)
        #expect(r.findings.map(\.check) == [.stormGaveUp])
    }

    @Test func devicesThatNeverConnectedAndLocalLimits() {
        var never = StormDevice()
        never.failuresBeforeDrop = [.connect(host: "h", errno: .connectionRefused), .connect(host: "h", errno: .tooManyOpenFiles)]
        let r = StormReport.assemble(measurement([device(backAfterMs: 500), never]))
        #expect(r.upBeforeDrop == 1 && r.failedBeforeDrop == 1 && r.dropped == 1 && r.failuresBeforeDrop.refused == 1)
        #expect(r.status == .critical && r.findings.map(\.check) == [.stormConnects, .stormLocalLimits])
    }

    /// Set-up failed before any device tried (an unreadable CA file): UNKNOWN, and no finding
    /// blames the server for devices that never connected.
    @Test func aSetUpFailureBlamesNobody() {
        var m = measurement([StormDevice(), StormDevice()], dropped: false, tls: true)
        m.failure = .tls("cannot load the CA file /nonexistent.pem")
        let r = StormReport.assemble(m)
        #expect(r.status == .unknown && r.findings.isEmpty && r.error == "cannot load the CA file /nonexistent.pem", "\(r)")
    }

    @Test func resumedHandshakesAndAStopBeforeTheDrop() {
        let tls = StormReport.assemble(
            measurement(
                [device(backAfterMs: 500, resumed: true), device(backAfterMs: 600, resumed: false), device(backAfterMs: 700, resumed: true)], tls: true))
        #expect(tls.tlsResumed == 2 && tls.tlsFull == 1)
        let early = StormReport.assemble(measurement([device(backAfterMs: nil)], dropped: false))
        #expect(early.dropped == 0 && early.back == 0 && early.recovery.p50Ms == nil && early.stillOut == 0 && early.status == .ok)
        // Stopped (SIGINT) before the drop, or with devices still out: no verdict on the server.
        var stopped = measurement([device(backAfterMs: nil)], dropped: false)
        stopped.interrupted = true
        #expect(StormReport.assemble(stopped).status == .unknown)
        var midway = measurement([device(backAfterMs: 600), device(backAfterMs: nil)])
        midway.interrupted = true
        let m = StormReport.assemble(midway)
        #expect(m.stillOut == 1 && m.status == .unknown && m.findings.map(\.check) == [.stormInterrupted])
        midway.devices.removeLast()
        #expect(StormReport.assemble(midway).status == .ok, "stopped after every device was back: the storm was seen whole")
    }

    @Test func jitterStaysWithinItsRatio() {
        #expect(StormAnalysis.jittered(2, jitter: 0.5, unit: 0) == 1)
        #expect(StormAnalysis.jittered(2, jitter: 0.5, unit: 0.5) == 2)
        #expect(StormAnalysis.jittered(2, jitter: 0, unit: 0.99) == 2)
        #expect(StormAnalysis.jittered(2, jitter: 1, unit: 0) == 0)
    }
}
