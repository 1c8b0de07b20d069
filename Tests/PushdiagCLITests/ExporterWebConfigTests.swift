import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag exporter --web-config`: TLS with a client certificate, basic auth against bcrypt
/// hashes, as curl and Debian's Prometheus use them; certificates made by openssl for each run.
@Suite(.serialized) struct ExporterWebConfigTests {
    /// libxcrypt's bcrypt of "s3cret" at cost 4 (made by python3's crypt module, the same libxcrypt
    /// the exporter checks with; htpasswd -nbBC 4 gives the same shape).
    static let password = "s3cret"

    struct PKI {
        let dir: URL
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    }

    /// A CA, a server certificate for 127.0.0.1 and a client certificate, all signed by it; and a
    /// second CA's client certificate, which the exporter must refuse.
    func makePKI() throws -> PKI {
        let dir = try TestPaths.temporaryDirectory()
        let script = """
            set -e
            cd '\(dir.path)'
            key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
            for ca in ca other-ca; do key $ca.key; openssl req -x509 -new -key $ca.key -out $ca.crt -days 2 -subj /CN=$ca; done
            sign() { key $1.key; openssl req -new -key $1.key -out $1.csr -subj /CN=$1; \
              openssl x509 -req -in $1.csr -CA $2.crt -CAkey $2.key -CAcreateserial -out $1.crt -days 2 $3; }
            printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext
            sign server ca "-extfile san.ext"
            sign client ca ""
            sign stranger other-ca ""
            """
        let r = try run("/bin/sh", ["-c", script])
        #expect(r.status == 0, "openssl: \(r.stderr)")
        return PKI(dir: dir)
    }

    func bcrypt(_ password: String) throws -> String {
        let r = try run(
            "/usr/bin/python3",
            ["-W", "ignore", "-c", "import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))", password])
        let hash = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(WebConfig.isBcrypt(hash), "python3's crypt: \(r.stdout)\(r.stderr)")
        return hash
    }

    func exporter(_ port: UInt16, _ args: [String]) throws -> Background {
        let b = try Background(TestPaths.binary.path, ["exporter", "--listen", "127.0.0.1:\(port)"] + args)
        #expect(b.wait(for: "listening on"), "exporter did not start: \(b.output)")
        return b
    }

    /// curl's status (0 when no HTTP answer came) and the headers and body.
    func curl(_ args: [String]) throws -> (status: Int, text: String) {
        let r = try run("/usr/bin/curl", ["-s", "-i", "--max-time", "20", "-w", "\n%{http_code}"] + args, timeout: 30)
        var lines = r.stdout.components(separatedBy: "\n")
        return (Int(lines.popLast() ?? "") ?? 0, lines.joined(separator: "\n"))
    }

    @Test func basicAuthRightAndWrongWithCurl() throws {
        let dir = try TestPaths.temporaryDirectory()
        let web = dir.appendingPathComponent("web.yml")
        try "basic_auth_users:\n  prometheus: \(try bcrypt(Self.password))\n".write(to: web, atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--web-config", web.path])
        defer { e.stop() }
        let base = "http://127.0.0.1:\(port)"
        let right = try curl(["-u", "prometheus:\(Self.password)", "\(base)/metrics"])
        #expect(right.status == 200 && right.text.contains("pushdiag_exporter_build_info"), "\(right)")
        for args in [["-u", "prometheus:wrong"], ["-u", "nobody:\(Self.password)"], [], ["-H", "Authorization: Basic !!!"]] {
            for path in ["/metrics", "/probe?target=127.0.0.1:1", "/", "/nowhere"] {
                let r = try curl(args + ["\(base)\(path)"])
                #expect(r.status == 401, "\(args) \(path): \(r)")
                #expect(r.text.contains("WWW-Authenticate: Basic\r\n"), "\(args) \(path): \(r.text)")
                #expect(r.text.hasSuffix("\r\n\r\nUnauthorized\n"), "no detail: \(r.text)")
            }
        }
        #expect(try curl(["\(base)/-/healthy"]).status == 200, "/-/healthy stays open")
        // Remembered credentials still match; a changed password is checked again.
        #expect(try curl(["-u", "prometheus:\(Self.password)", "\(base)/metrics"]).status == 200)
    }

    @Test func tlsWithAClientCertificateScrapedByPrometheus() throws {
        guard let prometheus = TestPaths.which("prometheus") else {
            Issue.record("prometheus is not installed (make test installs it)")
            return
        }
        let pki = try makePKI()
        let web = pki.dir.appendingPathComponent("web.yml")
        try """
        tls_server_config:
          cert_file: server.crt
          key_file: server.key
          client_ca_file: ca.crt
          client_auth_type: RequireAndVerifyClientCert
        basic_auth_users:
          prometheus: \(try bcrypt(Self.password))
        """.write(to: web, atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--web-config", web.path])
        defer { e.stop() }
        let url = "https://127.0.0.1:\(port)/metrics"
        let ca = ["--cacert", pki.path("ca.crt")]
        let client = ca + ["--cert", pki.path("client.crt"), "--key", pki.path("client.key")]
        #expect(try curl(client + ["-u", "prometheus:\(Self.password)", url]).status == 200)
        #expect(try curl(client + ["-u", "prometheus:wrong", url]).status == 401)
        // No client certificate, or one another CA signed: no TLS session, so no HTTP answer at all.
        #expect(try curl(ca + ["-u", "prometheus:\(Self.password)", url]).status == 0)
        let stranger = ca + ["--cert", pki.path("stranger.crt"), "--key", pki.path("stranger.key"), "-u", "prometheus:\(Self.password)", url]
        #expect(try curl(stranger).status == 0)
        #expect(try curl(["-u", "prometheus:\(Self.password)", "http://127.0.0.1:\(port)/metrics"]).status == 0, "no plain HTTP beside TLS")

        // Prometheus as a site writes it (contrib/prometheus/prometheus-scrape.yml's secured form):
        // one job right, one with a wrong password, one without the client certificate.
        let promPort = freePort()
        func job(_ name: String, password: String, certificate: Bool) -> String {
            """
              - job_name: \(name)
                scheme: https
                tls_config:
                  ca_file: \(pki.path("ca.crt"))
            \(certificate ? "      cert_file: \(pki.path("client.crt"))\n      key_file: \(pki.path("client.key"))\n" : "")\
                basic_auth:
                  username: prometheus
                  password: \(password)
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]

            """
        }
        try
            ("global:\n  scrape_interval: 1s\nscrape_configs:\n" + job("right", password: Self.password, certificate: true)
            + job("wrong", password: "wrong", certificate: true) + job("nocert", password: Self.password, certificate: false))
            .write(to: pki.dir.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let p = try Background(
            prometheus,
            ["--config.file=\(pki.path("prometheus.yml"))", "--storage.tsdb.path=\(pki.path("data"))", "--web.listen-address=127.0.0.1:\(promPort)"])
        defer { p.stop() }
        #expect(p.wait(for: "Server is ready to receive web requests", seconds: 30), "prometheus did not start: \(p.output)")
        var targets: [[String: Any]] = []
        func health(_ job: String) -> String? {
            targets.first { ($0["labels"] as? [String: Any])?["job"] as? String == job }?["health"] as? String
        }
        let scraped = try eventually(30) {
            let r = try run("/usr/bin/curl", ["-s", "--max-time", "5", "http://127.0.0.1:\(promPort)/api/v1/targets"])
            targets = ((try? json(r.stdout))?["data"] as? [String: Any])?["activeTargets"] as? [[String: Any]] ?? []
            return ["right", "wrong", "nocert"].allSatisfy { health($0) != nil && health($0) != "unknown" }
        }
        #expect(scraped, "Prometheus did not scrape all three jobs: \(targets)")
        #expect(health("right") == "up", "\(targets)\n\(e.output)")
        #expect(health("wrong") == "down" && health("nocert") == "down", "\(targets)")
        let errors = targets.map { "\(($0["labels"] as? [String: Any])?["job"] ?? ""): \($0["lastError"] ?? "")" }
        #expect(errors.contains { $0.hasPrefix("wrong:") && $0.contains("401") }, "\(errors)")
    }

    @Test func aBadWebConfigurationStopsTheStartAndNotARunningExporter() throws {
        let dir = try TestPaths.temporaryDirectory()
        let web = dir.appendingPathComponent("web.yml")
        // At the start: exit 3, one line naming the file and line.
        for (text, line) in [
            ("basic_auth_users:\n  prometheus: plaintext\n", 2), ("tls_server_config:\n  cert_file: nothere.crt\n  key_file: nothere.key\n", 2),
            ("tls_server_config:\n  cert_file: a\n\tkey_file: b\n", 3), ("http_server_config:\n  http2: false\n", 1),
        ] {
            try text.write(to: web, atomically: true, encoding: .utf8)
            let r = try pushdiag(["exporter", "--listen", "127.0.0.1:\(freePort())", "--web-config", web.path])
            #expect(r.status == 3 && !r.signalled, "\(text.debugDescription): \(r.status) \(r.stderr)")
            #expect(r.stderr.hasPrefix("pushdiag: \(web.path):\(line): ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        let r = try pushdiag(["exporter", "--listen", "127.0.0.1:\(freePort())", "--web-config", dir.appendingPathComponent("none.yml").path])
        #expect(r.status == 3 && r.stderr.contains("none.yml: cannot read: no such file or directory (ENOENT)"), "\(r.stderr)")
        // A file that would open every endpoint (empty, or cut short while it was rewritten).
        for text in ["", "# nothing yet\n", "basic_auth_users:\n"] {
            try text.write(to: web, atomically: true, encoding: .utf8)
            let open = try pushdiag(["exporter", "--listen", "127.0.0.1:\(freePort())", "--web-config", web.path])
            let said = "pushdiag: \(web.path): neither tls_server_config nor basic_auth_users: every endpoint would be open (leave --web-config out for that)\n"
            #expect(open.status == 3 && open.stderr == said, "\(text.debugDescription): \(open.status) \(open.stderr)")
        }

        // At a reload: the running users stay, and the log says why.
        try "basic_auth_users:\n  prometheus: \(try bcrypt(Self.password))\n".write(to: web, atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--web-config", web.path])
        defer { e.stop() }
        let url = "http://127.0.0.1:\(port)/metrics"
        try "basic_auth_users:\n  prometheus: \(try bcrypt("new"))\n  other: plaintext\n".write(to: web, atomically: true, encoding: .utf8)
        kill(e.process.processIdentifier, SIGHUP)
        #expect(e.wait(for: "reload failed, keeping the running configuration: \(web.path):3: basic_auth_users.other: not a bcrypt hash"), "\(e.output)")
        #expect(try curl(["-u", "prometheus:\(Self.password)", url]).status == 200, "the old password still works")
        #expect(try curl(["-u", "prometheus:new", url]).status == 401)
        #expect(try curl([url]).status == 401, "nor does anyone get in without credentials")
        // Emptied (a tool rewriting it in place as SIGHUP came): refused too, nothing opens.
        try "".write(to: web, atomically: false, encoding: .utf8)
        kill(e.process.processIdentifier, SIGHUP)
        #expect(e.wait(for: "reload failed, keeping the running configuration: \(web.path): neither tls_server_config"), "\(e.output)")
        #expect(try curl([url]).status == 401 && curl(["-u", "prometheus:\(Self.password)", url]).status == 200)
        let metrics = try curl(["-u", "prometheus:\(Self.password)", url]).text
        #expect(Exposition.value(metrics, "pushdiag_exporter_config_last_reload_successful") == 0, "\(metrics)")
        // A good one then takes over.
        try "basic_auth_users:\n  prometheus: \(try bcrypt("new"))\n".write(to: web, atomically: true, encoding: .utf8)
        kill(e.process.processIdentifier, SIGHUP)
        #expect(e.wait(for: "reloaded:"), "\(e.output)")
        #expect(try curl(["-u", "prometheus:new", url]).status == 200)
        #expect(try curl(["-u", "prometheus:\(Self.password)", url]).status == 401)
    }

    /// A reload does not weaken what the running file asks (a file cut short while it was
    /// rewritten reads as a weaker one): TLS turned off, or every user gone, is refused, the
    /// running configuration stays and the log says why; a restart is what takes them away.
    @Test func aReloadDoesNotWeakenTheRunningFile() throws {
        let pki = try makePKI()
        let web = pki.dir.appendingPathComponent("web.yml")
        let tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
        let users = "basic_auth_users:\n  prometheus: \(try bcrypt(Self.password))\n"
        try (tls + users).write(to: web, atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--web-config", web.path])
        defer { e.stop() }
        let https = ["--cacert", pki.path("ca.crt"), "https://127.0.0.1:\(port)/metrics"]
        #expect(try curl(["-u", "prometheus:\(Self.password)"] + https).status == 200 && curl(https).status == 401)
        let refused = "reload failed, keeping the running configuration: \(web.path): "
        for (text, missing) in [(users, "no tls_server_config"), (tls, "no basic_auth_users")] {
            try text.write(to: web, atomically: true, encoding: .utf8)
            kill(e.process.processIdentifier, SIGHUP)
            #expect(e.wait(for: refused + missing + ", where the running file has them (a restart takes them away)"), "\(e.output)")
            #expect(try curl(https).status == 401 && curl(["-u", "prometheus:\(Self.password)"] + https).status == 200, "TLS and users, as before")
            #expect(try curl(["http://127.0.0.1:\(port)/metrics"]).status != 200, "no plain HTTP")
        }
    }

    func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            usleep(200_000)
        }
        return try condition()
    }
}

extension ExporterWebConfigTests {
    /// contrib/pushdiag-web.yml: refused, naming its line, until its placeholder is a hash; then
    /// the secured form the man page describes.
    @Test func theShippedWebConfigurationIsTheSecuredForm() throws {
        let path = TestPaths.root.appendingPathComponent("contrib/pushdiag-web.yml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let placeholder = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("REPLACE-WITH") }) + 1
        let r = try pushdiag(["exporter", "--listen", "127.0.0.1:\(freePort())", "--web-config", path])
        #expect(r.status == 3 && r.stderr.hasPrefix("pushdiag: \(path):\(placeholder): basic_auth_users.prometheus: not a bcrypt hash"), "\(r.stderr)")
        let c = try WebConfig.parse(Array(text.replacingOccurrences(of: "REPLACE-WITH-A-BCRYPT-HASH", with: try bcrypt("x")).utf8), file: path)
        #expect(c.tls?.clientAuth == .requireAndVerifyClientCert && c.tls?.clientCAFile != nil && c.users.map(\.name) == ["prometheus"])
    }
}
