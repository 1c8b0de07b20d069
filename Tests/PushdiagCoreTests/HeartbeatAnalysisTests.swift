import PushdiagCore
import Testing

/// Findings are decided from what was measured and the typed failure, never from message text.
struct HeartbeatAnalysisTests {
    let o = HeartbeatOptions(endpoint: Endpoint(host: "push.example", port: 3000), proto: .simplepush)

    func concluded(_ failure: ConnectionFailure?, connected: Bool = false, sent: Int = 0, received: Int = 0) -> HeartbeatReport {
        var r = HeartbeatReport(target: "push.example:3000", protocol: "simplepush")
        r.sent = sent
        r.received = received
        if connected { r.connectMs = 1 }
        HeartbeatAnalysis.conclude(&r, failure: failure, options: o)
        return r
    }

    /// The round trip is graded at its p95 against the rtt row (as set): above the warning a
    /// warning naming it, above the critical a critical, at a limit within it. The load test's
    /// 300 devices set these out of reach; this is where they are checked.
    @Test func theRoundTripIsGradedAtItsP95() {
        var t = HeartbeatThresholds()
        #expect(t.rttWarningMs == ThresholdRow.rtt.warning && t.rttCriticalMs == ThresholdRow.rtt.critical)
        t.rttWarningMs = 50
        t.rttCriticalMs = 400
        func graded(_ p95: Double) -> [Finding] {
            // 20 samples: the 19th of the sorted ones is the p95.
            let rtt = RTTSummary.of(Array(repeating: 5, count: 18) + [p95, 900])
            #expect(rtt?.p95 == p95)
            return HeartbeatAnalysis.findings(target: "t", sent: 20, received: 20, rtt: rtt, connectionLost: false, t: t).filter { $0.check == .heartbeatRtt }
        }
        #expect(graded(50).isEmpty)
        let warning = graded(50.004)
        #expect(
            warning.count == 1 && warning[0].severity == .warning && warning[0].threshold == 50 && warning[0].value == 50.004
                && warning[0].message == "t: heartbeat round trip p95 50.004 ms, above 50 ms", "\(warning)")
        let critical = graded(401)
        #expect(critical.count == 1 && critical[0].severity == .critical && critical[0].threshold == 400, "\(critical)")
    }

    /// The certificate is graded on the certificate row, as survey grades it: 5 days left was a
    /// warning here and critical in survey (the row's critical limit is 7 days).
    @Test func theCertificateIsGradedOnItsRowAsSurveyGradesIt() {
        for (days, expected, limit) in [(90, nil, nil), (30, nil, nil), (20, Severity.warning, 30.0), (5, .critical, 7), (-1, .critical, 7)]
            as [(Int, Severity?, Double?)]
        {
            var r = HeartbeatReport(target: "push.example:3000", protocol: "simplepush")
            r.sent = 1
            r.received = 1
            r.tls = TLSInfo(
                version: "TLSv1.3", cipher: "x", subject: "s", issuer: "i", notAfter: "2030-01-01T00:00:00Z", notAfterSeconds: 0, daysLeft: days,
                spkiSha256: "", verified: true, verifyError: nil, pinMatched: nil)
            HeartbeatAnalysis.conclude(&r, failure: nil, options: o)
            let f = r.findings.first { $0.check == .tlsCertificate }
            #expect(f?.severity == expected && f?.threshold == limit && r.status == expected ?? .ok, "\(days) days: \(String(describing: f))")
            let survey = SurveyVerdicts.certificate(r, t: SurveyThresholds())?.status
            #expect(survey.flatMap { $0.severity } == expected ?? .ok, "\(days) days: survey \(String(describing: survey))")
        }
    }

    /// A survey's heartbeat sessions grade their own findings (its `heartbeats[]`) on the survey's
    /// limits, so they say what its checks say: under ranges tighter than the defaults, and under
    /// ranges no plain limit can say (inside, two ends, never), each of loss, round trip and
    /// certificate is the same grade in both, at the limits too.
    @Test(arguments: [
        [(ThresholdRow.loss, "1", "3"), (.rtt, "20", "40"), (.certificate, "60:", "20:")],
        [(ThresholdRow.loss, "~:", "@10:20"), (.rtt, "@30:35", "~:"), (.certificate, "~:", "15:400")],
    ])
    func aSurveysSessionsAreGradedOnTheSurveysLimits(_ ranges: [(ThresholdRow, String, String)]) throws {
        var t = SurveyThresholds()
        for (row, warning, critical) in ranges {
            t[row.key(.warning)] = try row.parse(warning).get()
            t[row.key(.critical)] = try row.parse(critical).get()
        }
        var options = HeartbeatOptions(endpoint: Endpoint(host: "push.example", port: 3000), proto: .simplepush)
        options.thresholds = t.heartbeat
        let cases: [(lost: Int, p95: Double, days: Int)] = [
            (0, 10, 90), (2, 10, 90), (2, 30, 40), (5, 50, 10), (0, 39.9, 21), (3, 40, 20), (1, 20, 60), (15, 32, 500), (30, 36, 100), (10, 35, 15),
        ]
        var graded: Set<Severity> = []
        for (lost, p95, days) in cases {
            var r = HeartbeatReport(target: "push.example:3000", protocol: "simplepush")
            (r.sent, r.received) = (100, 100 - lost)
            r.rttMs = RTTSummary.of(Array(repeating: 1, count: 18) + [p95, p95 + 1])
            r.tls = TLSInfo(
                version: "TLSv1.3", cipher: "x", subject: "s", issuer: "i", notAfter: "2030-01-01T00:00:00Z", notAfterSeconds: 0, daysLeft: days,
                spkiSha256: "", verified: true, verifyError: nil, pinMatched: nil)
            HeartbeatAnalysis.conclude(&r, failure: nil, options: options)
            func own(_ checks: CheckName...) -> Severity { r.findings.filter { checks.contains($0.check) }.map(\.severity).max() ?? .ok }
            let heartbeat = SurveyVerdicts.heartbeat(r, t: t).status.severity
            let certificate = SurveyVerdicts.certificate(r, t: t)?.status.severity
            #expect(
                own(.heartbeat, .heartbeatLoss, .heartbeatRtt) == heartbeat,
                "\(lost)% lost, p95 \(p95) ms: \(r.findings) against \(String(describing: heartbeat))")
            #expect(own(.tlsCertificate) == certificate, "\(days) days: \(r.findings) against \(String(describing: certificate))")
            graded.formUnion([own(.heartbeatLoss), own(.heartbeatRtt), own(.tlsCertificate)])
        }
        #expect(graded == [.ok, .warning, .critical], "the cases reach every grade: \(graded)")
    }

    /// The air's parts grade through the same protocol (`RangeGraded`): a survey's `air` carries
    /// its ranges, so every value of every row they grade gets the survey's own grade (the parts'
    /// findings themselves: SurveyCommandTests).
    @Test func theAirsPartsGradeAsTheSurveyDoes() throws {
        var t = SurveyThresholds()
        for (row, warning, critical) in [
            (ThresholdRow.utilization, "~:", "@10:20"), (.retransmission, "5:30", "50"), (.signal, "@-80:-60", "-90:"), (.snr, "10:40", "~:"),
        ] {
            t[row.key(.warning)] = try row.parse(warning).get()
            t[row.key(.critical)] = try row.parse(critical).get()
        }
        for row in [ThresholdRow.utilization, .retransmission, .signal, .snr] {
            for v in stride(from: row.valid.lowerBound, through: min(row.valid.upperBound, 120), by: 0.5) {
                #expect((t.air.grade(v, row)?.severity ?? .ok) == t.grade(v, row).severity, "\(row) \(v)")
            }
        }
        // Alone (capture, wifi), the plain limits: the same words as ever; SNR has no critical
        // limit unless one is set.
        let alone = Thresholds()
        #expect(alone.grade(-1000, .snr)?.severity == .warning && alone.grade(-1000, .snr)?.limit == 25)
        #expect(alone.grade(41, .utilization)?.severity == .critical && alone.grade(41, .utilization)?.limit == 40)
        #expect(alone.passed(.signal, (.critical, -70)) == "below -70 dBm" && alone.passed(.utilization, (.warning, 32)) == "above 32%")
    }

    /// A limit the survey's range does not have in one number is said as the range.
    @Test func aFindingOnARangeNamesTheRange() throws {
        var t = SurveyThresholds()
        t[ThresholdRow.loss.key(.critical)] = try ThresholdRow.loss.parse("@10:20").get()
        let f = HeartbeatAnalysis.findings(target: "t", sent: 100, received: 85, rtt: nil, connectionLost: false, t: t.heartbeat)
        #expect(f.count == 1 && f[0].severity == .critical && f[0].threshold == nil, "\(f)")
        #expect(f.first?.message == "t: 15% of heartbeats lost (15 of 100), inside the critical range @10:20", "\(f)")
        let plain = HeartbeatAnalysis.findings(target: "t", sent: 100, received: 97, rtt: nil, connectionLost: false, t: HeartbeatThresholds())
        #expect(plain.first?.message == "t: 3% of heartbeats lost (3 of 100), above 1%" && plain.first?.threshold == 1, "\(plain)")
    }

    @Test func aNameThatDoesNotResolveIsUnknownWithoutAFinding() {
        let r = concluded(.resolve(host: "push.example", reason: "Name or service not known"))
        #expect(r.status == .unknown && r.findings.isEmpty && r.error == "cannot resolve push.example: Name or service not known")
    }

    @Test func aRefusedConnectionIsACriticalConnectFinding() {
        let r = concluded(.connect(host: "push.example:3000", errno: .connectionRefused))
        #expect(r.findings.first?.check == .connect && r.findings.first?.severity == .critical)
        #expect(
            r.findings.first?.message.hasPrefix("cannot connect to push.example:3000: connection refused (ECONNREFUSED): devices cannot connect either") == true
        )
        #expect(r.status.exitCode == 2)
    }

    /// Whatever its text says: a TLS failure is a tls finding, even one that does not start with "TLS".
    @Test func tlsAndProtocolFailuresByKind() {
        let tls = concluded(.tls("certificate verify failed"), connected: true)
        #expect(tls.findings.first?.check == .tls && tls.findings.first?.message == "certificate verify failed")
        let garbage = concluded(.protocolViolation("TLS-looking text from a plain server"), connected: true, sent: 1, received: 1)
        #expect(garbage.findings.first?.check == .protocol, "decided by kind, not by the text's prefix")
        let silent = concluded(.timeout("connecting to push.example:3000"))
        #expect(silent.findings.first?.check == .connect)
    }

    @Test func lossIsMeasuredAgainstWhatWasSent() {
        let r = concluded(nil, connected: true, sent: 20, received: 18)
        #expect(r.lossPercent == 10 && r.findings.first?.check == .heartbeatLoss && r.status == .critical)
        let none = concluded(nil, connected: true)
        #expect(none.lossPercent == 0 && none.status == .ok)
    }
}

/// Load mode's loss counts what the devices were to send: a drop-out's prevented heartbeats, not
/// what an interrupted run never got to send.
struct LoadReportTests {
    @Test func interruptedRunsCountOnlyWhatWasDue() {
        let t = HeartbeatThresholds()
        let full = [
            LoadClientReport(client: 1, connected: true, sent: 10, received: 10, rtts: [1], droppedOut: false, error: nil, planned: 10),
            LoadClientReport(client: 2, connected: true, sent: 4, received: 4, rtts: [1], droppedOut: true, error: nil, planned: 10),
        ]
        let whole = LoadReport(target: "t", protocol: "simplepush", perClient: full, rtts: [1], durationSeconds: 10, thresholds: t)
        #expect(whole.planned == 20 && whole.lossPercent == 30, "the drop-out's six heartbeats are lost")
        let stopped = [
            LoadClientReport(client: 1, connected: true, sent: 3, received: 3, rtts: [1], droppedOut: false, error: nil, planned: 3),
            LoadClientReport(client: 2, connected: false, sent: 0, received: 0, rtts: [], droppedOut: false, error: "refused", planned: 10),
        ]
        let interrupted = LoadReport(
            target: "t", protocol: "simplepush", perClient: stopped, rtts: [1], durationSeconds: 3, thresholds: t, interrupted: true)
        #expect(interrupted.planned == 3 && interrupted.lossPercent == 0 && interrupted.interrupted)
        #expect(!interrupted.findings.contains { $0.check == .heartbeatLoss })
    }
}
