import Testing

@testable import PushdiagCore
@testable import PushdiagExporter

/// /probe's probe_success: a server that answers is a success unless a finding other than the
/// certificate's days left is critical (blackbox_exporter's reading; probe_status keeps the grade).
@Suite struct ProbeSuccessTests {
    func report(daysLeft: Int?, received: Int = 3, failure: ConnectionFailure? = nil) -> HeartbeatReport {
        var r = HeartbeatReport(target: "push.example:5223", protocol: "simplepush")
        r.sent = 3
        r.received = received
        r.tls = daysLeft.map {
            TLSInfo(
                version: "TLSv1.3", cipher: "x", subject: "s", issuer: "i", notAfter: "2030-01-01T00:00:00Z", notAfterSeconds: 0, daysLeft: $0,
                spkiSha256: "", verified: true, verifyError: nil, pinMatched: nil)
        }
        HeartbeatAnalysis.conclude(&r, failure: failure, options: HeartbeatOptions(endpoint: Endpoint(host: "push.example", port: 5223), proto: .simplepush))
        return r
    }

    @Test func aCertificateNearItsExpiryIsNotAFailedProbe() {
        let soon = report(daysLeft: 3)
        #expect(soon.status == .critical && ProbeService.success(soon), "\(soon.findings)")
        #expect(ProbeService.success(report(daysLeft: 90)) && ProbeService.success(report(daysLeft: nil)))
        // Heartbeats lost past the critical limit, or none answered: failed, certificate or not.
        #expect(!ProbeService.success(report(daysLeft: 90, received: 1)) && !ProbeService.success(report(daysLeft: nil, received: 0)))
        #expect(!ProbeService.success(report(daysLeft: 3, received: 1)))
    }
}
