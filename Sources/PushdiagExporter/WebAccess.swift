import Foundation
import PushdiagCore
import PushdiagIO
import Synchronization

/// Who may use the exporter's endpoints, from `--web-config` (`WebConfig`): the TLS context new
/// connections get, and the basic-auth users every endpoint but `/-/healthy` asks for. Loaded
/// whole or not at all, so a reload with a bad file keeps the running one.
public struct WebAccess: Sendable {
    public let config: WebConfig?
    let tls: TLSServerContext?

    /// No file: plain HTTP, every endpoint open.
    public static let open = WebAccess(config: nil, tls: nil)

    /// Reads, checks and loads `file` (its certificates and keys too). Errors name the file and line.
    public static func load(file: String) throws(ConfigError) -> WebAccess {
        let data: [UInt8]
        switch SmallFile.read(file, most: YAMLSubset.mostBytes, what: "a web configuration file") {
        case .success(let b): data = b
        case .failure(let f): throw ConfigError(file: file, line: nil, key: nil, message: f.description)
        }
        let config = try WebConfig.parse(data, file: file)
        // An empty or cut-short file (one rewritten in place as SIGHUP came) would open every
        // endpoint: refused, as a file that does not parse is.
        guard !config.isOpen else {
            throw ConfigError(
                file: file, line: nil, key: nil,
                message: "neither tls_server_config nor basic_auth_users: every endpoint would be open (leave --web-config out for that)")
        }
        let tls = try config.tls.map { t throws(ConfigError) in try TLSServerContext(t, file: file) }
        return WebAccess(config: config, tls: tls)
    }

    /// Why this may not replace `running` on a reload, or nil: a reload does not weaken what the
    /// running file asks (a file cut short while it was rewritten reads as a weaker one). TLS
    /// turned off, every user gone, or client certificates no longer verified take a restart.
    public func refusal(replacing running: WebAccess) -> String? {
        guard let c = config, let r = running.config else { return nil }
        let restart = "where the running file has them (a restart takes them away)"
        if r.tls != nil, c.tls == nil { return "\(c.file): no tls_server_config, \(restart)" }
        if !r.users.isEmpty, c.users.isEmpty { return "\(c.file): no basic_auth_users, \(restart)" }
        if r.tls?.clientAuth.verifies == true, c.tls?.clientAuth.verifies != true {
            return "\(c.file): client certificates no longer verified, \(restart)"
        }
        return nil
    }

    /// What the log says of it.
    public var summary: String {
        guard let c = config else { return "plain HTTP, no authentication" }
        let tls = c.tls.map { "TLS (client certificates: \($0.clientAuth.rawValue))" } ?? "plain HTTP"
        return "\(tls), \(c.users.isEmpty ? "no basic auth" : "basic auth for \(c.users.count) user(s)") (\(c.file))"
    }
}

/// The checks of basic-auth credentials against the running users. bcrypt is slow by design
/// (tens of milliseconds a check): checks run one at a time on a queue of their own, off the
/// HTTP event loop, and a user and password that matched are remembered (as the exporter-toolkit
/// does) so a scrape every few seconds costs one bcrypt, not one each.
final class BasicAuthGate: Sendable {
    let users = Mutex<[String: String]>([:])
    /// "user NUL password NUL hash" of the credentials that matched their hash.
    let matched = Mutex<Set<String>>([])
    let queue = DispatchQueue(label: "pushdiag.basic-auth")
    /// Checks queued or running, by client address (`IPAddress.client`), and by IPv6 /64 (twice
    /// the share: `ClientShares`).
    /// A client that sends wrong credentials and hangs up, again and again, would otherwise
    /// queue checks without end, each tens of milliseconds of a core, and Prometheus's own would
    /// wait behind them; a cap for all alone would let that one client take it.
    let pending = Mutex(Pending())
    struct Pending {
        /// Checks by key (`ClientShares`: an address, an IPv6 /64).
        var byKey: [String: Int] = [:]
        /// Checks in all (a /64's count repeats its addresses', so it is not a sum of `byKey`).
        var total = 0
        var isEmpty: Bool { byKey.isEmpty && total == 0 }
    }
    static let mostPendingPerClient = 4
    static let mostPending = 64
    static let mostRemembered = 64
    /// Checked when the user is unknown, so that an unknown user takes as long as a wrong
    /// password: at the users' bcrypt cost (`decoy(for:)`).
    let decoy = Mutex(BasicAuthGate.decoy(for: []))

    /// A hash no password matches, at the cost of the users' hashes: the one they share (as
    /// htpasswd -B makes them), or the highest, so that an unknown user takes as long as a
    /// known one's wrong password (with mixed costs, as long as the slowest's); cost 10 without
    /// users.
    static func decoy(for list: [WebConfig.User]) -> String {
        let cost = list.compactMap { WebConfig.bcryptCost($0.hash) }.max() ?? 10
        return "$2y$" + (cost < 10 ? "0" : "") + "\(cost)$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
    }

    func set(_ list: [WebConfig.User]) {
        let map = Dictionary(list.map { ($0.name, $0.hash) }, uniquingKeysWith: { a, _ in a })
        users.withLock { $0 = map }
        decoy.withLock { $0 = Self.decoy(for: list) }
        matched.withLock { $0 = [] }
    }

    /// Calls `then` with whether `authorization` (the header, if any) is let in: at once when no
    /// user is configured or the credentials matched before, else after the bcrypt check. More
    /// than `mostPendingPerClient` checks waiting for `client` (twice that for its IPv6 /64,
    /// `subnet`), or `mostPending` for all: refused at once, as a wrong password is.
    func check(_ authorization: String?, client: String, subnet: String? = nil, then: @escaping @Sendable (Bool) -> Void) {
        let all = users.withLock { $0 }
        if all.isEmpty { return then(true) }
        guard let header = authorization, let c = BasicCredentials(header: header) else { return then(false) }
        let hash = all[c.user]
        let key = "\(c.user)\u{0}\(c.password)\u{0}\(hash ?? "")"
        if hash != nil, matched.withLock({ $0.contains(key) }) { return then(true) }
        let keys = ClientShares.keys(client: client, subnet: subnet)
        let admitted = pending.withLock { p -> Bool in
            guard p.total < Self.mostPending, keys.allSatisfy({ p.byKey[$0.key, default: 0] < $0.shares * Self.mostPendingPerClient }) else { return false }
            for k in keys { p.byKey[k.key, default: 0] += 1 }
            p.total += 1
            return true
        }
        guard admitted else { return then(false) }
        let stand = hash ?? decoy.withLock { $0 }
        queue.async { [self] in
            let ok = PasswordCheck.matches(password: c.password, hash: stand) && hash != nil
            if ok {
                matched.withLock { m in
                    if m.count >= Self.mostRemembered { m.removeAll() }
                    m.insert(key)
                }
            }
            // Done before the answer goes, so that a client answered may check again at once.
            pending.withLock { p in
                for k in keys {
                    p.byKey[k.key, default: 1] -= 1
                    if p.byKey[k.key] == 0 { p.byKey[k.key] = nil }
                }
                p.total -= 1
            }
            then(ok)
        }
    }
}
