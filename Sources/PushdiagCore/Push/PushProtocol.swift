/// A push protocol, once: its name, default port and help line, the modes it supports, the
/// client side a device speaks (hello, heartbeat, what answers it, the server's own heartbeats,
/// goodbye) and the server side the responder speaks. Both sides are machines over bytes (no
/// I/O): the session, the device engine (load and storm) and the responder feed them what arrives
/// and send what they return, so each protocol's rules are written in one file of `Protocols/`.
///
/// Adding a protocol: a type in `Protocols/`, a line in `HeartbeatProtocol.allCases`, its
/// decoder in `Tests/fuzz/FuzzPush.swift`, a line of the man page (docs/ARCHITECTURE.md).
public protocol PushProtocol: Sendable {
    /// As typed after `--protocol`, in config files, /probe and JSON.
    var name: String { get }
    /// What `heartbeat --help` says of it: "name (what it is)".
    var summary: String { get }
    func defaultPort(tls: Bool) -> UInt16?
    var modes: PushModes { get }
    /// The settings of its own it reads; the others are refused where they are given.
    var settings: Set<PushSetting> { get }
    /// A device's side of one connection. `clientID` names the connection where the protocol
    /// asks for a name (MQTT's client identifier).
    func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient
    /// The responder's side of one connection; nil when the responder does not serve it.
    func server(_ s: PushServerSettings) -> (any PushServer)?
}

extension PushProtocol {
    public func server(_ s: PushServerSettings) -> (any PushServer)? { nil }
}

/// What a protocol can be used for besides `heartbeat` against one server.
public struct PushModes: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The connection is held between heartbeats (tcp's heartbeat is a fresh connection).
    public static let holdsConnection = PushModes(rawValue: 1)
    /// `--clients N`: many devices with heartbeats, in plain TCP.
    public static let load = PushModes(rawValue: 2)
    /// `--clients N --storm`: a reconnect storm, TLS too.
    public static let storm = PushModes(rawValue: 4)
    /// `--register NAME`: a user registration and the server's own heartbeats.
    public static let register = PushModes(rawValue: 8)
    /// `pushdiag responder --protocol`.
    public static let serve = PushModes(rawValue: 16)
}

/// A setting that only some protocols read, as its flag and its key spell it (`--path`, `path`).
/// Each protocol says which it reads (`PushProtocol.settings`); one given for a protocol that does
/// not read it would do nothing, so the flags, a `[[server]]` table and /probe refuse it.
public enum PushSetting: String, CaseIterable, Sendable {
    /// simplepush's length prefix.
    case byteOrder = "byte-order"
    /// line's line out, the pattern its answer must match, and the responder's answer.
    case send, expect, reply
    /// websocket's request path.
    case path
    /// mqtt's keep-alive in CONNECT.
    case keepAlive = "keep-alive"
    /// The largest frame or line read (tcp reads none).
    case maxFrame = "max-frame"

    public var flag: String { "--\(rawValue)" }
}

/// What the bytes from a server meant to a client, in order.
public enum PushClientEvent: Equatable, Sendable {
    /// The hello was answered: the protocol is open.
    case opened
    /// The registration was acknowledged.
    case registered
    /// The heartbeat outstanding was answered.
    case answered
    /// Send these back (an acknowledge of the server's request, a pong to its ping).
    case reply([UInt8])
    /// The server's own heartbeat came.
    case serverHeartbeat
}

/// A device's side of one push connection, bytes in and bytes out. A new one per connection.
public protocol PushClient {
    /// The protocol's own opening after TCP and TLS (MQTT CONNECT, the WebSocket upgrade), nil
    /// when it has none; `.opened` answers it.
    mutating func hello() -> [UInt8]?
    /// What the hello waits for, for a message ("the MQTT CONNECT").
    var helloName: String { get }
    /// A user registration (protocols with `.register`), `.registered` answers it.
    mutating func register(_ name: String) -> [UInt8]?
    /// Heartbeat number `n` (from 1); `.answered` answers it, an answer to an earlier one does not.
    mutating func heartbeat(_ n: Int) -> [UInt8]
    /// Bytes from the server. Throws `.protocolViolation` for bytes that are not the protocol or
    /// a refusal, `.closedByPeer` when the protocol says goodbye.
    mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent]
    /// The protocol's goodbye (MQTT DISCONNECT, a WebSocket close), nil when it has none.
    func goodbye() -> [UInt8]?
}

extension PushClient {
    public mutating func hello() -> [UInt8]? { nil }
    public var helloName: String { "the handshake" }
    public mutating func register(_ name: String) -> [UInt8]? { nil }
    public func goodbye() -> [UInt8]? { nil }
}

/// How the responder answers, whatever the protocol.
public struct PushServerSettings: Sendable {
    public var byteOrder: SimplePush.ByteOrder = .little
    /// line: the answer to every line.
    public var reply = "PONG"
    public var frameCap = 65_536
    public init() {}
}

/// What the responder does with bytes from a client.
public enum PushServerAction: Equatable, Sendable {
    /// An answer to a request (a heartbeat): counted, and subject to the faults asked for.
    case answer([UInt8])
    /// Protocol bookkeeping sent at once (the upgrade's response); `close` hangs up after it.
    case send([UInt8], close: Bool)
    /// The client registered: the server's own heartbeats begin.
    case registered
}

/// The responder's side of one connection, bytes in and actions out.
public protocol PushServer {
    /// Throws for bytes that are not the protocol: the responder hangs up.
    mutating func receive(_ bytes: ArraySlice<UInt8>) throws(FramingError) -> [PushServerAction]
    /// The server's own heartbeat to a registered client, nil when the protocol has none.
    func serverHeartbeat(id: UInt32, count: Int64) -> [UInt8]?
}

extension PushServer {
    public func serverHeartbeat(id: UInt32, count: Int64) -> [UInt8]? { nil }
}

/// The push protocols pushdiag speaks: the one list (`allCases`) that options, config, /probe,
/// help and completions read. A value holds its `PushProtocol`; its raw value is the name.
public struct HeartbeatProtocol: Hashable, Sendable, CaseIterable, RawValueDescribed {
    public let definition: any PushProtocol

    public init(_ definition: any PushProtocol) { self.definition = definition }

    public static let simplepush = HeartbeatProtocol(SimplePushProtocol())
    public static let websocket = HeartbeatProtocol(WebSocketProtocol())
    public static let mqtt = HeartbeatProtocol(MQTTProtocol())
    public static let line = HeartbeatProtocol(LineProtocol())
    public static let tcp = HeartbeatProtocol(TCPProtocol())

    /// Every protocol, in the order help lists them.
    public static let allCases: [HeartbeatProtocol] = [.simplepush, .websocket, .mqtt, .line, .tcp]

    public init?(rawValue: String) {
        guard let p = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = p
    }

    public var rawValue: String { definition.name }
    public var modes: PushModes { definition.modes }
    public var settings: Set<PushSetting> { definition.settings }

    /// The protocols that read `setting`, for a sentence ("simplepush", "simplepush, websocket or line").
    public static func reading(_ setting: PushSetting) -> String { names(allCases.filter { $0.settings.contains(setting) }) }

    /// `reading(setting)` when this protocol does not read it; nil when it does.
    public func readers(ifNotRead setting: PushSetting) -> String? { settings.contains(setting) ? nil : Self.reading(setting) }

    /// Why `setting` given as a flag would do nothing with this protocol ("--send goes with
    /// --protocol line, not with mqtt"); nil when it reads it.
    public func flagProblem(_ setting: PushSetting) -> String? {
        readers(ifNotRead: setting).map { "\(setting.flag) goes with --protocol \($0), not with \(rawValue)" }
    }
    public func defaultPort(tls: Bool) -> UInt16? { definition.defaultPort(tls: tls) }

    /// A push server's `HOST[:PORT]` as this protocol reads it (its default port when none is
    /// given), or why it is none, in the same words from a flag, the configuration and /probe.
    public func endpoint(_ text: String, tls: Bool) -> Result<Endpoint, EndpointProblem> {
        if let e = Endpoint(text, defaultPort: defaultPort(tls: tls)) { return .success(e) }
        return .failure(EndpointProblem(text: text, protocolWithoutPort: defaultPort(tls: tls) == nil ? rawValue : nil))
    }

    public static func == (a: Self, b: Self) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }

    /// The protocols with `mode` (all without one).
    public static func with(_ mode: PushModes = []) -> [HeartbeatProtocol] { allCases.filter { $0.modes.isSuperset(of: mode) } }

    /// Names for a sentence: "simplepush, websocket or line".
    public static func names(_ list: [HeartbeatProtocol], _ conjunction: String = "or") -> String {
        let n = list.map(\.rawValue)
        guard n.count > 1 else { return n.first ?? "" }
        return n.dropLast().joined(separator: ", ") + " \(conjunction) " + n.last!
    }
}
