/// Where the exporter's `/probe` may connect: the configured push servers, and what
/// `[exporter] probe_allow` adds. Anything else is refused before it is resolved or connected to,
/// so the exporter is no port scanner for whoever reaches its HTTP port.
///
/// A target is allowed when
/// 1. it is a configured push server (`--server`, else `[[server]]`): the same host and port
///    (names compared without case or a final dot, addresses as addresses); or
/// 2. its host is an address that a `probe_allow` network contains, with the port allowed; or
/// 3. its host is a name that a `probe_allow` name rule matches, with the port allowed (the name
///    is not resolved for the check: the rule trusts the name service); or
/// 4. its host is a name that no name rule matches, and every address it resolves to lies in a
///    `probe_allow` network that allows the port. The probe then connects to the first of those
///    addresses, without resolving the name again. A name is resolved for this only when some
///    network allows the port.
public struct ProbeAllowList: Sendable, Equatable {
    public var servers: [Endpoint]
    public var rules: [ProbeAllowRule]

    public enum Verdict: Sendable, Equatable {
        /// Allowed: connect to `address`, or resolve the name as any probe does when nil.
        case allowed(address: IPAddress?)
        /// A name only its addresses can allow: resolve it and ask `check(_:resolved:)`.
        case resolve
        case refused(ProbeRefusal)
    }

    /// The decision from the target alone.
    public func check(_ target: Endpoint) -> Verdict {
        if servers.contains(where: { $0.port == target.port && Self.sameHost($0.host, target.host) }) { return .allowed(address: nil) }
        let networks = rules.filter { $0.network != nil }
        if let address = IPAddress(target.host) {
            if networks.contains(where: { $0.network!.contains(address) && $0.allows(port: target.port) }) { return .allowed(address: address) }
            if let near = networks.first(where: { $0.network!.contains(address) }) { return refuse(target, .notAllowed, Self.portMissed(near, target.port)) }
            return refuse(target, .notAllowed, Self.outside)
        }
        guard let name = ProbeAllowRule.hostName(target.host) else { return refuse(target, .notAllowed, "not a host name or address") }
        let named = rules.filter { $0.matches(name: name) }
        if named.contains(where: { $0.allows(port: target.port) }) { return .allowed(address: nil) }
        if networks.contains(where: { $0.allows(port: target.port) }) { return .resolve }
        if let near = named.first { return refuse(target, .notAllowed, Self.portMissed(near, target.port)) }
        if !networks.isEmpty { return refuse(target, .notAllowed, "\(Self.noName), and no probe_allow network allows port \(target.port)") }
        return refuse(target, .notAllowed, Self.outside)
    }

    /// The decision on a name that `check(_:)` said to resolve, from what it resolved to: the
    /// address to connect to, or the refusal.
    public func check(_ target: Endpoint, resolved: Result<[IPAddress], ConnectionFailure>) -> Result<IPAddress, ProbeRefusal> {
        let addresses: [IPAddress]
        switch resolved {
        case .success(let a) where !a.isEmpty: addresses = a
        case .success: return .failure(refusal(target, .unresolved, "\(Self.noName), and it resolves to no address"))
        case .failure(.resolve(_, let reason)): return .failure(refusal(target, .unresolved, "\(Self.noName), and it does not resolve (\(reason))"))
        case .failure(let f): return .failure(refusal(target, .unresolved, "\(Self.noName), and it does not resolve (\(f))"))
        }
        let allowing = rules.compactMap { $0.allows(port: target.port) ? $0.network : nil }
        if let outside = addresses.first(where: { a in !allowing.contains { $0.contains(a) } }) {
            return .failure(
                refusal(target, .resolvedOutside, "\(Self.noName), and it resolves to \(outside), outside probe_allow's networks for port \(target.port)"))
        }
        return .success(addresses[0])
    }

    static let outside = "not a configured push server and outside probe_allow"
    static let noName = "not a configured push server nor a probe_allow name"

    static func portMissed(_ rule: ProbeAllowRule, _ port: UInt16) -> String {
        "not a configured push server, and probe_allow's \(rule) does not allow port \(port)"
    }

    func refuse(_ target: Endpoint, _ reason: ProbeRefusal.Reason, _ why: String) -> Verdict {
        .refused(refusal(target, reason, why))
    }

    func refusal(_ target: Endpoint, _ reason: ProbeRefusal.Reason, _ why: String) -> ProbeRefusal {
        ProbeRefusal(reason: reason, target: target.description, why: why)
    }

    /// Two hosts as the same: addresses by value (an IPv4-mapped one as its IPv4 address), names
    /// without case or a final dot.
    static func sameHost(_ a: String, _ b: String) -> Bool {
        switch (IPAddress(a), IPAddress(b)) {
        case (let x?, let y?): return x.unmapped == y.unmapped
        case (nil, nil): return ProbeAllowRule.hostName(a).map { $0 == ProbeAllowRule.hostName(b) } ?? (a == b)
        default: return false
        }
    }
}

/// A /probe refused before it ran: why, in one line for the answer and the log, and the reason
/// the refusals counter is labelled with.
public struct ProbeRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// `pushdiag_exporter_probes_refused_total{reason}`: every value, so each series exists from
    /// the start.
    public enum Reason: String, Sendable, CaseIterable {
        /// max_probes were already running (HTTP 503; the exporter's own count, not a target's).
        case maxProbes = "max_probes"
        /// The client (by source address) asked more often than `ClientRateLimit` lets one
        /// (HTTP 429; the target was not looked at).
        case rateLimited = "rate_limited"
        /// The target's host or port is outside the configured servers and probe_allow.
        case notAllowed = "not_allowed"
        /// A name that an address it resolves to puts outside probe_allow.
        case resolvedOutside = "resolved_outside"
        /// A name that only its addresses could allow, and that did not resolve.
        case unresolved
    }
    public let reason: Reason
    /// HOST:PORT as asked.
    public let target: String
    public let why: String

    public var description: String { "target \(target) is not allowed: \(why)" }
}

/// One entry of `[exporter] probe_allow`: a network with the ports it allows, or a host-name
/// glob with its ports.
///
/// `10.40.0.0/16` (every port), `10.1.2.3:3000`, `10.40.0.0/16:3000-3010`, `2001:db8::/32`,
/// `[2001:db8::/32]:443`; `push-*.ward-b.internal:3000`. A network without `/LEN` is the one
/// address; an IPv6 network with ports goes in brackets. A name rule needs its port or port
/// range; `*` in one of its labels stands for any run of characters but a dot, and at least
/// one label must have none.
public struct ProbeAllowRule: Sendable, Equatable, CustomStringConvertible {
    public enum Hosts: Sendable, Equatable {
        case network(IPNetwork)
        /// Lowercase labels, `*` standing for any run of characters but a dot.
        case names([String])
    }
    public let hosts: Hosts
    /// Nil: every port.
    public let ports: ClosedRange<UInt16>?
    /// As written.
    public let text: String

    public var description: String { text }

    public var network: IPNetwork? { if case .network(let n) = hosts { n } else { nil } }

    public init(_ text: String) throws(Problem) {
        self.text = text
        func fail(_ why: String) -> Problem { Problem(entry: text, why: why) }
        var host = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("no ']' after '['") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") {
                portText = rest.dropFirst()
            } else if !rest.isEmpty {
                throw fail("expected ':PORT' after ']'")
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if let portText {
            guard let ports = Self.ports(portText) else { throw fail("'\(portText)' is not a port or FIRST-LAST range of ports from 1 to 65535") }
            self.ports = ports
        } else {
            ports = nil
        }
        guard !host.isEmpty else { throw fail("no network or host name") }
        let looksLikeAddress = host.contains(":") || host.contains("/") || host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
        if looksLikeAddress {
            switch IPNetwork.parse(String(host)) {
            case .success(let n): hosts = .network(n)
            case .failure(let p):
                let hint = !text.hasPrefix("[") && host.contains(":") ? " (an IPv6 network with ports goes in brackets, as [2001:db8::/32]:443)" : ""
                throw fail(p.description + hint)
            }
            return
        }
        if text.hasPrefix("[") { throw fail("brackets hold an IPv6 network, not a host name") }
        guard let name = Self.hostName(String(host), glob: true) else {
            throw fail("not a network (ADDR/LEN) nor a host name (letters, digits, '-', '_' and '*' in labels between dots)")
        }
        let labels = name.split(separator: ".").map(String.init)
        guard labels.contains(where: { !$0.contains("*") }) else { throw fail("'\(name)' matches any name; name a domain, as '*.ward-b.internal'") }
        guard labels.contains(where: { $0.contains { c in !c.isNumber && c != "*" } }) else {
            throw fail("'\(name)' looks like an address pattern; write a network, as 10.1.2.0/24")
        }
        guard ports != nil else { throw fail("a host-name rule needs a port or range (\(name):PORT or \(name):FIRST-LAST)") }
        hosts = .names(labels)
    }

    public func allows(port: UInt16) -> Bool { ports?.contains(port) ?? true }

    /// Whether a name rule matches `name` (as `hostName` gives it).
    public func matches(name: String) -> Bool {
        guard case .names(let patterns) = hosts else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == patterns.count && zip(patterns, labels).allSatisfy { Self.glob(Array($0.utf8), Array($1.utf8)) }
    }

    /// `PORT` or `FIRST-LAST`, from 1 to 65535.
    static func ports(_ text: Substring) -> ClosedRange<UInt16>? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = parts.compactMap { p in p.allSatisfy { $0.isASCII && $0.isNumber } ? UInt16(p) : nil }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0 > 0 }), numbers[0] <= numbers[numbers.count - 1] else { return nil }
        return numbers[0]...numbers[numbers.count - 1]
    }

    /// A host name as rules compare it: lowercase, without a final dot; nil when it is not one
    /// (labels of letters, digits, '-' and '_' between dots, at most 253 characters; `*` too when
    /// `glob`).
    public static func hostName(_ text: String, glob: Bool = false) -> String? {
        var s = text.lowercased()
        if s.hasSuffix(".") { s.removeLast() }
        guard !s.isEmpty, s.utf8.count <= 253 else { return nil }
        for label in s.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63,
                label.utf8.allSatisfy({ c in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: "-")
                        || c == UInt8(ascii: "_") || (glob && c == UInt8(ascii: "*"))
                })
            else { return nil }
        }
        return s
    }

    /// `pattern` (with `*` for any run) against the whole of `text`.
    static func glob(_ pattern: [UInt8], _ text: [UInt8]) -> Bool {
        var p = 0
        var t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = t
                p += 1
            } else if p < pattern.count && pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let s = star {
                p = s + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }

    /// A bad entry, named as written.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let entry: String
        public let why: String
        public var description: String { "'\(entry)': \(why)" }
    }
}
