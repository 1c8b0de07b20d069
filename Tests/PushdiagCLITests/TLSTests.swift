import Foundation
import TestSupport
import Testing

/// Heartbeats over TLS against OpenSSL's own server (`openssl s_server -rev` reverses each line),
/// with the openssl command line as the oracle for the key pin.
@Suite(.serialized, .enabled(if: TestPaths.which("openssl") != nil, "openssl is not installed"))
struct TLSTests {
    let openssl = TestPaths.which("openssl")!

    func certificate(_ dir: URL, name: String, san: String, days: Int) throws -> (cert: String, key: String) {
        let cert = dir.appendingPathComponent("\(name).pem").path
        let key = dir.appendingPathComponent("\(name)-key.pem").path
        let r = try run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(san)", "-days", String(days),
            ])
        #expect(r.status == 0, "\(r.stderr)")
        return (cert, key)
    }

    /// base64(SHA-256(SubjectPublicKeyInfo DER)), computed by openssl.
    func pin(_ cert: String) throws -> String {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pub = dir.appendingPathComponent("pub.pem").path
        let der = dir.appendingPathComponent("pub.der").path
        let dgst = dir.appendingPathComponent("d.bin").path
        _ = try run(openssl, ["x509", "-in", cert, "-pubkey", "-noout", "-out", pub])
        _ = try run(openssl, ["pkey", "-pubin", "-in", pub, "-outform", "der", "-out", der])
        _ = try run(openssl, ["dgst", "-sha256", "-binary", "-out", dgst, der])
        return try Data(contentsOf: URL(fileURLWithPath: dgst)).base64EncodedString()
    }

    func server(cert: String, key: String, port: UInt16) throws -> Background {
        let b = try Background(openssl, ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-rev"])
        #expect(b.wait(for: "ACCEPT"), "s_server did not start: \(b.output)")
        return b
    }

    /// pushdiag's responder serving TLS with a fresh localhost certificate (in `dir`).
    func tlsResponder(_ dir: URL, _ extra: [String] = []) throws -> (server: Background, port: UInt16, cert: (cert: String, key: String)) {
        let c = try certificate(dir, name: "localhost", san: "IP:127.0.0.1,DNS:localhost", days: 400)
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--tls-cert", c.cert, "--tls-key", c.key] + extra)
        #expect(server.wait(for: "over TLS) listening on"), "\(server.output)")
        return (server, port, c)
    }

    func heartbeat(_ port: UInt16, _ extra: [String]) throws -> ([String: Any], RunResult) {
        let r = try pushdiag(
            [
                "heartbeat", "127.0.0.1:\(port)", "--protocol", "line", "--send", "PING", "--expect", "^GNIP$", "--count", "3",
                "--interval", "20ms", "--tls", "--format", "json",
            ] + extra)
        return (try json(r.stdout), r)
    }

    @Test func handshakeDetailsPinsAndVerification() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try certificate(dir, name: "localhost", san: "IP:127.0.0.1,DNS:localhost", days: 400)
        let port = freePort()
        let s = try server(cert: good.cert, key: good.key, port: port)
        defer { s.stop() }
        let expectedPin = try pin(good.cert)

        // Trusted through --ca-file: verified, heartbeats answered, the pin as openssl computes it.
        let (ok, r1) = try heartbeat(port, ["--ca-file", good.cert, "--pin", expectedPin])
        #expect(r1.status == 0, "\(r1.stderr)")
        let tls = try #require(ok["tls"] as? [String: Any])
        #expect(tls["verified"] as? Bool == true && tls["spki_sha256"] as? String == expectedPin && tls["pin_matched"] as? Bool == true)
        #expect((tls["version"] as? String)?.hasPrefix("TLSv1.") == true && (tls["cipher"] as? String)?.isEmpty == false)
        #expect(tls["subject"] as? String == "/CN=localhost" && (tls["days_left"] as? Int ?? 0) >= 398)
        #expect(ok["tls_ms"] is Double && ok["received"] as? Int == 3)

        // Not trusted (self-signed, system store only): devices would refuse it — critical.
        let (untrusted, r2) = try heartbeat(port, [])
        #expect(r2.status == 2 && r2.stderr.contains("certificate verify failed: self-signed certificate"), "\(r2.stderr)")
        #expect((untrusted["findings"] as? [[String: Any]])?.first?["check"] as? String == "tls")
        #expect((untrusted["tls"] as? [String: Any])?["verified"] as? Bool == false, "the report still shows what was presented")

        // --insecure skips verification; a wrong pin is still refused.
        let (_, r3) = try heartbeat(port, ["--insecure"])
        #expect(r3.status == 0)
        let (_, r4) = try heartbeat(port, ["--insecure", "--pin", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        #expect(r4.status == 2 && r4.stderr.contains("not the expected"))
    }

    @Test func wrongNameAndExpiringCertificate() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = try certificate(dir, name: "push.example", san: "DNS:push.example", days: 10)
        let port = freePort()
        let s = try server(cert: other.cert, key: other.key, port: port)
        defer { s.stop() }
        let (_, r1) = try heartbeat(port, ["--ca-file", other.cert])
        #expect(r1.status == 2 && r1.stderr.contains("mismatch"), "\(r1.stderr)")
        let (j, r2) = try heartbeat(port, ["--insecure"])
        #expect(r2.status == 1, "10 days left is a warning")
        let f = try #require((j["findings"] as? [[String: Any]])?.first)
        #expect(f["check"] as? String == "tls_certificate" && f["unit"] as? String == "days")
        // survey says it too (it dropped it): a warning at 10 days, critical under a stricter range,
        // and the expiry time in the Prometheus output.
        // The check, and the heartbeat session's own finding in the survey's heartbeats[].
        func survey(_ extra: [String]) throws -> (check: [String: Any]?, own: [String: Any]?) {
            let r = try pushdiag(["survey", "--duration", "1s", "--format", "json", "--server", "127.0.0.1:\(port)", "--tls", "--insecure"] + extra)
            let report = try json(r.stdout)
            let sessions = report["heartbeats"] as? [[String: Any]]
            return (
                (report["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "tls_certificate" },
                (sessions?.first?["findings"] as? [[String: Any]])?.first { $0["check"] as? String == "tls_certificate" }
            )
        }
        let warn = try #require(try survey([]).check)
        #expect(warn["status"] as? String == "warning" && (warn["value"] as? Double ?? 0) >= 9 && warn["threshold"] as? String == "30: / 7:", "\(warn)")
        let (crit, own) = try survey(["--certificate-critical", "15:"])
        #expect(crit?["status"] as? String == "critical", "\(String(describing: crit))")
        // The session's own finding is graded on the same limits as the check (it said warning
        // here, on heartbeat's defaults).
        #expect(own?["severity"] as? String == "critical" && own?["threshold"] as? Double == 15, "\(String(describing: own))")
        // heartbeat takes the certificate row's flags, as survey does.
        let (hj, r3) = try heartbeat(port, ["--insecure", "--certificate-critical", "15"])
        let hf = (hj["findings"] as? [[String: Any]])?.first { $0["check"] as? String == "tls_certificate" }
        #expect(r3.status == 2 && hf?["severity"] as? String == "critical" && hf?["threshold"] as? Double == 15, "\(r3.stderr) \(String(describing: hf))")
        let (_, r4) = try heartbeat(port, ["--insecure", "--certificate-warning", "8", "--certificate-critical", "5"])
        #expect(r4.status == 0, "9 or 10 days left is above an 8-day warning: \(r4.stderr)")
        let r5 = try pushdiag(["heartbeat", "127.0.0.1:\(port)", "--tls", "--insecure", "--certificate-warning", "5"])
        #expect(r5.status == 3 && r5.stderr.contains("--certificate-critical (7) must not be above --certificate-warning (5)"), "\(r5.stderr)")
        let prom = try pushdiag("survey", "--duration", "1s", "--format", "prometheus", "--server", "127.0.0.1:\(port)", "--tls", "--insecure").stdout
        #expect(prom.contains("pushdiag_check_status{check=\"tls_certificate\",subject=\"127.0.0.1:\(port)\"} 1"), "\(prom)")
        let expiry = prom.split(separator: "\n").first { $0.hasPrefix("pushdiag_tls_cert_expiry_timestamp_seconds{target=\"127.0.0.1:\(port)\"}") }
        let seconds = Double(expiry?.split(separator: " ").last ?? "") ?? 0
        #expect(abs(seconds - Date().addingTimeInterval(10 * 86_400).timeIntervalSince1970) < 2 * 86_400, "\(String(describing: expiry))")
    }

    /// The responder serving TLS: pushdiag verifies it with the CA file, openssl s_client
    /// completes a handshake with it.
    @Test func responderOverTLS() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, port, c) = try tlsResponder(dir)
        defer { server.stop() }
        let r = try pushdiag(
            "heartbeat", "127.0.0.1:\(port)", "--tls", "--ca-file", c.cert, "--pin", try pin(c.cert), "--count", "4", "--interval", "20ms", "--format", "json")
        let j = try json(r.stdout)
        #expect(r.status == 0 && j["received"] as? Int == 4, "\(r.stderr)")
        let s = try run(openssl, ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", c.cert, "-brief"], timeout: 10)
        #expect(s.stderr.contains("Verification: OK") || s.stdout.contains("Verification: OK"), "\(s.stdout) \(s.stderr)")
        // Clients that refuse the certificate and hang up, and one that hangs up before its
        // answers: the responder writes to a closed connection and carries on (OpenSSL writes
        // with write(2): it died of SIGPIPE, exit 141).
        let slow = try Background(
            TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port + 1)", "--tls-cert", c.cert, "--tls-key", c.key, "--delay", "300ms"])
        defer { slow.stop() }
        #expect(slow.wait(for: "listening on"), "\(slow.output)")
        let refused = try pushdiag("heartbeat", "127.0.0.1:\(port + 1)", "--tls", "--count", "1")
        #expect(refused.status == 2 && refused.stderr.contains("certificate verify failed"), "\(refused.stderr)")
        let hangup = TestPaths.root.appendingPathComponent("Tests/oracle/tls-hangup.py").path
        for _ in 0..<2 { _ = try run("/usr/bin/python3", [hangup, "\(port + 1)"], timeout: 10) }
        usleep(800_000)
        #expect(slow.process.isRunning, "the responder outlived the clients that hung up: \(slow.output)")
        let after = try pushdiag("heartbeat", "127.0.0.1:\(port + 1)", "--tls", "--ca-file", c.cert, "--count", "2", "--interval", "20ms", "--format", "json")
        #expect(try json(after.stdout)["received"] as? Int == 2, "\(after.stderr)")
        // wss://: the WebSocket responder over TLS.
        let wsPort = freePort()
        let ws = try Background(
            TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(wsPort)", "--protocol", "websocket", "--tls-cert", c.cert, "--tls-key", c.key])
        defer { ws.stop() }
        #expect(ws.wait(for: "listening on"))
        let w = try pushdiag(
            "heartbeat", "127.0.0.1:\(wsPort)", "--protocol", "websocket", "--tls", "--ca-file", c.cert, "--count", "3", "--interval", "20ms", "--format",
            "json")
        let wj = try json(w.stdout)
        #expect(w.status == 0 && wj["received"] as? Int == 3 && wj["handshake_ms"] is Double && wj["tls_ms"] is Double, "\(w.stderr)")
        // A key that does not belong to the certificate: one line, exit 3.
        let other = try certificate(dir, name: "other", san: "DNS:other", days: 10)
        let bad = try pushdiag("responder", "--listen", "127.0.0.1:\(freePort())", "--tls-cert", c.cert, "--tls-key", other.key)
        #expect(bad.status == 3 && bad.stderr.contains("does not match the certificate"), "\(bad.stderr)")
    }

    /// survey takes heartbeat's TLS options for the servers it is given: trusted with the CA
    /// file and the pin, critical without them (devices would refuse the certificate too).
    @Test func surveyWithTheTLSOptions() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, port, c) = try tlsResponder(dir)
        defer { server.stop() }
        func heartbeatCheck(_ extra: [String]) throws -> [String: Any]? {
            let r = try pushdiag(["survey", "--duration", "3s", "--format", "json", "--server", "127.0.0.1:\(port)", "--tls"] + extra)
            return (try json(r.stdout)["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "heartbeat" }
        }
        let trusted = try #require(try heartbeatCheck(["--ca-file", c.cert, "--pin", try pin(c.cert)]))
        #expect(trusted["status"] as? String == "ok", "\(trusted)")
        let untrusted = try #require(try heartbeatCheck([]))
        #expect(untrusted["status"] as? String == "critical" && (untrusted["hint"] as? String)?.contains("certificate verify failed") == true, "\(untrusted)")
        let wrongPin = try #require(try heartbeatCheck(["--ca-file", c.cert, "--pin", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]))
        #expect(wrongPin["status"] as? String == "critical" && (wrongPin["hint"] as? String)?.contains("key pin") == true, "\(wrongPin)")
        let insecure = try #require(try heartbeatCheck(["--insecure"]))
        #expect(insecure["status"] as? String == "ok", "\(insecure)")
    }

    /// A certificate valid for eight thousand years (notAfter beyond what nanoseconds hold)
    /// trapped the expiry arithmetic; it is reported with its real date.
    @Test func aCertificateValidUntilTheYear9966() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try certificate(dir, name: "forever", san: "IP:127.0.0.1", days: 2_900_000)
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--tls-cert", c.cert, "--tls-key", c.key])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"), "\(server.output)")
        let r = try pushdiag("heartbeat", "127.0.0.1:\(port)", "--tls", "--ca-file", c.cert, "--count", "2", "--interval", "20ms", "--format", "json")
        let j = try json(r.stdout)
        let tls = try #require(j["tls"] as? [String: Any], "\(r.stderr)")
        #expect(
            r.status == 0 && !r.signalled && (tls["not_after"] as? String)?.hasPrefix("99") == true && (tls["days_left"] as? Int ?? 0) > 2_899_000, "\(tls)")
    }
}
