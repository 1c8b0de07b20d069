import Testing

@testable import PushdiagCore

@Suite struct WebConfigTests {
    static let hash = "$2y$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"

    func parse(_ text: String, file: String = "/etc/pushdiag/web.yml") throws(ConfigError) -> WebConfig {
        try WebConfig.parse(Array(text.utf8), file: file)
    }

    @Test func theToolkitsFormatIsRead() throws {
        let c = try parse(
            """
            ---
            # as the exporter-toolkit documents it
            tls_server_config:
              cert_file: exporter.crt   # beside the file
              key_file: "/etc/ssl/private/exporter key.pem"
              client_ca_file: 'clients-ca.crt'
              client_auth_type: RequireAndVerifyClientCert

            basic_auth_users:
              prometheus: \(Self.hash)
              "ward b": '\(Self.hash)'
            """)
        let tls = try #require(c.tls)
        #expect(tls.certFile == WebConfig.Path(path: "/etc/pushdiag/exporter.crt", line: 4, key: "tls_server_config.cert_file"))
        #expect(tls.keyFile.path == "/etc/ssl/private/exporter key.pem" && tls.keyFile.line == 5)
        #expect(tls.clientCAFile?.path == "/etc/pushdiag/clients-ca.crt")
        #expect(tls.clientAuth == .requireAndVerifyClientCert)
        #expect(c.users == [.init(name: "prometheus", hash: Self.hash, line: 10), .init(name: "ward b", hash: Self.hash, line: 11)])
        #expect(!c.isOpen)
        #expect(try parse("").isOpen && parse("basic_auth_users:\n").isOpen && parse("basic_auth_users: {}\n").isOpen)
        let plain = try parse("tls_server_config:\n  cert_file: a\n  key_file: b\n", file: "web.yml")
        #expect(plain.tls?.clientAuth == .noClientCert && plain.tls?.certFile.path == "a" && plain.users.isEmpty)
    }

    /// Every mistake is one line naming the file and the line it is on.
    @Test func mistakesNameTheirLine() {
        let ok = "tls_server_config:\n  cert_file: a\n  key_file: b\n"
        for (text, at, says) in [
            ("tls_server_config:\n  cert_file: a\n", "web.yml:1:", "key_file is missing"),
            ("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n", "web.yml:4:", "not supported by pushdiag"),
            (ok + "  client_auth_type: Sometimes\n", "web.yml:4:", "'Sometimes' is not one of NoClientCert"),
            (ok + "  client_auth_type: RequireAndVerifyClientCert\n", "web.yml:4:", "needs client_ca_file"),
            (ok + "  client_ca_file: ca.crt\n", "web.yml:4:", "set client_auth_type"),
            ("basic_auth_users:\n  alice: secret\n", "web.yml:2:", "not a bcrypt hash"),
            ("basic_auth_users:\n  alice: $2y$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW\n", "web.yml:2:", "not a bcrypt hash"),
            ("basic_auth_users:\n  \"a:b\": \(Self.hash)\n", "web.yml:2:", "colon"),
            ("basic_auth_users:\n  a: \(Self.hash)\n  a: \(Self.hash)\n", "web.yml:3:", "given twice"),
            ("basic_auth_users: alice\n", "web.yml:1:", "expected a mapping"),
            ("http_server_config:\n  http2: false\n", "web.yml:1:", "not supported by pushdiag"),
            ("tls_config:\n  cert_file: a\n", "web.yml:1:", "unknown key"),
            ("tls_server_config:\n\tcert_file: a\n", "web.yml:2:", "tab"),
            ("tls_server_config:\n  cert_file: a\n    key_file: b\n", "web.yml:3:", "indented more"),
            ("tls_server_config:\n    cert_file: a\n  key_file: b\n", "web.yml:3:", "indented"),
            ("basic_auth_users:\n  - alice\n", "web.yml:2:", "sequence"),
            ("tls_server_config: [a, b]\n", "web.yml:1:", "flow collections"),
            ("tls_server_config:\n  cert_file: \"a\n", "web.yml:2:", "closing quote"),
            ("tls_server_config:\n  cert_file: \"a\\q\"\n", "web.yml:2:", "escape"),
            ("tls_server_config:\n  cert_file: a: b\n", "web.yml:2:", "second 'key: value'"),
            // A block scalar is refused on its indicator's line, not on the text that follows.
            ("basic_auth_users:\n  a: >-\n    \(Self.hash)\n", "web.yml:2:", "block scalars"),
            ("tls_server_config:\n  cert_file: |\n    a.crt\n  key_file: b\n", "web.yml:2:", "block scalars"),
            ("just words\n", "web.yml:1:", "not key: value"),
            ("key:value\n", "web.yml:1:", "not key: value"),
        ] {
            do {
                let c = try parse(text, file: "web.yml")
                Issue.record("\(text.debugDescription) was taken: \(c)")
            } catch {
                #expect(error.description.hasPrefix(at) && error.description.contains(says), "\(text.debugDescription): \(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func bcryptHashesAreRecognisedByShape() {
        #expect(WebConfig.isBcrypt(Self.hash))
        #expect(WebConfig.isBcrypt("$2b$04$pz2Q9DwqHgMHIQetwWAHFOWFiC24.qoBvvh1NgAdaejqtXf8oqXtS"))
        for bad in [
            "", "$1$abc$def", "$2x$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", String(Self.hash.dropLast()), Self.hash + "A",
            "$2y$32$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "$2y$10$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe!",
        ] {
            #expect(!WebConfig.isBcrypt(bad), "\(bad)")
        }
    }

    @Test func basicCredentialsComeFromTheHeader() {
        // RFC 7617's example: Aladdin, open sesame.
        #expect(BasicCredentials(header: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == BasicCredentials(user: "Aladdin", password: "open sesame"))
        #expect(BasicCredentials(header: "basic dTpwOnE=") == BasicCredentials(user: "u", password: "p:q"))
        for bad in ["", "Basic", "Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Basic !!!", "Basic bm9jb2xvbg=="] {
            #expect(BasicCredentials(header: bad) == nil, "\(bad)")
        }
    }
}
