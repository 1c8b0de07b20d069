import PushdiagCore
#if canImport(Glibc)
import Glibc
#endif

public enum HeartbeatProtocol: String, Sendable, CaseIterable {
    case simplepush, websocket, mqtt, line, tcp

    public func defaultPort(tls: Bool) -> UInt16? {
        switch self {
        case .simplepush: return 3000
        case .websocket: return tls ? 443 : 80
        case .mqtt: return tls ? 8883 : 1883
        case .line, .tcp: return nil
        }
    }
}

public struct HeartbeatOptions: Sendable {
    public var endpoint: Endpoint
    public var proto: HeartbeatProtocol
    public var count = 10
    public var intervalMs: Double = 1000
    public var timeoutMs: Double = 2000
    /// For the TCP connect and the TLS and protocol handshakes (a lost SYN costs a second).
    public var connectTimeoutMs: Double = 5000
    public var byteOrder: SimplePush.ByteOrder = .little
    public var frameCap = 65_536
    /// line: what to send, and a regular expression the reply must match.
    public var send = "PING"
    public var expect = "PONG"
    /// Seconds to wait before each reconnect attempt after a loss.
    public var schedule: [Double] = [0.5, 1, 2, 4, 4, 4, 4]
    /// Consecutive unanswered heartbeats after which the connection is taken for dead.
    public var missesBeforeReconnect = 3
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
    public var serverHeartbeatTimeoutS: Double = 60

    public init(endpoint: Endpoint, proto: HeartbeatProtocol) {
        self.endpoint = endpoint
        self.proto = proto
    }
}

/// A client SDK's view of the push server: connect, heartbeat on an interval, measure round
/// trips, and after a loss reconnect on the schedule.
public final class HeartbeatClient {
    let o: HeartbeatOptions
    let stop: () -> Bool
    var states: [ConnectionState] = []
    var reconnects: [ReconnectAttempt] = []
    var rtts: [Double] = []
    var sent = 0
    var received = 0
    var connection: ByteStream?
    var lastTLSMs: Double?
    var lastConnectMs: Double?
    var lastHandshakeMs: Double?
    var mqttDecoder = MQTT.Decoder()
    var serverArrivals: [Double] = []
    var serverAcked = 0
    var registeredAt: Double?
    var wsDecoder = WebSocket.Decoder()
    var tlsInfo: TLSInfo?
    var decoder: SimplePush.Decoder
    var lineBuffer: [UInt8] = []
    var nextID: UInt32 = 1
    var address: IPAddress?

    public init(_ o: HeartbeatOptions, stop: @escaping () -> Bool = { false }) {
        self.o = o
        self.stop = stop
        decoder = SimplePush.Decoder(order: o.byteOrder, cap: o.frameCap)
    }

    func state(_ s: String, _ reason: String? = nil) { states.append(ConnectionState(timeNs: WallClock.nanoseconds(), state: s, reason: reason)) }

    func sleep(ms: Double) {
        var left = ms
        while left > 0 && !stop() {
            let step = min(left, 100)
            usleep(UInt32(step * 1000))
            left -= step
        }
    }

    /// TCP connect (and TLS handshake): returns the connect time; the handshake's is kept apart.
    func connect() throws(SocketError) -> Double {
        let t0 = Clock.ms()
        let tcp = try TCPConnection.connect(address!, port: o.endpoint.port, name: o.endpoint.description, timeoutMs: Int32(o.connectTimeoutMs))
        let connectMs = Clock.ms() - t0
        lastConnectMs = connectMs
        if let options = o.tls {
            let t1 = Clock.ms()
            let t = try TLSConnection(over: tcp, options: options, timeoutMs: Int32(o.connectTimeoutMs))
            lastTLSMs = Clock.ms() - t1
            tlsInfo = t.info
            if let why = TLSConnection.refusal(t.info, options: options, peer: o.endpoint.description) { throw .protocolError(why) }
            connection = t
        } else {
            connection = tcp
        }
        decoder = SimplePush.Decoder(order: o.byteOrder, cap: o.frameCap)
        mqttDecoder = MQTT.Decoder(cap: o.frameCap)
        wsDecoder = WebSocket.Decoder(cap: o.frameCap)
        lineBuffer = []
        if o.proto == .mqtt || o.proto == .websocket {
            let t2 = Clock.ms()
            try handshake()
            lastHandshakeMs = Clock.ms() - t2
        }
        return connectMs
    }

    /// Reads until `done` says the bytes so far are enough, within the timeout.
    func readUntil(_ what: String, _ done: () throws(SocketError) -> Bool) throws(SocketError) {
        let deadline = Clock.ms() + o.connectTimeoutMs
        while try !done() {
            let left = deadline - Clock.ms()
            guard left > 0, let c = connection, let bytes = try c.receive(max: 65_536, timeoutMs: Int32(left)) else { throw .timeout(what) }
            if bytes.isEmpty { throw .protocolError("\(o.endpoint): the server closed the connection during \(what)") }
            // MQTT reads packets; the WebSocket upgrade reads an HTTP head, as text.
            switch o.proto {
            case .mqtt: mqttDecoder.feed(bytes[...])
            case .simplepush: decoder.feed(bytes[...])
            default: lineBuffer += bytes
            }
        }
    }

    /// The protocol's own handshake: MQTT CONNECT/CONNACK, the WebSocket upgrade.
    func handshake() throws(SocketError) {
        guard let c = connection else { return }
        switch o.proto {
        case .mqtt:
            try c.send(MQTT.connect(clientID: "pushdiag-\(getpid())-\(nextID)", keepAlive: o.keepAlive), timeoutMs: Int32(o.timeoutMs))
            var code: UInt8?
            try readUntil("the MQTT CONNECT") { () throws(SocketError) -> Bool in
                do throws(MQTT.DecodeError) {
                    while let p = try mqttDecoder.next() {
                        if p.type == MQTT.connack, p.body.count >= 2 { code = p.body[1]; return true }
                    }
                } catch { throw .protocolError("\(o.endpoint): \(error)") }
                return false
            }
            if let code, code != 0 { throw .protocolError("\(o.endpoint): MQTT connection refused: \(MQTT.connackReason(code))") }
        case .websocket:
            var rng = SystemRandomNumberGenerator()
            let key = Base64Text.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let host = o.endpoint.port == o.proto.defaultPort(tls: o.tls != nil) ? o.endpoint.host : o.endpoint.description
            try c.send(WebSocket.upgradeRequest(host: host, path: o.path, key: key), timeoutMs: Int32(o.timeoutMs))
            var head: String?
            try readUntil("the WebSocket upgrade") { () throws(SocketError) -> Bool in
                if lineBuffer.count >= 5, !lineBuffer.starts(with: Array("HTTP/".utf8)) {
                    let first = String(decoding: lineBuffer.prefix(while: { $0 != 10 && $0 != 13 }).prefix(80), as: UTF8.self)
                    throw .protocolError("\(o.endpoint): WebSocket upgrade failed: the server answered \"\(first)\", not HTTP")
                }
                guard let end = lineBuffer.firstRange(of: [13, 10, 13, 10]) else {
                    if lineBuffer.count > o.frameCap { throw .protocolError("\(o.endpoint): WebSocket upgrade response longer than \(o.frameCap) bytes") }
                    return false
                }
                head = String(decoding: lineBuffer[..<end.lowerBound], as: UTF8.self)
                wsDecoder.feed(lineBuffer[end.upperBound...])
                lineBuffer = []
                return true
            }
            if let why = WebSocket.checkResponse(head ?? "", key: key) { throw .protocolError("\(o.endpoint): WebSocket upgrade failed: \(why)") }
        default:
            break
        }
    }

    enum Outcome {
        case answered(Double)
        case lost
        case connectionLost(String)
    }

    /// One heartbeat on the open connection.
    func beat(_ n: Int) throws(SocketError) -> Outcome {
        guard let c = connection else { return .connectionLost("not connected") }
        let t0 = Clock.ms()
        let deadline = t0 + o.timeoutMs
        do throws(SocketError) {
            switch o.proto {
            case .simplepush:
                let id = nextID
                nextID &+= 1
                try c.send(SimplePush.frame(SimplePush.heartbeat(id: id, count: Int64(n)), order: o.byteOrder), timeoutMs: Int32(o.timeoutMs))
                while true {
                    while true {
                        let m: SimplePush.Message?
                        do throws(SimplePush.FramingError) { m = try decoder.next() } catch { throw SocketError.protocolError("\(o.endpoint): \(error)") }
                        guard let m else { break }
                        if m.isAcknowledge && m.requestIdentifier == id { return .answered(Clock.ms() - t0) }
                        if m.isRequest { try serverRequest(m, on: c) }
                    }
                    let left = deadline - Clock.ms()
                    if left <= 0 { return .lost }
                    guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(left)) else { return .lost }
                    if bytes.isEmpty { return .connectionLost("the server closed the connection") }
                    decoder.feed(bytes[...])
                }
            case .line:
                try c.send(Array((o.send + "\n").utf8), timeoutMs: Int32(o.timeoutMs))
                while true {
                    if let nl = lineBuffer.firstIndex(of: 10) {
                        let line = String(decoding: lineBuffer[..<nl], as: UTF8.self).trimmingSuffixCR()
                        lineBuffer.removeFirst(nl + 1)
                        guard (try? Regex(o.expect)).map({ line.contains($0) }) ?? line.contains(o.expect) else {
                            throw SocketError.protocolError("\(o.endpoint): reply \"\(line.prefix(80))\" does not match \"\(o.expect)\"")
                        }
                        return .answered(Clock.ms() - t0)
                    }
                    guard lineBuffer.count <= o.frameCap else {
                        throw SocketError.protocolError("\(o.endpoint): a reply line longer than \(o.frameCap) bytes")
                    }
                    let left = deadline - Clock.ms()
                    if left <= 0 { return .lost }
                    guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(left)) else { return .lost }
                    if bytes.isEmpty { return .connectionLost("the server closed the connection") }
                    lineBuffer += bytes
                }
            case .mqtt:
                try c.send(MQTT.pingRequest, timeoutMs: Int32(o.timeoutMs))
                while true {
                    do throws(MQTT.DecodeError) {
                        while let p = try mqttDecoder.next() {
                            if p.type == MQTT.pingresp { return .answered(Clock.ms() - t0) }
                        }
                    } catch { throw SocketError.protocolError("\(o.endpoint): \(error)") }
                    let left = deadline - Clock.ms()
                    if left <= 0 { return .lost }
                    guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(left)) else { return .lost }
                    if bytes.isEmpty { return .connectionLost("the server closed the connection") }
                    mqttDecoder.feed(bytes[...])
                }
            case .websocket:
                var rng = SystemRandomNumberGenerator()
                let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let payload = Array("pushdiag-\(n)".utf8)
                try c.send(WebSocket.frame(opcode: WebSocket.opPing, payload: payload, mask: mask), timeoutMs: Int32(o.timeoutMs))
                while true {
                    while true {
                        let frame: WebSocket.Frame?
                        do throws(WebSocket.DecodeError) { frame = try wsDecoder.next() } catch { throw SocketError.protocolError("\(o.endpoint): \(error)") }
                        guard let f = frame else { break }
                        if f.opcode == WebSocket.opPong && f.payload == payload { return .answered(Clock.ms() - t0) }
                        if f.opcode == WebSocket.opClose { return .connectionLost("the server closed the WebSocket") }
                        if f.opcode == WebSocket.opPing {
                            try c.send(WebSocket.frame(opcode: WebSocket.opPong, payload: f.payload, mask: mask), timeoutMs: Int32(o.timeoutMs))
                        }
                    }
                    let left = deadline - Clock.ms()
                    if left <= 0 { return .lost }
                    guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(left)) else { return .lost }
                    if bytes.isEmpty { return .connectionLost("the server closed the connection") }
                    wsDecoder.feed(bytes[...])
                }
            case .tcp:
                return .answered(0)  // handled by run(): every heartbeat is a fresh connection
            }
        } catch {
            switch error {
            case .closed: return .connectionLost("the server closed the connection")
            case .io(let what, let e): return .connectionLost("\(what): \(Errno.describe(e))")
            default: throw error
            }
        }
    }

    /// A request from the server (its heartbeat): acknowledge it, note when it came.
    func serverRequest(_ m: SimplePush.Message, on c: ByteStream) throws(SocketError) {
        if SimplePush.heartbeatCount(m) != nil { serverArrivals.append(Clock.ms()) }
        try c.send(SimplePush.frame(SimplePush.acknowledge(m), order: o.byteOrder), timeoutMs: Int32(o.timeoutMs))
        serverAcked += 1
    }

    /// Registers (simplepush, --register) and waits for the acknowledge.
    func registerUser(_ name: String) throws(SocketError) {
        guard let c = connection else { return }
        let id = nextID
        nextID &+= 1
        try c.send(SimplePush.frame(SimplePush.registration(id: id, name: name), order: o.byteOrder), timeoutMs: Int32(o.timeoutMs))
        var acked = false
        try readUntil("the registration") { () throws(SocketError) -> Bool in
            while true {
                let m: SimplePush.Message?
                do throws(SimplePush.FramingError) { m = try decoder.next() } catch { throw .protocolError("\(o.endpoint): \(error)") }
                guard let m else { return acked }
                if m.isAcknowledge && m.requestIdentifier == id { acked = true }
                else if m.isRequest { try serverRequest(m, on: c) }
            }
        }
        registeredAt = Clock.ms()
    }

    /// Waits until `until` (monotonic ms), answering whatever the server sends meanwhile.
    func idle(until: Double) throws(SocketError) {
        guard o.register != nil, o.proto == .simplepush else {
            sleep(ms: max(0, until - Clock.ms()))
            return
        }
        while !stop() {
            let left = until - Clock.ms()
            if left <= 0 { return }
            guard let c = connection else { sleep(ms: left); return }
            guard let bytes = try c.receive(max: 65_536, timeoutMs: Int32(min(left, 100))) else { continue }
            if bytes.isEmpty { return }  // the next heartbeat finds the connection closed
            decoder.feed(bytes[...])
            while true {
                let m: SimplePush.Message?
                do throws(SimplePush.FramingError) { m = try decoder.next() } catch { throw .protocolError("\(o.endpoint): \(error)") }
                guard let m else { break }
                if m.isRequest { try serverRequest(m, on: c) }
            }
        }
    }

    /// After a loss: reconnect on the schedule. True when connected again.
    func reconnect(after reason: String) -> Bool {
        connection = nil
        state("waiting", reason)
        for (i, delay) in o.schedule.enumerated() {
            sleep(ms: delay * 1000)
            if stop() { return false }
            state("preparing")
            let t0 = Clock.ms()
            do {
                let ms = try connect()
                if let name = o.register, o.proto == .simplepush { try registerUser(name) }
                reconnects.append(ReconnectAttempt(attempt: i + 1, delayS: delay, outcome: "connected", ms: ms))
                state("ready")
                return true
            } catch {
                reconnects.append(ReconnectAttempt(attempt: i + 1, delayS: delay, outcome: error.description, ms: Clock.ms() - t0))
                state("waiting", error.description)
            }
        }
        state("failed", "connection lost: the reconnect schedule (\(o.schedule.count) attempts) ran out")
        return false
    }

    public func run() -> HeartbeatReport {
        let target = o.endpoint.description
        var report = HeartbeatReport(target: target, protocol: o.proto.rawValue)
        state("setup")
        state("preparing")
        let r0 = Clock.ms()
        switch RouteChecker.resolve(o.endpoint.host) {
        case .success(let a): address = a
        case .failure(let e):
            state("failed", e.description)
            report.error = e.description
            report.states = states
            report.status = .unknown
            return report
        }
        report.address = address?.description
        report.resolveMs = NumberText.rounded(Clock.ms() - r0, places: 1000)
        var lost = false
        var protocolError: String?
        do throws(SocketError) {
            do throws(SocketError) {
                report.connectMs = NumberText.rounded(try connect(), places: 1000)
            } catch {
                // The handshake got far enough to show the certificate: report it.
                report.tls = tlsInfo
                report.tlsMs = lastTLSMs.map { NumberText.rounded($0, places: 1000) }
                report.connectMs = lastConnectMs.map { NumberText.rounded($0, places: 1000) }
                throw error
            }
            report.tlsMs = lastTLSMs.map { NumberText.rounded($0, places: 1000) }
            report.handshakeMs = lastHandshakeMs.map { NumberText.rounded($0, places: 1000) }
            report.tls = tlsInfo
            if let name = o.register, o.proto == .simplepush { try registerUser(name) }
            state("ready")
            var misses = 0
            var next = Clock.ms()
            for n in 1...max(o.count, 1) {
                if stop() { break }
                sent += 1
                var outcome: Outcome
                if o.proto == .tcp {
                    do { outcome = .answered(try connect()); connection = nil } catch { outcome = .lost }
                } else {
                    outcome = try beat(n)
                }
                switch outcome {
                case .answered(let ms):
                    received += 1
                    rtts.append(ms)
                    misses = 0
                case .lost:
                    misses += 1
                    if o.proto != .tcp && misses >= o.missesBeforeReconnect {
                        misses = 0
                        if !reconnect(after: "\(o.missesBeforeReconnect) heartbeats unanswered") { lost = true }
                    }
                case .connectionLost(let why):
                    if !reconnect(after: why) { lost = true }
                }
                if lost { break }
                next += o.intervalMs
                if n < o.count { try idle(until: next) }
            }
            if !lost {
                if o.proto == .mqtt { try? connection?.send(MQTT.disconnect, timeoutMs: 200) }
                if o.proto == .websocket { try? connection?.send(WebSocket.frame(opcode: WebSocket.opClose, payload: [0x03, 0xE8], mask: [1, 2, 3, 4]), timeoutMs: 200) }
                state("cancelled")
            }
        } catch {
            if case .protocolError(let why) = error {
                // The heartbeat that met garbage was not answered, but it was not lost either.
                protocolError = why
                if !why.hasPrefix("TLS") { sent = max(0, sent - 1) }
                state("failed", why)
            } else {
                // The first connection failed: nothing could be checked.
                state("failed", error.description)
                report.error = error.description
            }
        }
        report.sent = sent
        report.received = received
        report.lossPercent = sent > 0 ? NumberText.rounded(Double(sent - received) * 100 / Double(sent)) : 0
        report.rttMs = RTTSummary.of(rtts)
        report.jitterMs = RTTSummary.jitter(rtts)
        report.states = states
        report.reconnects = reconnects
        report.connectionLost = lost
        if o.register != nil && o.proto == .simplepush {
            let sh = ServerHeartbeats(registered: registeredAt != nil, arrivals: serverArrivals, registeredAt: registeredAt, acknowledged: serverAcked,
                                      timeoutS: o.serverHeartbeatTimeoutS, endedAt: Clock.ms())
            report.serverHeartbeats = sh
        }
        if let protocolError { report.error = protocolError }
        report.findings = HeartbeatAnalysis.findings(target: target, sent: sent, received: received, rtt: report.rttMs, connectionLost: lost, t: o.thresholds)
        if o.tls != nil, let e = report.error, e.hasPrefix("TLS") {
            // Devices would refuse this server: not "could not check" but a finding.
            report.findings.insert(Finding(check: "tls", severity: .critical, subject: target, value: 0, threshold: 0, unit: "handshake", source: "tls",
                                           message: e), at: 0)
        } else if let e = report.error {
            // The name resolved (a failure there returned above), so the server itself refused,
            // did not answer the connection or broke the protocol: devices cannot use it either.
            // A finding, critical as check_tcp has it, not "could not check".
            let connected = report.connectMs != nil
            report.findings.insert(Finding(check: connected ? "protocol" : "connect", severity: .critical, subject: target, value: 0, threshold: 0,
                                           unit: connected ? "handshake" : "connection", source: connected ? "protocol" : "connect",
                                           message: connected ? "\(e): devices cannot use this server either"
                                               : "\(e): devices cannot connect either; is the push server running and listening there, and is the path to it open?"),
                                   at: 0)
        }
        if let sh = report.serverHeartbeats, sh.registered, let gap = sh.longestGapMs, gap > o.serverHeartbeatTimeoutS * 1000 {
            report.findings.append(Finding(check: "server_heartbeat", severity: .critical, subject: target, value: NumberText.rounded(gap / 1000), threshold: o.serverHeartbeatTimeoutS,
                                           unit: "seconds", source: "server_heartbeats",
                                           message: "\(target): \(NumberText.format(gap / 1000)) s without a heartbeat from the server, above the \(NumberText.format(o.serverHeartbeatTimeoutS)) s after which a device reconnects"))
        }
        if let info = report.tls, info.daysLeft < 30 {
            let expired = info.daysLeft < 0
            report.findings.append(Finding(check: "tls_certificate", severity: expired ? .critical : .warning, subject: target, value: Double(info.daysLeft),
                                           threshold: expired ? 0 : 30, unit: "days", source: "tls",
                                           message: expired ? "\(target): the certificate expired on \(info.notAfter)" : "\(target): the certificate expires in \(info.daysLeft) days (\(info.notAfter))"))
        }
        report.status = report.findings.map(\.severity).max() ?? .ok
        if report.error != nil { report.status = max(report.status, .unknown) }
        return report
    }
}

extension String {
    func trimmingSuffixCR() -> String { hasSuffix("\r") ? String(dropLast()) : self }
}
