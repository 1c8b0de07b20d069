import ArgumentParser
import PushdiagCore

/// How a push connection is made: protocol, timeouts, the protocol's own settings and TLS.
/// `join` opens one per cycle with these; `heartbeat` and `walk` hold it, with the reconnect
/// flags besides (`HeldConnectionOptions`).
struct PushConnectionOptions: ParsableArguments {
    @Option(name: .customLong("protocol"), help: "\(HeartbeatProtocol.names(HeartbeatProtocol.allCases)).")
    var proto: HeartbeatProtocol = .simplepush

    // Optional, the default said in the help: heartbeat refuses it where its mode does not use it.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long to wait for the answer to a heartbeat (default \(DurationText.format(HeartbeatOptions.defaultTimeoutMs / 1000))).", valueName: "D"))
    var timeout: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("How long to wait for a connection and its TLS or protocol handshake.", valueName: "D"))
    var connectTimeout: String = DurationText.format(HeartbeatOptions.defaultConnectTimeoutMs / 1000)

    // The protocol's own settings: optional, their defaults said in the help, so that one given
    // for a protocol that does not read it is refused (`PushSetting`).
    @Option(
        help: ArgumentHelp(
            "\(HeartbeatProtocol.reading(.byteOrder)): byte order of the length prefix (little as Apple hardware writes it, or big; default \(Self.defaults.byteOrder.rawValue))."
        ))
    var byteOrder: SimplePush.ByteOrder?

    @Option(help: ArgumentHelp("\(HeartbeatProtocol.reading(.send)): the line to send (default \(Self.defaults.send)).", valueName: "TEXT"))
    var send: String?

    @Option(
        help: ArgumentHelp(
            "\(HeartbeatProtocol.reading(.expect)): a regular expression the reply must match (default \(Self.defaults.expect)).", valueName: "PATTERN"))
    var expect: String?

    @Option(help: ArgumentHelp("\(HeartbeatProtocol.reading(.path)): the request path (default \(Self.defaults.path)).", valueName: "PATH"))
    var path: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "\(HeartbeatProtocol.reading(.keepAlive)): the keep-alive announced in CONNECT, in seconds (default \(Self.defaults.keepAlive)).", valueName: "S"))
    var keepAlive: UInt16?

    @OptionGroup var tlsFlags: TLSFlags

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "\(HeartbeatProtocol.reading(.maxFrame)): the largest frame or line accepted from the server, in bytes (default \(Self.defaults.frameCap)).",
            valueName: "BYTES"))
    var maxFrame: Int?

    /// The core's defaults, for the help.
    static let defaults = HeartbeatOptions(endpoint: Endpoint(host: "", port: 0), proto: .simplepush)

    /// Refuses `flag` for a protocol whose heartbeat holds no connection (tcp): it would do nothing.
    static func refuseWithoutHeldConnection(_ proto: HeartbeatProtocol, _ flag: String, given: Bool, why: String) throws {
        guard given, !proto.modes.contains(.holdsConnection) else { return }
        throw ValidationError(
            "\(flag) goes with --protocol \(HeartbeatProtocol.names(HeartbeatProtocol.with(.holdsConnection))), not with \(proto) (\(why))")
    }

    /// Refuses a setting given for a protocol that does not read it (it would do nothing).
    func checkProtocolSettings() throws {
        let given: [(PushSetting, Bool)] = [
            (.byteOrder, byteOrder != nil), (.send, send != nil), (.expect, expect != nil), (.path, path != nil), (.keepAlive, keepAlive != nil),
            (.maxFrame, maxFrame != nil),
        ]
        for (setting, isGiven) in given where isGiven {
            if let why = proto.flagProblem(setting) { throw ValidationError(why) }
        }
    }

    /// The options as the session takes them for `target`, heartbeats every `interval` (the
    /// core's default when nil);
    /// `configure` adds the command's own before the core validates them all
    /// (`HeartbeatOptions.validate`). Durations are bounded by `parseDuration`.
    func options(
        target: String, interval: String?, shortestInterval: Double = 0, clients: Int? = nil, storm: Bool = false,
        configure: (inout HeartbeatOptions) throws -> Void = { _ in }
    ) throws -> HeartbeatOptions {
        let tls = tlsFlags.tls
        let endpoint: Endpoint
        switch proto.endpoint(target, tls: tls) {
        case .success(let e): endpoint = e
        case .failure(let why): throw ValidationError(why.description)
        }
        var o = HeartbeatOptions(endpoint: endpoint, proto: proto)
        if let interval { o.intervalMs = try parseDuration(interval, option: "--interval", atLeast: shortestInterval) * 1000 }
        try Self.refuseWithoutHeldConnection(proto, "--timeout", given: timeout != nil, why: "its heartbeat is a connect, within --connect-timeout")
        if let timeout { o.timeoutMs = max(1, try parseDuration(timeout, option: "--timeout") * 1000) }
        o.connectTimeoutMs = max(1, try parseDuration(connectTimeout, option: "--connect-timeout") * 1000)
        try checkProtocolSettings()
        if let byteOrder { o.byteOrder = byteOrder }
        if let send { o.send = send }
        if let expect { o.expect = expect }
        if let maxFrame { o.frameCap = maxFrame }
        if let path { o.path = path }
        if let keepAlive { o.keepAlive = keepAlive }
        o.tls = tlsFlags.options(serverName: o.endpoint.host)
        try configure(&o)
        do throws(SettingsError) { try o.validate(clients: clients, storm: storm) } catch { throw ValidationError(error.description) }
        return o
    }
}

/// A held connection (`heartbeat`, `walk`): how it is made, and when a loss is declared and
/// how it is tried again. `join` measures one connection per cycle and takes neither.
struct HeldConnectionOptions: ParsableArguments {
    @OptionGroup var connection: PushConnectionOptions

    // These two are optional, their defaults said in the help: heartbeat refuses them where its
    // mode does not use them.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds to wait before each reconnect attempt after a loss (default \(Self.scheduleText)).", valueName: "LIST"))
    var reconnectSchedule: String?

    /// The core's default schedule as the flag takes it.
    static let scheduleText = HeartbeatOptions.defaultSchedule.map(NumberText.format).joined(separator: ",")

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Consecutive unanswered heartbeats after which the connection counts as dead (default \(HeartbeatOptions.defaultMisses)).", valueName: "N"))
    var misses: Int?

    var proto: HeartbeatProtocol { connection.proto }

    /// `PushConnectionOptions.options`, with the reconnect schedule and the misses.
    func options(
        target: String, interval: String?, shortestInterval: Double = 0, clients: Int? = nil, storm: Bool = false,
        configure: (inout HeartbeatOptions) throws -> Void = { _ in }
    ) throws -> HeartbeatOptions {
        let why = "its heartbeat is a connection of its own: nothing held is lost"
        try PushConnectionOptions.refuseWithoutHeldConnection(proto, "--misses", given: misses != nil, why: why)
        try PushConnectionOptions.refuseWithoutHeldConnection(proto, "--reconnect-schedule", given: reconnectSchedule != nil, why: why)
        let schedule = try reconnectSchedule.map { text in
            guard let s = HeartbeatAnalysis.schedule(text) else {
                throw ValidationError("--reconnect-schedule: '\(text)' is not a list of durations (example: \(Self.scheduleText))")
            }
            return s
        }
        return try connection.options(target: target, interval: interval, shortestInterval: shortestInterval, clients: clients, storm: storm) { o in
            if let schedule { o.schedule = schedule }
            if let misses { o.missesBeforeReconnect = misses }
            try configure(&o)
        }
    }
}
