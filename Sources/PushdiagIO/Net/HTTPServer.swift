import Foundation
import PushdiagCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request as a route sees it: its head and the client's address (no port).
public struct HTTPServerRequest: Sendable {
    public var head: HTTPRequestHead
    /// The client's address as limits count it (`IPAddress.client`).
    public var client: String
    /// Its /64 when it is an IPv6 client, which limits count too (`ClientShares`).
    public var subnet: String?
}

/// What goes back for one request: the status, header fields of the route's own (the
/// content type among them) and the body. The server adds `Date` (RFC 9110 §6.6.1),
/// `Content-Length`, `Connection: close` when the connection ends after it, and leaves the body
/// out for HEAD.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var fields: [HTTPHeaderField]
    public var body: [UInt8]

    public init(status: Int, fields: [HTTPHeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The reason phrases of the statuses pushdiag answers (RFC 9110 §15); others get none.
    static let reasons: [Int: String] = [
        200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        413: "Content Too Large", 429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
        503: "Service Unavailable", 505: "HTTP Version Not Supported",
    ]

    /// The response's bytes for `head` (its version; no body for HEAD), sent at `date` (an
    /// IMF-fixdate, `Timestamp.httpDate`).
    func bytes(for head: HTTPRequestHead?, date: String) -> [UInt8] {
        let minor = head?.minorVersion ?? 1
        var text = "HTTP/1.\(minor) \(status) \(Self.reasons[status] ?? "")\r\nDate: \(date)\r\n"
        for f in fields { text += "\(f.name): \(f.value)\r\n" }
        text += "Content-Length: \(body.count)\r\n"
        if !(head?.keepAlive ?? false) {
            text += "Connection: close\r\n"
        } else if head?.minorVersion == 0 {
            text += "Connection: keep-alive\r\n"  // an HTTP/1.0 client keeps it only when told
        }
        text += "\r\n"
        var out = Array(text.utf8)
        if head?.method != "HEAD" { out += body }
        return out
    }
}

/// pushdiag's HTTP/1.1 server (the exporter's): one thread on epoll, keep-alive and pipelined
/// requests answered in order, TLS through `TLSMemorySession` when `tls` gives a context (asked
/// per connection, so a reload takes effect for the next one). The routes' `answer` may reply
/// from any thread; the loop writes the reply. A request the parser refuses gets its status
/// (400, 413, 431, 505) and the connection is closed; so is one silent for `idleSeconds` with
/// nothing owed to it, and one whose TLS handshake fails (the alert is sent first).
///
/// A connection is read only while nothing is owed to it: the next pipelined request waits in
/// the socket, not in memory. At most `maxConnections` are served at once; more wait in the
/// listen backlog. One client address (`IPAddress.client`) holds at most `maxPerClient` of them
/// (a quarter, above the exporter's 64 probes at once and a scrape beside them), and one IPv6
/// /64 twice that (`ClientShares`: a host's temporary addresses do not multiply its share): a
/// connection past that is closed as it is accepted, so that one host cannot take every slot
/// from Prometheus (nginx's limit_conn and Apache's MaxClientsPerIP are the bar). A proxy in
/// front is one address.
public final class HTTPServer: Sendable {
    public typealias Answer = @Sendable (HTTPServerRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void

    /// The port bound (the one asked, or the kernel's choice for port 0).
    public let port: UInt16
    let mailbox = Mailbox()
    let finished = Wakeup()

    /// Replies from the routes' threads to the loop (each for one request, by its serial), and
    /// the start's outcome and the stop.
    final class Mailbox: Sendable {
        let replies = Mutex<[(request: UInt64, response: HTTPResponse)]>([])
        let wakeup = Wakeup()
        let stopping = Atomic<Bool>(false)
        let started = Mutex<Result<UInt16, ConnectionFailure>?>(nil)
        /// Connections open, as the loop last counted them.
        let open = Atomic<Int>(0)

        func post(_ request: UInt64, _ response: HTTPResponse) {
            replies.withLock { $0.append((request, response)) }
            wakeup.ring()
        }
    }

    /// Listens on `endpoint` and starts the loop's thread. A port that cannot be had throws.
    public init(
        endpoint: Endpoint, idleSeconds: Double = 60, firstRequestSeconds: Double = 10, maxConnections: Int = 512, maxPerClient: Int = 128,
        tls: @escaping @Sendable () -> TLSServerContext?, answer: @escaping Answer
    ) throws(ConnectionFailure) {
        let ready = Wakeup()
        let (mailbox, finished) = (mailbox, finished)
        // The listener is the loop's alone (made on its thread), so that it is closed with the
        // loop, before `finished` rings.
        let thread = Thread {
            do throws(ConnectionFailure) {
                let loop = try ServerLoop(
                    listener: try TCPListener(endpoint), mailbox: mailbox, idleMs: idleSeconds * 1000, firstRequestMs: firstRequestSeconds * 1000,
                    maxConnections: maxConnections, maxPerClient: maxPerClient, tls: tls, answer: answer)
                mailbox.started.withLock { $0 = .success(loop.listener.boundPort) }
                ready.ring()
                loop.run { mailbox.stopping.load(ordering: .relaxed) }
            } catch {
                mailbox.started.withLock { $0 = .failure(error) }
                ready.ring()
            }
            finished.ring()
        }
        thread.name = "http"
        thread.start()
        ready.wait(ms: nil)
        switch mailbox.started.withLock({ $0 }) {
        case .success(let p): port = p
        case .failure(let failure): throw failure
        case nil: throw .io("the HTTP server's thread did not start", errno: Errno(EAGAIN))
        }
    }

    /// Connections open now (for tests).
    var openConnections: Int { mailbox.open.load(ordering: .relaxed) }

    /// Stops serving: the listener and every connection closed when this returns (a second
    /// call waits as the first does).
    public func close() {
        mailbox.stopping.store(true, ordering: .relaxed)
        mailbox.wakeup.ring()
        finished.wait(ms: nil)
    }
}

/// The loop's state, owned by its thread.
final class ServerLoop {
    final class Connection {
        let socket: TCPConnection
        let client: String
        let subnet: String?
        let tls: TLSMemorySession?
        var parser = HTTPRequestParser()
        /// Bytes to send, from `sent` on.
        var out: [UInt8] = []
        var sent = 0
        /// The request whose answer the route owes, and its serial (a reply for another is
        /// dropped).
        var owed: HTTPRequestHead?
        var owedSerial: UInt64 = 0
        var closeAfterWrite = false
        var readClosed = false
        /// Closing: our side shut, the client's bytes read and dropped until it closes or this
        /// time comes (a close with unread bytes would reset the connection, and the client
        /// could lose the answer before reading it).
        var lingerUntilMs: Double?
        var saidGoodbye = false
        var lastActivityMs: Double
        /// When the bytes of a request not yet whole began to come (nil between requests): a
        /// head must be whole within the idle time, however slowly it trickles (a slow loris
        /// would otherwise hold a connection with a byte a minute).
        var partialSinceMs: Double?
        /// When it was accepted, and whether a whole request head came since: a connection must
        /// bring its first within `firstRequestMs` (its TLS handshake too), as Go's servers'
        /// ReadHeaderTimeout asks, so that silent connections cannot hold the server's
        /// `maxConnections` for the idle time each.
        let openedMs: Double
        var headSeen = false

        init(socket: TCPConnection, client: (address: String, subnet: String?), tls: TLSMemorySession?, now: Double) {
            self.socket = socket
            (self.client, self.subnet) = client
            self.tls = tls
            lastActivityMs = now
            openedMs = now
        }
    }

    let listener: TCPListener
    let mailbox: HTTPServer.Mailbox
    let events: EventPoll
    let idleMs: Double
    let firstRequestMs: Double
    let maxConnections: Int
    let maxPerClient: Int
    /// Connections open per client address, and per IPv6 /64 (`ClientShares`).
    var perClient: [String: Int] = [:]
    let tls: @Sendable () -> TLSServerContext?
    let answer: HTTPServer.Answer
    var connections: [Int32: Connection] = [:]
    /// The connection a request's serial belongs to.
    var owedBy: [UInt64: Int32] = [:]
    var nextSerial: UInt64 = 0
    var accepting = true
    /// accept(2) failed (the open-file limit): the listener rests until then.
    var acceptPausedUntilMs: Double?
    var stopping = false
    /// Connections accepted (or refused) in one turn of the loop; the listener, level-triggered,
    /// wakes the next turn at once when more wait.
    static let acceptsPerWake = 64
    /// What one read takes, reused by every connection (one thread reads).
    var buffer = [UInt8](repeating: 0, count: 16_384)

    init(
        listener: TCPListener, mailbox: HTTPServer.Mailbox, idleMs: Double, firstRequestMs: Double, maxConnections: Int, maxPerClient: Int,
        tls: @escaping @Sendable () -> TLSServerContext?, answer: @escaping HTTPServer.Answer
    ) throws(ConnectionFailure) {
        (self.listener, self.mailbox, self.idleMs, self.firstRequestMs, self.maxConnections, self.maxPerClient, self.tls, self.answer) =
            (listener, mailbox, idleMs, firstRequestMs, maxConnections, maxPerClient, tls, answer)
        events = try EventPoll(batch: 256)
        for fd in [listener.fd, mailbox.wakeup.descriptor.rawValue] {
            if case .failure(let e) = events.add(fd, .readable) { throw .io("cannot watch the HTTP server's descriptors", errno: e) }
        }
    }

    func run(until stop: () -> Bool) {
        var lastSweep = Clock.ms()
        while !stop() {
            events.wait(timeoutMs: 1000) { fd, ready in handle(fd, ready) }
            let now = Clock.ms()
            if !accepting, let until = acceptPausedUntilMs, now >= until { acceptWaiting() }
            if now - lastSweep >= 1000 {
                lastSweep = now
                // Silent (nothing read, nothing of the answer taken by the client) for the idle
                // time, or a request not whole after it, or no first request after
                // `firstRequestMs`, with no answer owed; a lingering close past its time.
                for c in connections.values {
                    if let until = c.lingerUntilMs {
                        if now >= until { close(c) }
                    } else if c.owed == nil,
                        now - c.lastActivityMs >= idleMs || now - (c.partialSinceMs ?? now) >= idleMs || (!c.headSeen && now - c.openedMs >= firstRequestMs)
                    {
                        close(c)
                    }
                }
            }
        }
        stopping = true
        for c in Array(connections.values) { close(c) }
    }

    func handle(_ fd: Int32, _ ready: EventPoll.Events) {
        if fd == listener.fd {
            acceptWaiting()
        } else if fd == mailbox.wakeup.descriptor.rawValue {
            _ = mailbox.wakeup.take()
            let replies = mailbox.replies.withLock { r in
                let all = r
                r = []
                return all
            }
            for (serial, response) in replies { deliver(response, to: serial) }
        } else if let c = connections[fd] {
            // A hang-up on TCP is both directions shut (or reset): no answer can go out. Reported
            // whatever the interest, so it is never left standing.
            if !ready.isDisjoint(with: [.hangup, .error]) { return close(c) }
            if ready.contains(.readable) { read(c) }
            if ready.contains(.writable), connections[fd] === c { flush(c) }
        }
    }

    func acceptWaiting() {
        if stopping { return }
        if let until = acceptPausedUntilMs {
            guard Clock.ms() >= until else { return }
            acceptPausedUntilMs = nil
        }
        // At most `acceptsPerWake` a wake, refused ones included: one host refilling the backlog
        // would otherwise keep the loop accepting and closing, and every reply waiting.
        var budget = Self.acceptsPerWake
        while connections.count < maxConnections, budget > 0, let accepted = listener.accept() {
            budget -= 1
            guard case .success(let socket) = accepted else {
                // The open-file limit (or another failure): the listener, level-triggered, would
                // wake the loop at once forever; it rests a quarter of a second instead.
                acceptPausedUntilMs = Clock.ms() + 250
                break
            }
            // One address past its share: closed as it comes (the socket goes with this scope).
            let client = Self.peer(socket.fd)
            let keys = ClientShares.keys(client: client.address, subnet: client.subnet)
            guard keys.allSatisfy({ perClient[$0.key, default: 0] < $0.shares * maxPerClient }) else { continue }
            var session: TLSMemorySession?
            if let context = tls() {
                do throws(ConnectionFailure) { session = try TLSMemorySession(context: context) } catch { continue }
            }
            let c = Connection(socket: socket, client: client, tls: session, now: Clock.ms())
            guard case .success = events.add(socket.fd, .readable) else { continue }
            connections[socket.fd] = c
            for k in keys { perClient[k.key, default: 0] += 1 }
            mailbox.open.store(connections.count, ordering: .relaxed)
        }
        // At the limit the listener rests until a connection closes; after a failure, its time.
        let rest = connections.count >= maxConnections || acceptPausedUntilMs != nil
        if rest == accepting {
            accepting = !rest
            if rest { events.remove(listener.fd) } else { _ = events.add(listener.fd, .readable) }
        }
    }

    func read(_ c: Connection) {
        let got = buffer.withUnsafeMutableBytes { b in recv(c.socket.fd, b.baseAddress, b.count, Int32(MSG_DONTWAIT)) }
        if got < 0 {
            let e = Errno.current
            if e == .wouldBlock || e == .interrupted { return }
            return close(c)
        }
        if c.lingerUntilMs != nil {
            if got == 0 { close(c) }  // the client's close ends the linger; its bytes are dropped
            return
        }
        if got == 0 {
            c.readClosed = true
            return advance(c)
        }
        c.lastActivityMs = Clock.ms()
        if c.partialSinceMs == nil { c.partialSinceMs = c.lastActivityMs }
        if let tls = c.tls {
            buffer.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            let plaintext: [UInt8]
            do throws(ConnectionFailure) { plaintext = try tls.read() } catch {
                c.out += tls.takeOutput()  // the alert, if OpenSSL made one
                c.closeAfterWrite = true
                return flush(c)
            }
            c.out += tls.takeOutput()
            c.parser.feed(plaintext)
        } else {
            buffer.withUnsafeBytes { c.parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
        }
        advance(c)
    }

    /// The next request when nothing is owed and nothing waits to be sent; then what to watch.
    func advance(_ c: Connection) {
        if c.owed == nil, c.out.count == c.sent, !c.closeAfterWrite, let next = c.parser.next() {
            switch next {
            case .success(let head):
                c.partialSinceMs = nil
                c.headSeen = true
                nextSerial += 1
                (c.owed, c.owedSerial) = (head, nextSerial)
                owedBy[nextSerial] = c.socket.fd
                let (mailbox, serial) = (mailbox, nextSerial)
                answer(HTTPServerRequest(head: head, client: c.client, subnet: c.subnet)) { mailbox.post(serial, $0) }
            case .failure(let error):
                send(HTTPResponse(status: error.status), for: nil, to: c)
                return
            }
        }
        if c.readClosed, c.owed == nil, c.out.count == c.sent { return close(c) }
        var interest: EventPoll.Events = []
        if c.out.count > c.sent { interest.insert(.writable) }
        if c.owed == nil, !c.readClosed, !c.closeAfterWrite, c.out.count == c.sent { interest.insert(.readable) }
        _ = events.modify(c.socket.fd, interest)
    }

    /// The reply to request `serial`; dropped when its connection closed meanwhile, or when the
    /// route already replied.
    func deliver(_ response: HTTPResponse, to serial: UInt64) {
        guard let fd = owedBy.removeValue(forKey: serial), let c = connections[fd], c.owedSerial == serial, let head = c.owed else { return }
        c.owed = nil
        send(response, for: head, to: c)
    }

    /// The `Date` field's value, made once a second.
    var dateMade: (second: Int64, text: String) = (.min, "")
    func date() -> String {
        let now = WallClock.nanoseconds() / 1_000_000_000
        if now != dateMade.second { dateMade = (now, Timestamp.httpDate(seconds: now)) }
        return dateMade.text
    }

    /// Queues the response (encrypted under TLS) and sends what the socket takes.
    func send(_ response: HTTPResponse, for head: HTTPRequestHead?, to c: Connection) {
        var bytes = response.bytes(for: head, date: date())
        if !(head?.keepAlive ?? false) { c.closeAfterWrite = true }
        if let tls = c.tls {
            let failure = bytes.withUnsafeBytes { b -> ConnectionFailure? in
                do throws(ConnectionFailure) { try tls.write(b) } catch { return error }
                return nil
            }
            if failure != nil { return close(c) }
            bytes = tls.takeOutput()
        }
        c.out += bytes
        flush(c)
    }

    func flush(_ c: Connection) {
        while c.sent < c.out.count {
            let n = c.out.withUnsafeBytes { b in Glibc.send(c.socket.fd, b.baseAddress! + c.sent, b.count - c.sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 {
                let e = Errno.current
                if e == .interrupted { continue }
                if e == .wouldBlock { break }
                return close(c)
            }
            c.sent += n
            c.lastActivityMs = Clock.ms()
        }
        if c.sent == c.out.count {
            c.out.removeAll(keepingCapacity: true)
            c.sent = 0
            if c.closeAfterWrite { return finish(c) }
        }
        advance(c)
    }

    /// The client's address as every limit per client counts it (`IPAddress.client`), "" when the
    /// kernel does not say, and its /64 when it is IPv6 (`ClientShares`).
    static func peer(_ fd: Int32) -> (address: String, subnet: String?) {
        let a = SocketAddress(of: fd, peer: true)?.address
        return (a?.client ?? "", a?.subnet64)
    }

    /// The last answer sent: goodbye, then the lingering close (or the close, when the client
    /// has closed already).
    func finish(_ c: Connection) {
        sayGoodbye(c)
        if c.readClosed { return close(c) }
        shutdown(c.socket.fd, Int32(SHUT_WR))
        c.lingerUntilMs = Clock.ms() + 2000
        _ = events.modify(c.socket.fd, .readable)
    }

    /// TLS's close_notify, what the socket takes of it.
    func sayGoodbye(_ c: Connection) {
        guard let tls = c.tls, !c.saidGoodbye else { return }
        c.saidGoodbye = true
        tls.shutdown()
        let bye = tls.takeOutput()
        if !bye.isEmpty { _ = bye.withUnsafeBytes { Glibc.send(c.socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } }
    }

    /// Forgets the connection (its descriptor closes with it).
    func close(_ c: Connection) {
        guard connections[c.socket.fd] === c else { return }
        sayGoodbye(c)
        events.remove(c.socket.fd)
        connections[c.socket.fd] = nil
        for k in ClientShares.keys(client: c.client, subnet: c.subnet) {
            perClient[k.key, default: 1] -= 1
            if perClient[k.key] == 0 { perClient[k.key] = nil }
        }
        mailbox.open.store(connections.count, ordering: .relaxed)
        if c.owed != nil { owedBy[c.owedSerial] = nil }
        if !accepting { acceptWaiting() }
    }
}
