import FoundationEssentials
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// What became of one heartbeat.
public enum HeartbeatOutcome: Equatable, Sendable {
    /// Answered after this many milliseconds.
    case answered(ms: Double)
    /// No answer within the timeout; the connection may still be up.
    case unanswered
    /// The connection broke (closed, reset); a device would reconnect.
    case connectionLost(ConnectionFailure)

    /// The round trip, when it was answered.
    public var rttMs: Double? {
        if case .answered(let ms) = self { ms } else { nil }
    }
}

/// What a device makes of its heartbeats, for every loop that holds a session (`heartbeat`'s
/// `HeartbeatProbe`, the walk, the exporter's sessions): the misses in a row that make the session
/// lost, and when the next heartbeat is due — one interval after the last was due, never in the
/// past (a slow answer or a long wait does not bring a burst), and one interval after the session
/// is back from a loss (the schedule's time is not made up).
///
/// A heartbeat met by bytes that are not the protocol (`HeartbeatSession.heartbeat` throws
/// `.protocolViolation`) is left to the loop: `heartbeat` and the walk end with it as their
/// finding, the exporter drops the connection and reconnects, as a device would.
public struct HeartbeatCadence: Sendable {
    let interval: Double
    let missesAllowed: Int?
    var misses = 0
    /// When the next heartbeat is due (monotonic ms).
    public private(set) var next: Double

    public init(_ o: HeartbeatOptions, now: Double = Clock.ms()) {
        interval = o.intervalMs
        // A tcp "heartbeat" is a fresh connection: an unanswered one loses nothing held.
        missesAllowed = o.proto == .tcp ? nil : o.missesBeforeReconnect
        next = now
    }

    /// Why the session is lost after this outcome, or nil while it holds.
    public mutating func loss(after outcome: HeartbeatOutcome) -> String? {
        switch outcome {
        case .answered:
            misses = 0
            return nil
        case .unanswered:
            misses += 1
            guard let allowed = missesAllowed, misses >= allowed else { return nil }
            misses = 0
            return "\(allowed) heartbeats unanswered"
        case .connectionLost(let why):
            misses = 0
            return why.description
        }
    }

    /// The session is back after a loss: the next heartbeat is an interval from now.
    public mutating func restart(now: Double = Clock.ms()) {
        misses = 0
        next = now
    }

    /// Moves on to the next heartbeat and says when it is due.
    public mutating func advance(now: Double = Clock.ms()) -> Double {
        next = max(next + interval, now)
        return next
    }
}

/// Something a session did, reported as it happens (for a live view).
public enum SessionEvent: Sendable {
    case state(ConnectionState)
    case reconnect(ReconnectAttempt)
    /// A heartbeat from the server (SimplePush after registering), at this monotonic time (ms).
    case serverHeartbeat(atMs: Double)
}

/// One push connection held as a device holds it: connect, TLS, the protocol's handshake
/// (MQTT CONNECT, the WebSocket upgrade, a SimplePush registration), heartbeats and their
/// answers, the server's own heartbeats, and reconnecting on the client SDK's schedule after a
/// loss. Failures are typed (`ConnectionFailure`); the drivers (`HeartbeatProbe` for `heartbeat`,
/// and the walk and the exporter) decide what they mean.
///
/// Not thread-safe: one thread drives a session.
public final class HeartbeatSession {
    public let options: HeartbeatOptions
    public let address: IPAddress
    let stop: () -> Bool
    /// Called with each state change, reconnect attempt and server heartbeat as it happens.
    public var onEvent: ((SessionEvent) -> Void)?
    /// Whether the timelines below are kept. A resident holder of the session (the exporter,
    /// for days) turns this off and follows `onEvent` alone, so memory does not grow with time.
    public var keepsHistory = true

    /// The Network-framework-like timeline: setup, preparing, ready, waiting, failed, cancelled.
    public private(set) var states: [ConnectionState] = []
    public private(set) var reconnects: [ReconnectAttempt] = []
    /// When the server's own heartbeats came (monotonic ms), and how many were acknowledged.
    public private(set) var serverArrivals: [Double] = []
    public private(set) var serverAcknowledged = 0
    public private(set) var registeredAt: Double?
    /// What the last TLS handshake showed, also when its result was refused.
    public private(set) var tlsInfo: TLSInfo?
    /// The last connect's phases, in ms: TCP, TLS, the protocol's handshake.
    public private(set) var connectMs: Double?
    public private(set) var tlsMs: Double?
    public private(set) var handshakeMs: Double?

    var connection: ByteStream?
    var simplePush: SimplePush.Decoder
    var mqtt: MQTT.Decoder
    var webSocket: WebSocket.Decoder
    var lines: LineDecoder
    var nextID: UInt32 = 1
    /// The line protocol's reply check (nil for the other protocols).
    let expect: LineReplyMatcher?

    public init(_ o: HeartbeatOptions, address: IPAddress, stop: @escaping () -> Bool = { false }) {
        options = o
        self.address = address
        self.stop = stop
        simplePush = SimplePush.Decoder(order: o.byteOrder, cap: o.frameCap)
        mqtt = MQTT.Decoder(cap: o.frameCap)
        webSocket = WebSocket.Decoder(cap: o.frameCap)
        lines = LineDecoder(cap: o.frameCap)
        expect = o.proto == .line ? LineReplyMatcher(o.expect) : nil
    }

    public var isConnected: Bool { connection != nil }
    var peer: String { options.endpoint.description }
    var sendTimeout: Int32 { Int32(min(options.timeoutMs, Double(Int32.max))) }

    /// Adds a state to the timeline.
    public func state(_ s: ConnectionPhase, _ reason: String? = nil) {
        let c = ConnectionState(timeNs: WallClock.nanoseconds(), state: s, reason: reason)
        if keepsHistory { states.append(c) }
        onEvent?(.state(c))
    }

    /// Sleeps in steps, returning early when a stop is requested.
    public func sleep(ms: Double) { Clock.sleep(ms: ms, stop: stop) }

    // MARK: Connecting

    /// TCP connect, TLS and the protocol's handshake (and, with `register`, the SimplePush
    /// registration). The phases' times are kept; a TLS result the options refuse throws `.tls`.
    public func open() throws(ConnectionFailure) {
        connection = nil
        let timeout = Int32(min(options.connectTimeoutMs, Double(Int32.max)))
        let t0 = Clock.ms()
        let tcp = try TCPConnection.connect(address, port: options.endpoint.port, name: peer, timeoutMs: timeout, stop: stop)
        connectMs = Clock.ms() - t0
        tlsMs = nil
        handshakeMs = nil
        var stream: ByteStream = tcp
        if let tls = options.tls {
            let t1 = Clock.ms()
            let t = try TLSConnection(over: tcp, options: tls, timeoutMs: timeout)
            tlsMs = Clock.ms() - t1
            tlsInfo = t.info
            if let why = TLSConnection.refusal(t.info, options: tls, peer: peer) { throw .tls(why) }
            stream = t
        }
        connection = stream
        simplePush = SimplePush.Decoder(order: options.byteOrder, cap: options.frameCap)
        mqtt = MQTT.Decoder(cap: options.frameCap)
        webSocket = WebSocket.Decoder(cap: options.frameCap)
        lines = LineDecoder(cap: options.frameCap)
        do throws(ConnectionFailure) {
            if options.proto == .mqtt || options.proto == .websocket {
                let t2 = Clock.ms()
                try handshake()
                handshakeMs = Clock.ms() - t2
            }
            if let name = options.register, options.proto == .simplepush { try register(name) }
        } catch {
            connection = nil
            throw error
        }
    }

    /// The protocol's own handshake: MQTT CONNECT/CONNACK, the WebSocket upgrade.
    func handshake() throws(ConnectionFailure) {
        let deadline = Clock.ms() + options.connectTimeoutMs
        switch options.proto {
        case .mqtt:
            try send(MQTT.connect(clientID: "pushdiag-\(getpid())-\(nextID)", keepAlive: options.keepAlive))
            let code = try handshakeReceive(&mqtt, until: deadline, what: "the MQTT CONNECT") { p -> UInt8? in
                p.type == MQTT.connack && p.body.count >= 2 ? p.body[1] : nil
            }
            if code != 0 { throw .protocolViolation("\(peer): MQTT connection refused: \(MQTT.connackReason(code))") }
        case .websocket:
            var rng = SystemRandomNumberGenerator()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }).base64EncodedString()
            let host = options.endpoint.port == options.proto.defaultPort(tls: options.tls != nil) ? options.endpoint.host : peer
            try send(WebSocket.upgradeRequest(host: host, path: options.path, key: key))
            var head = HTTPHeadDecoder(cap: options.frameCap)
            let response = try handshakeReceive(
                &head, until: deadline, what: "the WebSocket upgrade",
                check: { (d: HTTPHeadDecoder) throws(ConnectionFailure) in
                    if !d.looksLikeHTTPResponse {
                        throw .protocolViolation("\(self.peer): WebSocket upgrade failed: the server answered \"\(d.firstLine)\", not HTTP")
                    }
                }, { $0 })
            webSocket.feed(head.remainder())
            if let why = WebSocket.checkResponse(response, key: key) { throw .protocolViolation("\(peer): WebSocket upgrade failed: \(why)") }
        default:
            break
        }
    }

    /// Registers (SimplePush, `register`) and waits for the acknowledge.
    func register(_ name: String) throws(ConnectionFailure) {
        let id = takeID()
        try send(SimplePush.frame(SimplePush.registration(id: id, name: name), order: options.byteOrder))
        let deadline = Clock.ms() + options.connectTimeoutMs
        _ = try handshakeReceive(&simplePush, until: deadline, what: "the registration") { m throws(ConnectionFailure) -> Bool? in
            if m.isAcknowledge && m.requestIdentifier == id { return true }
            if m.isRequest { try self.serverRequest(m) }
            return nil
        }
        registeredAt = Clock.ms()
    }

    /// `receive` for a handshake: a timeout or the end of the stream there is a failure.
    func handshakeReceive<D: FrameDecoder, R>(
        _ decoder: inout D, until deadline: Double, what: String,
        check: (D) throws(ConnectionFailure) -> Void = { _ in },
        _ handle: (D.Frame) throws(ConnectionFailure) -> R?
    ) throws(ConnectionFailure) -> R {
        do throws(ConnectionFailure) {
            guard let r = try receive(&decoder, until: deadline, check: check, handle) else { throw .timeout(what) }
            return r
        } catch {
            if case .closedByPeer = error { throw .protocolViolation("\(peer): the server closed the connection during \(what)") }
            throw error
        }
    }

    // MARK: The one receive loop

    /// Waits for bytes until `deadline` (monotonic ms), feeds them to `decoder` and hands each
    /// whole frame to `handle` until it returns a value. Nil when the deadline passes first;
    /// throws `.closedByPeer` at the end of the stream and `.protocolViolation` for bytes that
    /// are not the protocol. `check` looks at the decoder after each read (to refuse early).
    func receive<D: FrameDecoder, R>(
        _ decoder: inout D, until deadline: Double,
        check: (D) throws(ConnectionFailure) -> Void = { _ in },
        _ handle: (D.Frame) throws(ConnectionFailure) -> R?
    ) throws(ConnectionFailure) -> R? {
        guard let c = connection else { throw .closedByPeer("not connected") }
        while true {
            while true {
                let frame: D.Frame?
                do throws(FramingError) { frame = try decoder.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let frame else { break }
                if let r = try handle(frame) { return r }
            }
            let left = deadline - Clock.ms()
            if left <= 0 { return nil }
            guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(min(left.rounded(.up), Double(Int32.max)))) else { continue }
            if bytes.isEmpty { throw .closedByPeer("the server closed the connection") }
            decoder.feed(bytes[...])
            try check(decoder)
        }
    }

    func send(_ bytes: [UInt8]) throws(ConnectionFailure) {
        guard let c = connection else { throw .closedByPeer("not connected") }
        try c.send(bytes, timeoutMs: sendTimeout)
    }

    func takeID() -> UInt32 {
        defer { nextID &+= 1 }
        return nextID
    }

    /// A request from the server (its heartbeat): acknowledge it, note when it came.
    func serverRequest(_ m: SimplePush.Message) throws(ConnectionFailure) {
        if SimplePush.heartbeatCount(m) != nil {
            let now = Clock.ms()
            if keepsHistory { serverArrivals.append(now) }
            onEvent?(.serverHeartbeat(atMs: now))
        }
        try send(SimplePush.frame(SimplePush.acknowledge(m), order: options.byteOrder))
        serverAcknowledged += 1
    }

    // MARK: Heartbeats

    /// Heartbeat number `n` on the open connection, and its answer within the timeout. Throws
    /// `.protocolViolation` when the server answers with something else.
    public func heartbeat(_ n: Int) throws(ConnectionFailure) -> HeartbeatOutcome {
        if options.proto == .tcp {
            // Every heartbeat is a fresh connection; its connect time is the round trip.
            let t0 = Clock.ms()
            do throws(ConnectionFailure) {
                _ = try TCPConnection.connect(
                    address, port: options.endpoint.port, name: peer, timeoutMs: Int32(min(options.connectTimeoutMs, Double(Int32.max))))
                return .answered(ms: Clock.ms() - t0)
            } catch {
                return .unanswered
            }
        }
        guard connection != nil else { return .connectionLost(.closedByPeer("not connected")) }
        let t0 = Clock.ms()
        let deadline = t0 + options.timeoutMs
        do throws(ConnectionFailure) {
            let answered: Bool?
            switch options.proto {
            case .simplepush:
                let id = takeID()
                try send(SimplePush.frame(SimplePush.heartbeat(id: id, count: Int64(n)), order: options.byteOrder))
                answered = try receive(&simplePush, until: deadline) { m throws(ConnectionFailure) -> Bool? in
                    if m.isAcknowledge && m.requestIdentifier == id { return true }
                    if m.isRequest { try self.serverRequest(m) }
                    return nil
                }
            case .line:
                try send(Array((options.send + "\n").utf8))
                answered = try receive(&lines, until: deadline) { line throws(ConnectionFailure) -> Bool? in
                    if let m = self.expect, !m.matches(line) { throw .protocolViolation(m.mismatch(line, peer: self.peer)) }
                    return true
                }
            case .mqtt:
                try send(MQTT.pingRequest)
                answered = try receive(&mqtt, until: deadline) { $0.type == MQTT.pingresp ? true : nil }
            case .websocket:
                var rng = SystemRandomNumberGenerator()
                let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let payload = Array("pushdiag-\(n)".utf8)
                try send(WebSocket.frame(opcode: WebSocket.opPing, payload: payload, mask: mask))
                answered = try receive(&webSocket, until: deadline) { f throws(ConnectionFailure) -> Bool? in
                    if f.opcode == WebSocket.opPong && f.payload == payload { return true }
                    if f.opcode == WebSocket.opClose { throw .closedByPeer("the server closed the WebSocket") }
                    if f.opcode == WebSocket.opPing { try self.send(WebSocket.frame(opcode: WebSocket.opPong, payload: f.payload, mask: mask)) }
                    return nil
                }
            case .tcp:
                answered = nil
            }
            return answered == true ? .answered(ms: Clock.ms() - t0) : .unanswered
        } catch {
            switch error {
            case .closedByPeer, .io: return .connectionLost(error)
            default: throw error
            }
        }
    }

    /// Waits until `until` (monotonic ms), answering what the server sends meanwhile (its
    /// SimplePush heartbeats after registering); returns early on a stop request or when the
    /// server closes (the next heartbeat finds the connection closed).
    public func wait(until: Double) throws(ConnectionFailure) {
        guard options.register != nil, options.proto == .simplepush, connection != nil else {
            sleep(ms: max(0, until - Clock.ms()))
            return
        }
        while !stop() {
            let now = Clock.ms()
            if now >= until { return }
            do throws(ConnectionFailure) {
                _ = try receive(&simplePush, until: min(until, now + 100)) { m throws(ConnectionFailure) -> Bool? in
                    if m.isRequest { try self.serverRequest(m) }
                    return nil
                }
            } catch {
                if case .closedByPeer = error { return }
                throw error
            }
        }
    }

    // MARK: After a loss

    /// How a reconnect ended.
    public enum ReconnectOutcome: Equatable, Sendable {
        case connected
        /// Every attempt of the schedule failed: the connection is lost.
        case exhausted
        /// A stop was requested (a signal, or the end of a window) before it was back.
        case stopped
    }

    /// Reconnects on the schedule after a loss, recording each attempt.
    public func reconnect(after reason: String) -> ReconnectOutcome {
        connection = nil
        state(.waiting, reason)
        for (i, delay) in options.schedule.enumerated() {
            sleep(ms: delay * 1000)
            if stop() { return .stopped }
            state(.preparing)
            let t0 = Clock.ms()
            do throws(ConnectionFailure) {
                try open()
                record(ReconnectAttempt(attempt: i + 1, delayS: delay, outcome: .connected, ms: connectMs ?? Clock.ms() - t0))
                state(.ready)
                return .connected
            } catch {
                if case .stopped = error { return .stopped }
                record(ReconnectAttempt(attempt: i + 1, delayS: delay, outcome: .failed(error.description), ms: Clock.ms() - t0))
                state(.waiting, error.description)
            }
        }
        state(.failed, "connection lost: the reconnect schedule (\(options.schedule.count) attempts) ran out")
        return .exhausted
    }

    func record(_ a: ReconnectAttempt) {
        if keepsHistory { reconnects.append(a) }
        onEvent?(.reconnect(a))
    }

    /// Says goodbye as the protocol does (MQTT DISCONNECT, a WebSocket close) and closes.
    public func close() {
        if options.proto == .mqtt { try? connection?.send(MQTT.disconnect, timeoutMs: 200) }
        if options.proto == .websocket {
            try? connection?.send(WebSocket.frame(opcode: WebSocket.opClose, payload: [0x03, 0xE8], mask: [1, 2, 3, 4]), timeoutMs: 200)
        }
        connection = nil
    }
}
