import FoundationEssentials

/// `pushdiag exporter --web-config FILE`: TLS and basic auth for every endpoint but
/// `/-/healthy`, in the file format of Prometheus' exporter-toolkit, so the file and the scrape
/// configuration written for other exporters serve here unchanged:
///
///     tls_server_config:
///       cert_file: exporter.crt
///       key_file: exporter.key
///       client_ca_file: clients-ca.crt
///       client_auth_type: RequireAndVerifyClientCert
///     basic_auth_users:
///       prometheus: $2y$10$…   # bcrypt (htpasswd -nBC 10 prometheus)
///
/// Relative paths are from the file's directory, as the toolkit reads them. Keys the toolkit has
/// but pushdiag does not implement (http_server_config, min_version, cipher_suites, …) are
/// refused by name rather than ignored: a setting a security review relies on is never dropped
/// silently. Every error names the file and line.
public struct WebConfig: Sendable, Equatable {
    /// The toolkit's client_auth_type values, as Go's crypto/tls names them.
    public enum ClientAuth: String, Sendable, CaseIterable {
        case noClientCert = "NoClientCert"
        case requestClientCert = "RequestClientCert"
        case requireAnyClientCert = "RequireAnyClientCert"
        case verifyClientCertIfGiven = "VerifyClientCertIfGiven"
        case requireAndVerifyClientCert = "RequireAndVerifyClientCert"

        /// A certificate must be presented.
        public var requiresCertificate: Bool { self == .requireAnyClientCert || self == .requireAndVerifyClientCert }
        /// A presented certificate is checked against client_ca_file.
        public var verifies: Bool { self == .verifyClientCertIfGiven || self == .requireAndVerifyClientCert }
        /// A certificate is asked for.
        public var requests: Bool { self != .noClientCert }
    }

    /// A path and the line that named it (a file that cannot be loaded is reported there).
    public struct Path: Sendable, Equatable {
        public var path: String
        public var line: Int
        public var key: String
    }

    public struct TLS: Sendable, Equatable {
        public var certFile: Path
        public var keyFile: Path
        public var clientCAFile: Path?
        public var clientAuth: ClientAuth
    }

    public struct User: Sendable, Equatable {
        public var name: String
        /// bcrypt, `$2a$`, `$2b$` or `$2y$`, cost and 53 characters of salt and hash.
        public var hash: String
        public var line: Int
    }

    public var file: String
    public var tls: TLS?
    public var users: [User] = []

    /// Neither TLS nor users: every endpoint is open, as without the flag.
    public var isOpen: Bool { tls == nil && users.isEmpty }

    public static let topKeys = ["tls_server_config", "basic_auth_users"]
    public static let tlsKeys = ["cert_file", "key_file", "client_ca_file", "client_auth_type"]

    /// The file's bytes, checked; relative paths resolved from `file`'s directory.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> WebConfig {
        let entries: [YAMLSubset.Entry]
        do throws(YAMLSubset.Failure) { entries = try YAMLSubset.parse(bytes) } catch {
            throw ConfigError(file: file, line: error.line, key: nil, message: error.message)
        }
        var config = WebConfig(file: file)
        func fail(_ line: Int, _ key: String?, _ message: String) -> ConfigError { ConfigError(file: file, line: line, key: key, message: message) }
        for e in entries {
            switch e.key {
            case "tls_server_config":
                guard case .mapping(let tls) = e.value else { throw fail(e.line, e.key, "expected a mapping of \(tlsKeys.joined(separator: ", "))") }
                config.tls = try parseTLS(tls, line: e.line, file: file)
            case "basic_auth_users":
                switch e.value {
                case .null: break
                case .scalar: throw fail(e.line, e.key, "expected a mapping of user names to bcrypt hashes")
                case .mapping(let users):
                    for u in users {
                        guard case .scalar(let hash) = u.value else { throw fail(u.line, "basic_auth_users.\(u.key)", "expected a bcrypt hash") }
                        guard !u.key.isEmpty, !u.key.contains(":") else {
                            throw fail(u.line, "basic_auth_users", "a user name may not be empty or hold a colon")
                        }
                        guard isBcrypt(hash) else {
                            throw fail(
                                u.line, "basic_auth_users.\(u.key)",
                                "not a bcrypt hash ($2y$, $2b$ or $2a$, cost, 53 characters; htpasswd -nBC 10 \(u.key) makes one)")
                        }
                        config.users.append(User(name: u.key, hash: hash, line: u.line))
                    }
                }
            case "http_server_config", "rate_limit":
                throw fail(e.line, e.key, "not supported by pushdiag (it takes \(topKeys.joined(separator: " and ")))")
            default:
                throw fail(e.line, e.key, "unknown key (expected \(topKeys.joined(separator: " or ")))")
            }
        }
        return config
    }

    static func parseTLS(_ entries: [YAMLSubset.Entry], line: Int, file: String) throws(ConfigError) -> TLS {
        var paths: [String: Path] = [:]
        var auth: (ClientAuth, Int)?
        for e in entries {
            let key = "tls_server_config.\(e.key)"
            guard tlsKeys.contains(e.key) else {
                throw ConfigError(file: file, line: e.line, key: key, message: "not supported by pushdiag (it takes \(tlsKeys.joined(separator: ", ")))")
            }
            guard case .scalar(let text) = e.value, !text.isEmpty else {
                if case .null = e.value { continue }
                throw ConfigError(file: file, line: e.line, key: key, message: "expected a string")
            }
            if e.key == "client_auth_type" {
                guard let a = ClientAuth(rawValue: text) else {
                    throw ConfigError(
                        file: file, line: e.line, key: key, message: "'\(text)' is not one of \(ClientAuth.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                auth = (a, e.line)
            } else {
                paths[e.key] = Path(path: resolve(text, from: file), line: e.line, key: key)
            }
        }
        guard let cert = paths["cert_file"] else { throw ConfigError(file: file, line: line, key: "tls_server_config", message: "cert_file is missing") }
        guard let key = paths["key_file"] else { throw ConfigError(file: file, line: line, key: "tls_server_config", message: "key_file is missing") }
        let ca = paths["client_ca_file"]
        let clientAuth = auth?.0 ?? .noClientCert
        if clientAuth.verifies && ca == nil {
            throw ConfigError(
                file: file, line: auth?.1 ?? line, key: "tls_server_config.client_auth_type", message: "\(clientAuth.rawValue) needs client_ca_file")
        }
        if let ca, clientAuth == .noClientCert {
            throw ConfigError(
                file: file, line: ca.line, key: ca.key,
                message: "client certificates are not asked for: set client_auth_type (RequireAndVerifyClientCert checks them against this file)")
        }
        return TLS(certFile: cert, keyFile: key, clientCAFile: ca, clientAuth: clientAuth)
    }

    /// `path` as given when absolute, else from the directory of `file`.
    static func resolve(_ path: String, from file: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }

    /// The cost of a bcrypt hash (its two digits after `$2y$`), 4 to 31; nil for another.
    public static func bcryptCost(_ s: String) -> Int? {
        let b = Array(s.utf8)
        guard b.count >= 7, let cost = Int(String(decoding: b[4...5], as: UTF8.self)), (4...31).contains(cost) else { return nil }
        return cost
    }

    /// `$2a$`, `$2b$` or `$2y$`, a two-digit cost from 04 to 31, then 53 characters of bcrypt's
    /// base64 (22 of salt, 31 of hash).
    public static func isBcrypt(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 60, b[0] == 0x24, b[1] == 0x32, [0x61, 0x62, 0x79].contains(b[2]), b[3] == 0x24, b[6] == 0x24 else { return false }
        guard bcryptCost(s) != nil else { return false }
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return b[7...].allSatisfy(alphabet.contains)
    }
}

/// The user and password of an `Authorization: Basic …` header (RFC 7617), or nil for anything else.
public struct BasicCredentials: Sendable, Equatable {
    public var user: String
    public var password: String
}

extension BasicCredentials {
    public init?(header: String) {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingSpaces()),
            let text = String(validating: Array(data), as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }
}
