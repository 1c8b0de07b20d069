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
        missesAllowed = o.proto.modes.contains(.holdsConnection) ? o.missesBeforeReconnect : nil
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
            return "\(NumberText.count(allowed, "heartbeat")) unanswered"
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
    /// The last connect's phase boundaries on the run's clock (`WallClock.nanoseconds`): TCP's
    /// start and end, TLS's and the hello's end where there were such phases (the join's milestones).
    public private(set) var phaseEndsNs: (tcpStart: Int64, tcp: Int64, tls: Int64?, hello: Int64?)?

    var connection: ByteStream?
    /// The protocol's side of the connection, new with each connection.
    var client: any PushClient
    /// Connections opened, to name each (MQTT's client identifier).
    var opened = 0

    public init(_ o: HeartbeatOptions, address: IPAddress, stop: @escaping () -> Bool = { false }) {
        options = o
        self.address = address
        self.stop = stop
        client = o.proto.definition.client(o, clientID: "pushdiag-\(getpid())-0")
    }

    public var isConnected: Bool { connection != nil }
    var peer: String { options.endpoint.description }
    var sendTimeout: Int32 { Clock.pollTimeout(ms: options.timeoutMs) }

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
        let timeout = Clock.pollTimeout(ms: options.connectTimeoutMs)
        let t0 = Clock.ms()
        let tcpStartNs = WallClock.nanoseconds()
        phaseEndsNs = nil
        let tcp = try TCPConnection.connect(address, port: options.endpoint.port, name: peer, timeoutMs: timeout, stop: stop)
        connectMs = Clock.ms() - t0
        var ends = (tcpStart: tcpStartNs, tcp: WallClock.nanoseconds(), tls: Int64?.none, hello: Int64?.none)
        defer { phaseEndsNs = ends }
        tlsMs = nil
        handshakeMs = nil
        var stream: ByteStream = tcp
        if let tls = options.tls {
            let t1 = Clock.ms()
            let t = try TLSConnection(over: tcp, options: tls, timeoutMs: timeout)
            tlsMs = Clock.ms() - t1
            let tlsEnd = WallClock.nanoseconds()
            tlsInfo = t.info
            if let why = TLSConnection.refusal(t.info, options: tls, peer: peer) { throw .tls(why) }
            // Done only when its result is one the options take (join's TLS milestone).
            ends.tls = tlsEnd
            stream = t
        }
        connection = stream
        opened += 1
        client = options.proto.definition.client(options, clientID: "pushdiag-\(getpid())-\(opened)")
        do throws(ConnectionFailure) {
            let deadline = Clock.ms() + options.connectTimeoutMs
            if let hello = client.hello() {
                let t2 = Clock.ms()
                try send(hello)
                try handshakeReceive(until: deadline, what: client.helloName, awaiting: .opened)
                handshakeMs = Clock.ms() - t2
                ends.hello = WallClock.nanoseconds()
            }
            if let name = options.register, options.proto.modes.contains(.register), let bytes = client.register(name) {
                try send(bytes)
                try handshakeReceive(until: Clock.ms() + options.connectTimeoutMs, what: "the registration", awaiting: .registered)
                registeredAt = Clock.ms()
            }
        } catch {
            connection = nil
            throw error
        }
    }

    /// `receive` for a handshake: a timeout or the end of the stream there is a failure.
    func handshakeReceive(until deadline: Double, what: String, awaiting: PushClientEvent) throws(ConnectionFailure) {
        do throws(ConnectionFailure) {
            guard try receive(until: deadline, awaiting: awaiting) else { throw .timeout(what) }
        } catch {
            if case .closedByPeer = error { throw .protocolViolation("\(peer): the server closed the connection during \(what)") }
            throw error
        }
    }

    // MARK: The one receive loop

    /// Waits for bytes until `deadline` (monotonic ms) and hands them to the protocol's client,
    /// sending what it answers and noting the server's heartbeats, until `awaiting` comes (true)
    /// or the deadline passes (false). Throws `.closedByPeer` at the end of the stream and
    /// `.protocolViolation` for bytes that are not the protocol.
    func receive(until deadline: Double, awaiting: PushClientEvent?) throws(ConnectionFailure) -> Bool {
        guard let c = connection else { throw .closedByPeer("not connected") }
        while true {
            let left = deadline - Clock.ms()
            if left <= 0 { return false }
            guard let bytes = try c.receive(max: 65_536, timeoutMs: Clock.pollTimeout(ms: left)) else { continue }
            if bytes.isEmpty { throw .closedByPeer("the server closed the connection") }
            var came = false
            for e in try client.receive(bytes[...]) {
                switch e {
                case .reply(let answer):
                    try send(answer)
                    serverAcknowledged += 1
                case .serverHeartbeat:
                    let now = Clock.ms()
                    if keepsHistory { serverArrivals.append(now) }
                    onEvent?(.serverHeartbeat(atMs: now))
                default:
                    if e == awaiting { came = true }
                }
            }
            if came { return true }
        }
    }

    func send(_ bytes: [UInt8]) throws(ConnectionFailure) {
        guard let c = connection else { throw .closedByPeer("not connected") }
        try c.send(bytes, timeoutMs: sendTimeout)
    }

    // MARK: Heartbeats

    /// Heartbeat number `n` on the open connection, and its answer within the timeout. Throws
    /// `.protocolViolation` when the server answers with something else.
    public func heartbeat(_ n: Int) throws(ConnectionFailure) -> HeartbeatOutcome {
        if !options.proto.modes.contains(.holdsConnection) {
            // Every heartbeat is a fresh connection; its connect time is the round trip.
            let t0 = Clock.ms()
            do throws(ConnectionFailure) {
                _ = try TCPConnection.connect(
                    address, port: options.endpoint.port, name: peer, timeoutMs: Clock.pollTimeout(ms: options.heartbeatWaitMs))
                return .answered(ms: Clock.ms() - t0)
            } catch {
                return .unanswered
            }
        }
        guard connection != nil else { return .connectionLost(.closedByPeer("not connected")) }
        let t0 = Clock.ms()
        do throws(ConnectionFailure) {
            try send(client.heartbeat(n))
            return try receive(until: t0 + options.timeoutMs, awaiting: .answered) ? .answered(ms: Clock.ms() - t0) : .unanswered
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
        guard options.register != nil, options.proto.modes.contains(.register), connection != nil else {
            sleep(ms: max(0, until - Clock.ms()))
            return
        }
        while !stop() {
            let now = Clock.ms()
            if now >= until { return }
            do throws(ConnectionFailure) {
                _ = try receive(until: min(until, now + 100), awaiting: nil)
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
        state(.failed, ReconnectAttempt.scheduleRanOut(attempts: options.schedule.count))
        return .exhausted
    }

    func record(_ a: ReconnectAttempt) {
        if keepsHistory { reconnects.append(a) }
        onEvent?(.reconnect(a))
    }

    /// Says goodbye as the protocol does (MQTT DISCONNECT, a WebSocket close) and closes.
    public func close() {
        if let bye = client.goodbye() { try? connection?.send(bye, timeoutMs: 200) }
        connection = nil
    }
}
