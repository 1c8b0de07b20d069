import Foundation
import PushdiagCore
import Synchronization
import Testing

@testable import PushdiagIO

/// pushdiag's HTTP/1.1 server on loopback, spoken to byte by byte: pipelined requests answered
/// in order whatever order the routes finish in, HEAD without a body, HTTP/1.0 closed after its
/// answer, refused heads answered with their status and closed, a silent connection closed, and
/// no more than the allowed connections served at once. (The exporter's tests drive it with
/// curl, Prometheus and a browser over TLS.)
struct HTTPServerTests {
    /// A server whose routes answer `path client` in the body; /slow answers from another
    /// thread after 300 ms, so that a later request's answer is ready first, /slower after 2 s.
    func server(idleSeconds: Double = 60, firstRequestSeconds: Double = 10, maxConnections: Int = 512, maxPerClient: Int = 64) throws -> HTTPServer {
        try HTTPServer(
            endpoint: Endpoint(host: "127.0.0.1", port: 0), idleSeconds: idleSeconds, firstRequestSeconds: firstRequestSeconds,
            maxConnections: maxConnections, maxPerClient: maxPerClient, tls: { nil },
            answer: {
                request, reply in
                let body = Array("\(request.head.path) \(request.client)".utf8)
                let response = HTTPResponse(status: 200, fields: [HTTPHeaderField(name: "Content-Type", value: "text/plain")], body: body)
                if request.head.path == "/big" {
                    reply(HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 1 << 20)))
                } else if let delay = ["/slow": 300_000, "/slower": 2_000_000][request.head.path] {
                    Thread.detachNewThread {
                        usleep(UInt32(delay))
                        reply(response)
                    }
                } else {
                    reply(response)
                }
            })
    }

    func connect(_ s: HTTPServer) throws -> TCPConnection {
        try TCPConnection.connect(IPAddress("127.0.0.1")!, port: s.port, name: "server", timeoutMs: 5000)
    }

    /// What the server sends until it closes (or `seconds` pass: nil).
    func untilClosed(_ c: TCPConnection, seconds: Double = 5) throws -> String? {
        var got: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let bytes = try c.receive(max: 65_536, timeoutMs: 100) else { continue }
            if bytes.isEmpty { return String(decoding: got, as: UTF8.self) }
            got += bytes
        }
        return nil
    }

    /// `text` without its `Date` fields, each checked: right after the status line, the time of
    /// the answer (a second either way) as an IMF-fixdate. nil when one is missing or wrong.
    func undated(_ text: String) -> String? {
        let now = Int64(Date().timeIntervalSince1970)
        let times = Set((now - 2...now + 1).map { Timestamp.httpDate(seconds: $0) })
        var lines = text.components(separatedBy: "\r\n")
        var i = 0
        while i < lines.count {
            if lines[i].range(of: #"HTTP/1\.[01] [0-9]{3}"#, options: .regularExpression) != nil {
                guard i + 1 < lines.count, lines[i + 1].hasPrefix("Date: "), times.contains(String(lines[i + 1].dropFirst(6))) else { return nil }
                lines.remove(at: i + 1)
            }
            i += 1
        }
        return lines.joined(separator: "\r\n")
    }

    /// (The second request's target is in absolute form: routed by its path.)
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let s = try server()
        defer { s.close() }
        let c = try connect(s)
        try c.send(
            Array(
                "GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET http://a/fast?x=1 HTTP/1.1\r\nHost: a\r\n\r\nHEAD /head HTTP/1.1\r\nHost: a\r\n\r\nGET /last HTTP/1.0\r\n\r\n"
                    .utf8), timeoutMs: 5000)
        let dated = try #require(try untilClosed(c), "the server did not close after the HTTP/1.0 request")
        let text = try #require(undated(dated), "a Date field missing or wrong: \(dated)")
        #expect(
            text == """
                HTTP/1.1 200 OK\r
                Content-Type: text/plain\r
                Content-Length: 15\r
                \r
                /slow 127.0.0.1\
                HTTP/1.1 200 OK\r
                Content-Type: text/plain\r
                Content-Length: 15\r
                \r
                /fast 127.0.0.1\
                HTTP/1.1 200 OK\r
                Content-Type: text/plain\r
                Content-Length: 15\r
                \r
                HTTP/1.0 200 OK\r
                Content-Type: text/plain\r
                Content-Length: 15\r
                Connection: close\r
                \r
                /last 127.0.0.1
                """, "\(text)")
    }

    @Test func refusedHeadsGetTheirStatusAndTheConnectionCloses() throws {
        let s = try server()
        defer { s.close() }
        let cases: [(String, String)] = [
            ("GET / HTTP/1.1\r\nHost: t\r\nNo colon here\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"),
            ("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + String(repeating: "a", count: 40_000) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large"),
            ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("GET /metrics HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            ("GET /metrics HTTP/1.1\r\nHost: a b\r\n\r\n", "HTTP/1.1 400 Bad Request"),
            // A good request first: answered, then the bad one refused.
            ("GET /ok HTTP/1.1\r\nHost: t\r\n\r\nGET /\u{1}bad HTTP/1.1\r\nHost: t\r\n\r\n", "HTTP/1.1 200 OK"),
        ]
        for (request, status) in cases {
            let c = try connect(s)
            try? c.send(Array(request.utf8), timeoutMs: 5000)
            let dated = try #require(try untilClosed(c), "not closed after \(request.prefix(40).debugDescription)")
            let text = try #require(undated(dated), "a Date field missing or wrong: \(dated)")
            let refusal = (status == "HTTP/1.1 200 OK" ? "HTTP/1.1 400 Bad Request" : status) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            #expect(text.hasPrefix(status + "\r\n") && text.hasSuffix(refusal), "\(request.prefix(40).debugDescription): \(text.prefix(300))")
        }
    }

    @Test func aSilentConnectionIsClosedButNotOneWaitingForItsAnswer() throws {
        let s = try server(idleSeconds: 1)
        defer { s.close() }
        let silent = try connect(s)
        let t0 = Date()
        #expect(try untilClosed(silent, seconds: 5) == "")
        #expect(Date().timeIntervalSince(t0) >= 0.9, "closed before it had been silent for a second")
        // Owed an answer for twice the idle time: answered, then (keep-alive) closed once
        // silent for the idle time.
        let kept = try connect(s)
        try kept.send(Array("GET /slower HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
        let text = try #require(try untilClosed(kept, seconds: 6))
        #expect(text.hasSuffix("/slower 127.0.0.1"), "\(text)")
    }

    /// A connection that brings no request within the first-request time is closed, though the
    /// idle time is longer (silent connections would otherwise hold the connection limit for a
    /// minute each); one that brought a request keeps the idle time.
    @Test func aConnectionWithNoFirstRequestIsClosedSooner() throws {
        let s = try server(idleSeconds: 60, firstRequestSeconds: 1)
        defer { s.close() }
        let served = try connect(s)
        try served.send(Array("GET /1 HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try served.receive(max: 4096, timeoutMs: 5000)?.isEmpty == false)
        // Taken before the connection: its second runs from the server's accept, after this.
        let t0 = Date()
        let silent = try connect(s)
        #expect(waitFor(s, open: 2))
        #expect(try untilClosed(silent, seconds: 5) == "", "still open after 5 s with no request")
        #expect(Date().timeIntervalSince(t0) >= 0.9, "closed before its second")
        #expect(waitFor(s, open: 1), "the served connection went too")
        // Later requests on the served one are not held to the first-request time.
        try served.send(Array("GET /2 HTTP/1.0\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try untilClosed(served)?.hasSuffix("/2 127.0.0.1") == true)
    }

    /// Waits up to `seconds` for the server to have `n` connections open.
    func waitFor(_ s: HTTPServer, open n: Int, seconds: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if s.openConnections == n { return true }
            usleep(20_000)
        }
        return s.openConnections == n
    }

    @Test func aClientThatHalfClosesThenResetsWhileOwedIsForgotten() throws {
        let s = try server()
        defer { s.close() }
        do {
            let c = try connect(s)
            try c.send(Array("GET /slower HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
            #expect(waitFor(s, open: 1))
            // FIN, then a reset (SO_LINGER 0, then the close as the connection goes): the socket
            // hangs up (EPOLLHUP, reported whatever the interest) while the answer is owed for
            // two seconds more. It is closed at once, not read again and again until the
            // answer fails to go out.
            shutdown(c.fd, Int32(SHUT_WR))
            usleep(100_000)
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(c.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        #expect(waitFor(s, open: 0, seconds: 1), "the hung-up connection was still open")
    }

    @Test func aClientThatStopsReadingIsClosedWhenSilent() throws {
        let s = try server(idleSeconds: 1)
        defer { s.close() }
        let c = try connect(s)
        // Twenty answers of a mebibyte each, none read: the kernel's buffers fill, the rest
        // waits in the server, and nothing moves for the idle time.
        try c.send(Array(String(repeating: "GET /big HTTP/1.1\r\nHost: t\r\n\r\n", count: 20).utf8), timeoutMs: 5000)
        #expect(waitFor(s, open: 1))
        #expect(waitFor(s, open: 0, seconds: 5), "a connection with unsent answers was kept past the idle time")
    }

    @Test func aHeadThatTricklesIsClosedAfterTheIdleTime() throws {
        let s = try server(idleSeconds: 1)
        defer { s.close() }
        let c = try connect(s)
        #expect(waitFor(s, open: 1))
        // A byte every 200 ms is never silent for a second, but the head is not whole after
        // one: the connection goes (a slow loris).
        let t0 = Date()
        var closedAfter: Double?
        for byte in Array("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 40) {
            if (try? c.send([byte], timeoutMs: 1000)) == nil || s.openConnections == 0 {
                closedAfter = Date().timeIntervalSince(t0)
                break
            }
            usleep(200_000)
        }
        let after = try #require(closedAfter, "still open after a trickle of 8 s")
        #expect(after >= 0.9 && after < 4, "closed after \(after) s")
    }

    @Test func closeClosesTheListener() throws {
        let s = try server()
        let port = s.port
        s.close()
        s.close()
        #expect(throws: ConnectionFailure.connect(host: "server", errno: Errno(ECONNREFUSED))) {
            try TCPConnection.connect(IPAddress("127.0.0.1")!, port: port, name: "server", timeoutMs: 2000)
        }
    }

    @Test func connectionsOverTheLimitWaitForAFreeOne() throws {
        let s = try server(maxConnections: 2)
        defer { s.close() }
        let first = try connect(s)
        let second = try connect(s)
        try first.send(Array("GET /1 HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
        try second.send(Array("GET /2 HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try first.receive(max: 4096, timeoutMs: 5000)?.isEmpty == false)
        #expect(try second.receive(max: 4096, timeoutMs: 5000)?.isEmpty == false)
        // The third is in the kernel's backlog: connected, not read.
        let third = try connect(s)
        try third.send(Array("GET /3 HTTP/1.0\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try third.receive(max: 4096, timeoutMs: 500) == nil, "a third connection was served beside two")
        try first.send(Array("GET /1 HTTP/1.0\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try untilClosed(first)?.hasSuffix("/1 127.0.0.1") == true)
        #expect(try untilClosed(third)?.hasSuffix("/3 127.0.0.1") == true)
    }

    /// One address holds at most its share of the connections: one more is closed as it is
    /// accepted (not left in the backlog, where it would wait for a slot another host needs), and
    /// a slot the address frees is its again.
    @Test func oneAddressPastItsShareIsClosedAtOnce() throws {
        let s = try server(maxPerClient: 2)
        defer { s.close() }
        let first = try connect(s)
        var secondConnection: TCPConnection? = try connect(s)
        try first.send(Array("GET /1 HTTP/1.1\r\nHost: t\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try first.receive(max: 4096, timeoutMs: 5000)?.isEmpty == false)
        // Closed with nothing sent: an end of file, or a reset (the listener's own options).
        let third = try connect(s)
        let closed: Bool
        do { closed = try untilClosed(third) == "" } catch { closed = "\(error)".contains("closed the connection") }
        #expect(closed, "a third connection from one address was kept")
        #expect(s.openConnections == 2)
        // The second's answer, then its close (the server lingers until the client closes).
        var second: TCPConnection? = secondConnection
        secondConnection = nil
        try second?.send(Array("GET /2 HTTP/1.0\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try second.flatMap { try untilClosed($0) }?.hasSuffix("/2 127.0.0.1") == true)
        second = nil
        let deadline = Date().addingTimeInterval(5)
        while s.openConnections > 1, Date() < deadline { usleep(10_000) }
        let fourth = try connect(s)
        try fourth.send(Array("GET /4 HTTP/1.0\r\n\r\n".utf8), timeoutMs: 5000)
        #expect(try untilClosed(fourth)?.hasSuffix("/4 127.0.0.1") == true)
    }

    @Test func aPortThatIsTakenIsRefusedWithItsErrno() throws {
        let s = try server()
        defer { s.close() }
        #expect(s.port != 0)
        #expect(throws: ConnectionFailure.io("cannot listen on 127.0.0.1:\(s.port)", errno: Errno(EADDRINUSE))) {
            try HTTPServer(endpoint: Endpoint(host: "127.0.0.1", port: s.port), tls: { nil }, answer: { _, _ in })
        }
    }
}
