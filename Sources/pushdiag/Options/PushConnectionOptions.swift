import ArgumentParser
import PushdiagCore

/// How a push connection is made: protocol, timeouts, the protocol's own settings and TLS.
/// `join` opens one per cycle with these; `heartbeat` and `walk` hold it, with the reconnect
/// flags besides (`HeldConnectionOptions`).
struct PushConnectionOptions: ParsableArguments {
    @Option(name: .customLong("protocol"), help: "\(HeartbeatProtocol.names(HeartbeatProtocol.allCases)).")
    var proto: HeartbeatProtocol = .simplepush

    @Option(parsing: .unconditional, help: ArgumentHelp("How long to wait for the answer to a heartbeat.", valueName: "D"))
    var timeout: String = DurationText.format(HeartbeatOptions.defaultTimeoutMs / 1000)

    @Option(parsing: .unconditional, help: ArgumentHelp("How long to wait for a connection and its TLS or protocol handshake.", valueName: "D"))
    var connectTimeout: String = DurationText.format(HeartbeatOptions.defaultConnectTimeoutMs / 1000)

    @Option(help: "simplepush: byte order of the length prefix (little as Apple hardware writes it, or big).")
    var byteOrder: SimplePush.ByteOrder = .little

    @Option(help: ArgumentHelp("line: the line to send.", valueName: "TEXT"))
    var send: String = "PING"

    @Option(help: ArgumentHelp("line: a regular expression the reply must match.", valueName: "PATTERN"))
    var expect: String = "PONG"

    @Option(help: ArgumentHelp("websocket: the request path.", valueName: "PATH"))
    var path: String = "/"

    @Option(parsing: .unconditional, help: ArgumentHelp("mqtt: the keep-alive announced in CONNECT, in seconds.", valueName: "S"))
    var keepAlive: UInt16 = 60

    @OptionGroup var tlsFlags: TLSFlags

    @Option(parsing: .unconditional, help: ArgumentHelp("Largest frame or line accepted from the server, in bytes.", valueName: "BYTES"))
    var maxFrame: Int = 65_536

    /// The options as the session takes them for `target`, heartbeats every `interval`;
    /// `configure` adds the command's own before the core validates them all
    /// (`HeartbeatOptions.validate`). Durations are bounded by `parseDuration`.
    func options(
        target: String, interval: String, shortestInterval: Double = 0, clients: Int? = nil, storm: Bool = false,
        configure: (inout HeartbeatOptions) throws -> Void = { _ in }
    ) throws -> HeartbeatOptions {
        let tls = tlsFlags.tls
        let endpoint: Endpoint
        switch proto.endpoint(target, tls: tls) {
        case .success(let e): endpoint = e
        case .failure(let why): throw ValidationError(why.description)
        }
        var o = HeartbeatOptions(endpoint: endpoint, proto: proto)
        o.intervalMs = try parseDuration(interval, option: "--interval", atLeast: shortestInterval) * 1000
        o.timeoutMs = max(1, try parseDuration(timeout, option: "--timeout") * 1000)
        o.connectTimeoutMs = max(1, try parseDuration(connectTimeout, option: "--connect-timeout") * 1000)
        o.byteOrder = byteOrder
        o.send = send
        o.expect = expect
        o.frameCap = maxFrame
        o.path = path
        o.keepAlive = keepAlive
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

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds to wait before each reconnect attempt after a loss.", valueName: "LIST"))
    var reconnectSchedule: String = Self.scheduleText

    /// The core's default schedule as the flag takes it.
    static let scheduleText = HeartbeatOptions.defaultSchedule.map(NumberText.format).joined(separator: ",")

    @Option(parsing: .unconditional, help: ArgumentHelp("Consecutive unanswered heartbeats after which the connection counts as dead.", valueName: "N"))
    var misses: Int = HeartbeatOptions.defaultMisses

    var proto: HeartbeatProtocol { connection.proto }

    /// `PushConnectionOptions.options`, with the reconnect schedule and the misses.
    func options(
        target: String, interval: String, shortestInterval: Double = 0, clients: Int? = nil, storm: Bool = false,
        configure: (inout HeartbeatOptions) throws -> Void = { _ in }
    ) throws -> HeartbeatOptions {
        guard let schedule = HeartbeatAnalysis.schedule(reconnectSchedule) else {
            throw ValidationError("--reconnect-schedule: '\(reconnectSchedule)' is not a list of durations (example: \(Self.scheduleText))")
        }
        return try connection.options(target: target, interval: interval, shortestInterval: shortestInterval, clients: clients, storm: storm) { o in
            o.schedule = schedule
            o.missesBeforeReconnect = misses
            try configure(&o)
        }
    }
}
