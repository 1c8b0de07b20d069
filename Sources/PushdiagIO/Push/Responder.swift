import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

public struct ResponderOptions: Sendable {
    public var endpoint: Endpoint
    public var proto: HeartbeatProtocol
    public var byteOrder: SimplePush.ByteOrder = .little
    /// Added before every answer.
    public var delayMs: Double = 0
    /// Share of requests left unanswered (0…1), drawn from a seeded generator.
    public var dropRatio: Double = 0
    /// Close a connection after answering this many requests.
    public var closeAfter: Int?
    /// Heartbeats sent to registered SimplePush clients, this far apart.
    public var heartbeatIntervalMs: Double = 30_000
    /// line: the answer to every line.
    public var reply = "PONG"
    public var seed: UInt64 = 1
    public var frameCap = 65_536
    /// TLS: certificate chain and key (PEM).
    public var tlsCertificate: String?
    public var tlsKey: String?

    public init(endpoint: Endpoint, proto: HeartbeatProtocol) {
        self.endpoint = endpoint
        self.proto = proto
    }
}

/// A small reference push server: answers SimplePush requests with acknowledges (and sends its
/// own heartbeats to registered clients) or lines with a fixed reply, injecting the faults asked
/// for. One thread, epoll, ten thousand clients and more (TLS included).
public final class Responder {
    final class Client {
        let conn: TCPConnection
        /// TLS over `conn`, when the responder serves TLS; otherwise `conn` itself.
        var tls: TLSServerConnection?
        var stream: ByteStream { tls ?? conn }
        /// The protocol's side of the connection.
        var server: any PushServer
        var answered = 0
        var registered = false
        var nextHeartbeat: Double = .infinity
        var heartbeatCount: Int64 = 0
        var outgoing: [(due: Double, bytes: [UInt8], closeAfter: Bool)] = []
        var closed = false
        /// Identifies the client in the deadline heap (a descriptor number is reused).
        let serial: Int
        /// The deadline this client has in the heap (infinity: none).
        var timerAt = Double.infinity
        init(_ c: TCPConnection, server: any PushServer, serial: Int) {
            conn = c
            self.serial = serial
            self.server = server
        }
    }

    let o: ResponderOptions
    let listener: TCPListener
    let tlsContext: TLSServerContext?
    var rng: SeededRandom
    public private(set) var requests = 0
    public private(set) var dropped = 0
    public private(set) var connections = 0
    /// TLS handshakes that resumed an earlier session (a ticket or a cached session ID).
    public private(set) var resumed = 0

    let settings: PushServerSettings

    public init(_ o: ResponderOptions) throws(ConnectionFailure) {
        self.o = o
        var settings = PushServerSettings()
        settings.byteOrder = o.byteOrder
        settings.reply = o.reply
        settings.frameCap = o.frameCap
        self.settings = settings
        guard o.proto.definition.server(settings) != nil else {
            throw .protocolViolation("the responder serves \(HeartbeatProtocol.names(HeartbeatProtocol.with(.serve))), not \(o.proto)")
        }
        if let cert = o.tlsCertificate, let key = o.tlsKey {
            tlsContext = try TLSServerContext(certificate: cert, key: key)
        } else {
            tlsContext = nil
        }
        listener = try TCPListener(o.endpoint)
        rng = SeededRandom(seed: o.seed)
    }

    /// Bytes from a client: its protocol's answers, counted and faulted as asked.
    func handle(_ c: Client, _ bytes: [UInt8], now: Double) {
        let actions: [PushServerAction]
        do throws(FramingError) { actions = try c.server.receive(bytes[...]) } catch {
            c.closed = true  // a client speaking something else: hang up
            return
        }
        for a in actions {
            switch a {
            case .answer(let bytes):
                requests += 1
                if o.dropRatio > 0 && rng.next() < o.dropRatio {
                    dropped += 1
                    continue
                }
                c.answered += 1
                let last = o.closeAfter.map { c.answered >= $0 } ?? false
                c.outgoing.append((now + o.delayMs, bytes, last))
            case .send(let bytes, let close): c.outgoing.append((now, bytes, close))
            case .registered:
                guard !c.registered else { continue }
                c.registered = true
                c.nextHeartbeat = now + o.heartbeatIntervalMs
            }
        }
    }

    /// Serves until `stop()` says so: epoll for readiness (level-triggered, as poll(2) was, so a
    /// connection costs nothing while it is quiet), a deadline heap for delayed answers and the
    /// server's own heartbeats.
    public func run(stop: () -> Bool) {
        let events: EventPoll
        do { events = try EventPoll() } catch { return }
        _ = events.add(listener.fd, .readable)
        var byFD: [Int32: Client] = [:]
        var timers = DeadlineHeap()
        var serial = 0
        var nextID: UInt32 = 0x8000_0000
        // At the open-file limit accept fails while the listener stays readable: stop asking for
        // 100 ms instead of waking at once, again and again.
        var acceptAgainAt = 0.0
        var listening = true
        var closing: [Client] = []

        /// Sends what is due, starts the server's heartbeat when one is due, and sets a deadline
        /// for what comes next.
        func flush(_ c: Client, _ t: Double) {
            guard !c.closed else { return }
            if c.registered, t >= c.nextHeartbeat {
                c.heartbeatCount += 1
                nextID &+= 1
                if let beat = c.server.serverHeartbeat(id: nextID, count: c.heartbeatCount) { c.outgoing.append((t, beat, false)) }
                c.nextHeartbeat = t + o.heartbeatIntervalMs
            }
            while let first = c.outgoing.first, first.due <= t {
                c.outgoing.removeFirst()
                do { try c.stream.send(first.bytes, timeoutMs: 1000) } catch {
                    c.closed = true
                    break
                }
                if first.closeAfter {
                    c.closed = true
                    break
                }
            }
            if c.closed {
                closing.append(c)
                return
            }
            let next = min(c.outgoing.first?.due ?? .infinity, c.registered ? c.nextHeartbeat : .infinity)
            if next.isFinite, next < c.timerAt || c.timerAt <= t {
                c.timerAt = next
                timers.push(at: next, owner: c.serial)
            }
        }
        var bySerial: [Int: Client] = [:]

        while !stop() {
            var now = Clock.ms()
            if !listening, now >= acceptAgainAt, case .success = events.modify(listener.fd, .readable) { listening = true }
            let due = min(timers.earliest ?? .infinity, listening ? .infinity : acceptAgainAt)
            let waitMs = Int32(max(0, min(200, (due - now).rounded(.up))))
            events.wait(timeoutMs: waitMs) { fd, ready in
                let t = Clock.ms()
                if fd == listener.fd {
                    // A bounded batch per wake, so connections already accepted keep moving
                    // during a storm.
                    for _ in 0..<64 {
                        guard let accepted = listener.accept() else { break }
                        guard case .success(let c) = accepted else {
                            acceptAgainAt = t + 100
                            if case .success = events.modify(listener.fd, []) { listening = false }
                            break
                        }
                        serial += 1
                        guard let server = o.proto.definition.server(settings) else { continue }
                        let client = Client(c, server: server, serial: serial)
                        if let ctx = tlsContext {
                            guard let tls = try? TLSServerConnection(over: c, context: ctx) else { continue }
                            client.tls = tls
                            if (try? tls.handshakeStep()) == true, tls.resumed { resumed += 1 }
                        }
                        guard case .success = events.add(c.fd, .readable) else { continue }
                        byFD[c.fd] = client
                        bySerial[client.serial] = client
                        connections += 1
                    }
                    return
                }
                guard let c = byFD[fd], !c.closed else { return }
                if let tls = c.tls, !tls.established {
                    do {
                        if try !tls.handshakeStep() { return }
                        if tls.resumed { resumed += 1 }
                    } catch {
                        c.closed = true
                        closing.append(c)
                        return
                    }
                }
                guard let bytes = try? c.stream.receive(max: 65_536, timeoutMs: 0) else {
                    if !ready.isDisjoint(with: [.hangup, .error]) {
                        c.closed = true
                        closing.append(c)
                    }
                    return
                }
                if bytes.isEmpty {
                    c.closed = true
                    closing.append(c)
                    return
                }
                handle(c, bytes, now: t)
                if c.closed {
                    closing.append(c)
                    return
                }
                flush(c, t)
            }
            now = Clock.ms()
            while let entry = timers.popDue(now) {
                guard let c = bySerial[entry.owner], c.timerAt == entry.at else { continue }
                c.timerAt = .infinity
                flush(c, now)
            }
            for c in closing where byFD[c.conn.fd] === c {
                byFD[c.conn.fd] = nil
                bySerial[c.serial] = nil
            }
            closing.removeAll(keepingCapacity: true)
        }
    }
}
