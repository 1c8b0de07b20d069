import FoundationEssentials

/// What a heartbeat session is asked to do: the server, its protocol and the timing and
/// reconnect behaviour of a client SDK. Values only; IO's `HeartbeatSession` acts on them.
public struct HeartbeatOptions: Sendable, Equatable {
    public var endpoint: Endpoint
    public var proto: HeartbeatProtocol
    public var count = Self.defaultCount
    public static let defaultCount = 10
    public var intervalMs: Double = Self.defaultIntervalMs
    public static let defaultIntervalMs: Double = 1000
    public var timeoutMs: Double = Self.defaultTimeoutMs
    public static let defaultTimeoutMs: Double = 2000
    /// How long a heartbeat waits for its answer: `timeoutMs`, or for a protocol that holds no
    /// connection (tcp, whose heartbeat is a connect) `connectTimeoutMs`.
    public var heartbeatWaitMs: Double { proto.modes.contains(.holdsConnection) ? timeoutMs : connectTimeoutMs }
    /// For the TCP connect and the TLS and protocol handshakes (a lost SYN costs a second).
    public var connectTimeoutMs: Double = Self.defaultConnectTimeoutMs
    public static let defaultConnectTimeoutMs: Double = 5000
    public var byteOrder: SimplePush.ByteOrder = .little
    public var frameCap = 65_536
    /// line: what to send, and a regular expression the reply must match.
    public var send = "PING"
    public var expect = "PONG"
    /// Seconds to wait before each reconnect attempt after a loss.
    public var schedule: [Double] = Self.defaultSchedule
    /// A client SDK's schedule (0.5, 1, 2 s, then every 4 s).
    public static let defaultSchedule: [Double] = [0.5, 1, 2, 4, 4, 4, 4]
    /// Consecutive unanswered heartbeats after which the connection is taken for dead.
    public var missesBeforeReconnect = Self.defaultMisses
    public static let defaultMisses = 3
    public var thresholds = HeartbeatThresholds()
    /// TLS over the TCP connection, when set.
    public var tls: TLSOptions?
    /// websocket: the request path.
    public var path = "/"
    /// mqtt: the keep-alive announced in CONNECT, seconds.
    public var keepAlive: UInt16 = 60
    /// simplepush: register as a user of this name and watch the server's own heartbeats.
    public var register: String?
    /// A gap between server heartbeats longer than this makes a device reconnect (iOS checks
    /// its push provider's connection every 60 s).
    public var serverHeartbeatTimeoutS: Double = Self.defaultServerHeartbeatTimeoutS
    /// `--heartbeat-timeout`'s default: a device reconnects after 60 s without the server's heartbeat.
    public static let defaultServerHeartbeatTimeoutS: Double = 60
    /// With `register`: the idle time after which the path (a firewall, NAT) forgets a
    /// connection, as `--find-idle-timeout` found it; the server's heartbeat spacing is judged
    /// against it.
    public var pathIdleTimeoutS: Double?
    /// The limits a `join --find-ap-idle` run found on this path (`--join-limits`): the server's
    /// heartbeat spacing is graded against the longest safe interval, the lowest of them.
    public var joinLimits: JoinLimits?

    public init(endpoint: Endpoint, proto: HeartbeatProtocol) {
        self.endpoint = endpoint
        self.proto = proto
    }
}

extension HeartbeatOptions {
    /// What cannot go together or cannot be used, named by the option a person typed (one rule
    /// set for `heartbeat`, and for the walk and the exporter that hold the same session).
    /// `clients`: load mode's device count, when asked; `storm`: its reconnect-storm mode.
    public func validate(clients: Int? = nil, storm: Bool = false) throws(SettingsError) {
        func usage(_ s: String) -> SettingsError { .usage(s) }
        if storm && clients == nil { throw usage("--storm goes with --clients N") }
        if let clients {
            guard clients >= 1 else { throw usage("--clients must be at least 1") }
            if storm {
                guard proto.modes.contains(.storm) else {
                    throw usage("--clients --storm works with \(HeartbeatProtocol.names(HeartbeatProtocol.with(.storm), "and"))")
                }
            } else {
                guard proto.modes.contains(.load) else { throw usage("--clients works with \(HeartbeatProtocol.names(HeartbeatProtocol.with(.load), "and"))") }
                guard tls == nil else { throw usage("--clients does TLS only with --storm") }
            }
        }
        if register != nil && !proto.modes.contains(.register) {
            throw usage("--register goes with --protocol \(HeartbeatProtocol.names(HeartbeatProtocol.with(.register)))")
        }
        if pathIdleTimeoutS != nil && register == nil { throw usage("--idle-timeout goes with --register (the server's heartbeats are judged against it)") }
        guard count >= 1 else { throw usage("--count must be at least 1") }
        guard missesBeforeReconnect >= 1 else { throw usage("--misses must be at least 1") }
        guard frameCap >= 16 else { throw usage("--max-frame must be at least 16") }
        guard !schedule.isEmpty else { throw usage("--reconnect-schedule: give at least one delay") }
        let t = thresholds
        for (name, v) in [
            ("--loss-warning", t.lossWarning), ("--loss-critical", t.lossCritical), ("--rtt-warning", t.rttWarningMs), ("--rtt-critical", t.rttCriticalMs),
        ]
        where !v.isFinite || v < 0 {
            throw usage("\(name): '\(v)' is not a number of 0 or more")
        }
        for (row, w, c) in [
            (ThresholdRow.loss, t.lossWarning, t.lossCritical), (.rtt, t.rttWarningMs, t.rttCriticalMs),
            (.certificate, t.certificateWarningDays, t.certificateCriticalDays),
        ] {
            if let why = row.orderProblem(warning: w, critical: c) { throw usage(why) }
        }
        let safe = ThresholdRow.safeInterval
        if let w = safe.limit(of: t.safeInterval.warning), let c = safe.limit(of: t.safeInterval.critical), let why = safe.orderProblem(warning: w, critical: c)
        {
            throw usage(why)
        }
        if let pin = tls?.pin, let why = TLSOptions.pinProblem(pin) { throw usage("--pin: \(why)") }
        if let why = Self.pathProblem(path) { throw usage("--path: \(why)") }
    }

    /// Why `path` cannot be the request target of the WebSocket upgrade, or nil: an absolute path
    /// of printable ASCII (RFC 9112's origin-form; other bytes percent-encoded). A space, CR or LF
    /// would end the request line early and let the rest stand as headers or another request.
    public static func pathProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "'\(path)' does not start with /" }
        guard path.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return "only printable ASCII with no space (percent-encode the rest)"
        }
        return nil
    }
}

/// How to speak TLS to a push server.
public struct TLSOptions: Sendable, Equatable {
    /// For SNI and the certificate's name check.
    public var serverName: String
    public var verify = true
    /// Extra trust anchors (PEM), besides the system's.
    public var caFile: String?
    /// Expected base64 SHA-256 of the server key's SubjectPublicKeyInfo.
    public var pin: String?
    public init(serverName: String) { self.serverName = serverName }

    /// Whether `pin` is a base64 SHA-256 (32 bytes), as `openssl … | base64` prints a key pin.
    public static func isPin(_ pin: String) -> Bool { pin.count == 44 && Data(base64Encoded: pin)?.count == 32 }

    /// What is wrong with --tls and its companions as typed, in the flags' names (heartbeat, walk,
    /// survey, report, exporter); nil when they pair. /probe's parameters and a [[server]] table
    /// say the same rule in their own names.
    public static func flagsProblem(tls: Bool, insecure: Bool, pin: String?, caFile: String?) -> String? {
        if !tls, insecure || pin != nil || caFile != nil { return "--insecure, --pin and --ca-file go with --tls" }
        return pin.flatMap(pinProblem).map { "--pin: \($0)" }
    }

    /// What is wrong with a pin, for a message; nil when it is one.
    public static func pinProblem(_ pin: String) -> String? {
        isPin(pin) ? nil : "'\(pin)' is not a base64 SHA-256 (44 characters, the key's SubjectPublicKeyInfo hash)"
    }
}

/// Why a text is not a push server's address: "'x' is not HOST:PORT (the line protocol has no
/// default port)".
public struct EndpointProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var text: String
    /// The protocol, when it has no default port (so the port could not be left out).
    public var protocolWithoutPort: String?
    public var description: String {
        "'\(text)' is not HOST:PORT" + (protocolWithoutPort.map { " (\(Self.noDefaultPort($0)))" } ?? "")
    }

    /// Why a port cannot be left out, wherever an address is given (a flag, /probe, the
    /// configuration's [[server]]): "the line protocol has no default port".
    public static func noDefaultPort(_ proto: String) -> String { "the \(proto) protocol has no default port" }
}

/// host:port, [v6]:port or host (with a default port).
public struct Endpoint: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public init?(_ text: String, defaultPort: UInt16?) {
        var host = text
        var port = defaultPort
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { port = UInt16(rest.dropFirst()) } else if !rest.isEmpty { return nil }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            port = UInt16(text[text.index(after: colon)...])
        }
        guard !host.isEmpty, let port, port > 0 else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
