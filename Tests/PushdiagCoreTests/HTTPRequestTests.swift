import Testing

@testable import PushdiagCore

@Suite struct HTTPRequestTests {
    /// What Prometheus 2.42 sends for a scrape of /metrics.
    static let scrape =
        "GET /metrics HTTP/1.1\r\nHost: 10.0.0.5:9877\r\nUser-Agent: Prometheus/2.42.0\r\n"
        + "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
        + "text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n"
    /// What `curl 'http://localhost:9877/probe?target=push.example:443&protocol=mqtt'` sends.
    static let curl = "GET /probe?target=push.example:443&protocol=mqtt HTTP/1.1\r\nHost: localhost:9877\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n"
    /// A request with a body of 11 bytes, which no route reads.
    static let post = "POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"

    struct Reading {
        var heads: [HTTPRequestHead] = []
        var error: HTTPRequestError?
        var buffered = 0
    }

    /// Feeds each piece in turn, taking every request after each, until the first error.
    func read(_ pieces: [[UInt8]], _ parser: HTTPRequestParser = HTTPRequestParser()) -> Reading {
        var p = parser
        var r = Reading()
        for piece in pieces {
            p.feed(piece)
            while let next = p.next() {
                switch next {
                case .success(let head): r.heads.append(head)
                case .failure(let error):
                    r.error = error
                    r.buffered = p.buffered
                    return r
                }
            }
        }
        r.buffered = p.buffered
        return r
    }

    /// `text` fed at once, or in pieces of `size` bytes.
    func read(_ text: String, by size: Int? = nil, _ parser: HTTPRequestParser = HTTPRequestParser()) -> Reading {
        read(pieces(Array(text.utf8), size: size), parser)
    }

    func pieces(_ bytes: [UInt8], size: Int?) -> [[UInt8]] {
        guard let size else { return [bytes] }
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    /// The one request `text` holds; nil (and an issue recorded) when it gives another count or an error.
    func one(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPRequestHead? {
        let r = read(text)
        #expect(r.heads.count == 1 && r.error == nil, "\(r.heads.count) heads, \(String(describing: r.error))", sourceLocation: sourceLocation)
        return r.heads.first
    }

    @Test func aPrometheusScrape() throws {
        let head = try #require(one(Self.scrape))
        #expect(head.method == "GET" && head.target == "/metrics" && head.minorVersion == 1)
        #expect(head.headers.map(\.name) == ["Host", "User-Agent", "Accept", "Accept-Encoding", "X-Prometheus-Scrape-Timeout-Seconds"])
        #expect(head.header("user-agent") == "Prometheus/2.42.0")
        #expect(head.header("x-prometheus-scrape-timeout-seconds") == "10")
        #expect(head.header("Accept")?.hasPrefix("application/openmetrics-text;version=1.0.0,") == true)
        #expect(head.header("Accept")?.hasSuffix("*/*;q=0.1") == true)
        #expect(head.header("ACCEPT-ENCODING") == "gzip")
        #expect(head.header("Content-Length") == nil)
        #expect(head.keepAlive && head.path == "/metrics" && head.query == nil)
    }

    @Test func curlsProbe() throws {
        let head = try #require(one(Self.curl))
        #expect(head.path == "/probe" && head.query == "target=push.example:443&protocol=mqtt")
        #expect(
            head.headers == [.init(name: "Host", value: "localhost:9877"), .init(name: "User-Agent", value: "curl/8.5.0"), .init(name: "Accept", value: "*/*")])
        #expect(head.keepAlive)
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless "close" is listed; HTTP/1.0 only with "keep-alive".
    @Test func keepAliveByVersionAndConnection() {
        for (text, keep) in [
            ("GET / HTTP/1.1\r\nHost: t\r\n\r\n", true),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: t\r\nconnection: Upgrade ,\tCLOSE\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: t\r\nConnection: closed\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: t\r\nX-Connection: close\r\n\r\n", true),
        ] {
            #expect(one(text)?.keepAlive == keep, "\(text.debugDescription)")
        }
        #expect(one("GET / HTTP/1.0\r\n\r\n")?.minorVersion == 0)
    }

    @Test func pipelinedRequestsInOneFeed() {
        let r = read(Self.scrape + Self.curl + "HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(r.heads.map(\.target) == ["/metrics", "/probe?target=push.example:443&protocol=mqtt", "/health"])
        #expect(r.heads.map(\.method) == ["GET", "GET", "HEAD"])
        #expect(r.error == nil && r.buffered == 0)
    }

    /// Split at every byte boundary, and a byte at a time, the bytes give the heads one feed gives.
    @Test func splitAnywhereGivesTheSameHeads() {
        let bytes = Array((Self.scrape + Self.post + Self.curl).utf8)
        let whole = read([bytes])
        #expect(whole.heads.map(\.method) == ["GET", "POST", "GET"] && whole.error == nil)
        for cut in 0...bytes.count {
            let split = read([Array(bytes[..<cut]), Array(bytes[cut...])])
            #expect(split.heads == whole.heads && split.error == nil, "cut at \(cut)")
        }
        let single = read(pieces(bytes, size: 1))
        #expect(single.heads == whole.heads && single.error == nil && single.buffered == 0)
    }

    /// A Content-Length body is skipped however it arrives; the next request starts after it.
    @Test func aBodyIsSkippedBetweenPipelinedRequests() throws {
        var p = HTTPRequestParser()
        p.feed(Array("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\nhel".utf8))
        #expect(try p.next()?.get().target == "/x")
        #expect(p.next() == nil && p.buffered == 0, "the body's first bytes are dropped, not held")
        p.feed(Array("lo w".utf8))
        #expect(p.next() == nil && p.buffered == 0)
        p.feed(Array("orldGET /after HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
        #expect(try p.next()?.get().target == "/after")
        #expect(p.next() == nil && p.buffered == 0)

        let r = read(Self.post + Self.curl + Self.post + Self.scrape, by: 3)
        #expect(r.heads.map(\.path) == ["/metrics", "/probe", "/metrics", "/metrics"] && r.error == nil)
        #expect(r.heads.map(\.method) == ["POST", "GET", "POST", "GET"])
        // Several fields, or a list, of one value are that value (RFC 9110 §8.6).
        let listed = read("PUT / HTTP/1.1\r\nHost: t\r\nContent-Length: 3, 3\r\ncontent-length: 003\r\n\r\nabcGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(listed.heads.map(\.target) == ["/", "/next"] && listed.error == nil)
        let empty = read("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\nGET /next HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(empty.heads.map(\.target) == ["/", "/next"])
    }

    /// Each refusal with its status, the same fed at once or a byte at a time.
    @Test func refusalsAndTheirStatus() {
        let ok = "GET / HTTP/1.1\r\nHost: t\r\n"
        let cases: [(String, HTTPRequestError, Int)] = [
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .versionNotSupported, 505),
            ("GET / HTTP/1.2\r\n\r\n", .versionNotSupported, 505),
            ("GET / HTTP/2\r\n\r\n", .versionNotSupported, 505),
            ("GET / HTTP/0.9\r\n\r\n", .versionNotSupported, 505),
            ("GET / http/1.1\r\n\r\n", .malformed("request line without an HTTP version"), 400),
            ("GET / HTTP/1.x\r\n\r\n", .malformed("request line without an HTTP version"), 400),
            ("GET /\r\n\r\n", .malformed("request line is not method, target and version"), 400),
            ("GET  HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("empty request target"), 400),
            ("GET  / HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("request line with more than two spaces"), 400),
            ("GET /a b HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("request line with more than two spaces"), 400),
            ("G(T / HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("method is not a token"), 400),
            (" GET / HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("method is not a token"), 400),
            ("GET /\u{7F} HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("control or non-ASCII byte in the request target"), 400),
            ("GET /caf\u{E9} HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("control or non-ASCII byte in the request target"), 400),
            ("GET /\tx HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("control or non-ASCII byte in the request target"), 400),
            ("GET / HTTP/1.1\rHost: a\r\n\r\n", .malformed("bare CR in a line"), 400),
            (ok + "Host: a\r\r\n\r\n", .malformed("bare CR in a line"), 400),
            (ok + "Host : a\r\n\r\n", .malformed("whitespace between a field name and its colon"), 400),
            (ok + "Host\t: a\r\n\r\n", .malformed("whitespace between a field name and its colon"), 400),
            (ok + "Host: a\r\n folded\r\n\r\n", .malformed("field line starting with whitespace (obs-fold)"), 400),
            (ok + "\tHost: a\r\n\r\n", .malformed("field line starting with whitespace (obs-fold)"), 400),
            (ok + "Host a\r\n\r\n", .malformed("header line without a colon"), 400),
            (ok + ": a\r\n\r\n", .malformed("empty field name"), 400),
            (ok + "Ho(st: a\r\n\r\n", .malformed("field name is not a token"), 400),
            (ok + "A: b\u{01}c\r\n\r\n", .malformed("control character in a field value"), 400),
            (ok + "A: b\u{00}c\r\n\r\n", .malformed("control character in a field value"), 400),
            (ok + "A: b\u{7F}\r\n\r\n", .malformed("control character in a field value"), 400),
            (ok + "Transfer-Encoding: chunked\r\n\r\n", .malformed("Transfer-Encoding is not accepted"), 400),
            (ok + "transfer-encoding: identity\r\nContent-Length: 1\r\n\r\nx", .malformed("Transfer-Encoding is not accepted"), 400),
            (ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", .malformed("differing Content-Length values"), 400),
            (ok + "Content-Length: 5, 6\r\n\r\n", .malformed("differing Content-Length values"), 400),
            (ok + "Content-Length: -1\r\n\r\n", .malformed("Content-Length is not a number"), 400),
            (ok + "Content-Length: +1\r\n\r\n", .malformed("Content-Length is not a number"), 400),
            (ok + "Content-Length:\r\n\r\n", .malformed("Content-Length is not a number"), 400),
            (ok + "Content-Length: 5,\r\n\r\n", .malformed("Content-Length is not a number"), 400),
            (ok + "Content-Length: 0x10\r\n\r\n", .malformed("Content-Length is not a number"), 400),
            (ok + "Content-Length: 65537\r\n\r\n", .bodyTooLarge, 413),
            (ok + "Content-Length: 999999999999999999999999999999\r\n\r\n", .bodyTooLarge, 413),
            ("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n", .malformed("more than 4 empty lines before the request line"), 400),
            // RFC 9112 §3.2 (HTTP/1.0 without one is read: the keep-alive test's).
            ("GET / HTTP/1.1\r\nUser-Agent: nc\r\n\r\n", .malformed("an HTTP/1.1 request without a Host field"), 400),
            ("GET / HTTP/1.0\r\nHost: a\r\nHOST: a\r\n\r\n", .malformed("several Host fields"), 400),
            // ... and a Host field whose value is not uri-host [":" port].
            ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: user@a\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: a:80x\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: []\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            // Between the brackets, an IPv6 address (with RFC 6874's zone) or an IPvFuture only.
            ("GET / HTTP/1.1\r\nHost: [a]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [localhost]:80\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [1:2:3:4:5:6:7:8:9]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [10.0.0.1]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [fe80::1%wlan0]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [fe80::1%25]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [fe80::1%25a/b]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [v.x]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [v1.]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [::ffff:010.0.0.1]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: [::1.2.3.04]\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET http://[a]/metrics HTTP/1.1\r\nHost: a\r\n\r\n", .malformed("an absolute-form target whose authority is not a host"), 400),
            ("GET / HTTP/1.1\r\nHost: a%2\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            ("GET / HTTP/1.0\r\nHost: caf\u{E9}\r\n\r\n", .malformed("a Host field that is not a host"), 400),
            // RFC 9110 §4.2.1, §4.2.4: an absolute-form target with no host, or with userinfo.
            ("GET http:///metrics HTTP/1.1\r\nHost: a\r\n\r\n", .malformed("an absolute-form target whose authority is not a host"), 400),
            ("GET http://:9877/metrics HTTP/1.1\r\nHost: a\r\n\r\n", .malformed("an absolute-form target whose authority is not a host"), 400),
            ("GET http://user@a/metrics HTTP/1.1\r\nHost: a\r\n\r\n", .malformed("an absolute-form target whose authority is not a host"), 400),
            ("GET https://?x HTTP/1.0\r\n\r\n", .malformed("an absolute-form target whose authority is not a host"), 400),
            (ok + "A: " + String(repeating: "a", count: 20_000) + "\r\n\r\n", .headTooLarge, 431),
        ]
        for (text, error, status) in cases {
            let whole = read(text)
            #expect(whole.error == error, "\(text.prefix(60).debugDescription)")
            #expect(whole.error?.status == status, "\(text.prefix(60).debugDescription)")
            #expect(whole.heads.isEmpty && whole.buffered == 0, "\(text.prefix(60).debugDescription)")
            #expect(read(text, by: 1).error == error, "a byte at a time: \(text.prefix(60).debugDescription)")
        }
        #expect(HTTPRequestError.malformed("x").status == 400)
        #expect(HTTPRequestError.headTooLarge.status == 431)
    }

    /// The head limit is met as soon as the bytes held pass it, without waiting for the blank line.
    @Test func theHeadLimitBeforeTheBlankLine() {
        let limited = HTTPRequestParser(maxHeadBytes: 64)
        let start = Array("GET / HTTP/1.1\r\nHost: t\r\nA: ".utf8)
        let upTo = start + [UInt8](repeating: UInt8(ascii: "a"), count: 64 - start.count)
        let under = read([upTo], limited)
        // The request-line is read and dropped; the field line's bytes wait for their LF.
        #expect(under.error == nil && under.heads.isEmpty && under.buffered == upTo.count - "GET / HTTP/1.1\r\nHost: t\r\n".utf8.count)
        #expect(read([upTo, [UInt8(ascii: "a")]], limited).error == .headTooLarge)
        // A flood in one feed is dropped with the error, not held.
        let flood = read([start + [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)])
        #expect(flood.error == .headTooLarge && flood.buffered == 0)
        // A head of exactly the limit is read; one byte over is not. Leading empty lines count.
        let head = "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"
        let n = head.utf8.count
        #expect(read(head, HTTPRequestParser(maxHeadBytes: n)).heads.count == 1)
        #expect(read(head, HTTPRequestParser(maxHeadBytes: n - 1)).error == .headTooLarge)
        #expect(read(head, by: 1, HTTPRequestParser(maxHeadBytes: n - 1)).error == .headTooLarge)
    }

    @Test func fieldsAboveTheLimit() {
        /// A head of `fields` fields, Host the first.
        func head(fields: Int) -> String {
            "GET / HTTP/1.1\r\nHost: t\r\n" + (1..<fields).map { "X-\($0): y\r\n" }.joined() + "\r\n"
        }
        #expect(read(head(fields: 3), HTTPRequestParser(maxFields: 3)).heads.first?.headers.count == 3)
        #expect(read(head(fields: 4), HTTPRequestParser(maxFields: 3)).error == .headTooLarge)
        #expect(read(head(fields: 100)).heads.first?.headers.count == 100)
        #expect(read(head(fields: 101)).error == .headTooLarge)
    }

    @Test func bodyLimit() {
        let parser = HTTPRequestParser(maxBodyBytes: 4)
        #expect(read("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nabcd", parser).heads.count == 1)
        #expect(read("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nabcde", parser).error == .bodyTooLarge)
    }

    /// The preface an HTTP/2 client sends first (RFC 9113 §3.4) is an HTTP version not spoken.
    @Test func anHTTP2PrefaceIs505() {
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 18, 4, 0, 0, 0, 0, 0]
        let r = read([preface])
        #expect(r.error == .versionNotSupported && r.error?.status == 505 && r.heads.isEmpty)
    }

    /// RFC 9112 §2.2: a bare LF ends a line too, and empty lines before a request-line are ignored.
    @Test func bareLFAndLeadingEmptyLines() throws {
        let head = try #require(one("\r\n\n\r\n\nGET /x HTTP/1.1\nHost: a\r\nAccept: b\n\n"))
        #expect(head.target == "/x" && head.headers == [.init(name: "Host", value: "a"), .init(name: "Accept", value: "b")])
        // Between pipelined requests as well (a client's CRLF after a body).
        let r = read(Self.post + "\r\n" + Self.curl)
        #expect(r.heads.map(\.path) == ["/metrics", "/probe"] && r.error == nil)
    }

    @Test func headerLookupIgnoresCaseAndTrimsWhitespace() throws {
        let head = try #require(one("GET / HTTP/1.1\r\nHost: t\r\nX-Name: \t v a l \t \r\nx-name: second\r\nEmpty:\r\nSpaces:   \r\nB:c\r\n\r\n"))
        #expect(head.header("x-name") == "v a l" && head.header("X-NAME") == "v a l" && head.header("X-Name") == "v a l")
        #expect(head.headers.map(\.name) == ["Host", "X-Name", "x-name", "Empty", "Spaces", "B"], "names as sent")
        #expect(head.headers[2].value == "second")
        #expect(head.header("empty") == "" && head.header("spaces") == "" && head.header("b") == "c")
        #expect(head.header("X-Nam") == nil && head.header("X-Name2") == nil)
    }

    /// obs-text (bytes above 0x7F) is kept in a value, read as UTF-8 with replacement.
    @Test func nonASCIIValues() throws {
        let bytes = Array("GET / HTTP/1.1\r\nHost: t\r\nA: caf".utf8) + [0xC3, 0xA9] + Array("\r\nB: ".utf8) + [0xFF, 0x41] + Array("\r\n\r\n".utf8)
        let head = try #require(read([bytes]).heads.first)
        #expect(head.header("a") == "caf\u{E9}" && head.header("b") == "\u{FFFD}A")
    }

    /// Origin-form as sent; absolute-form (RFC 9112 §3.2.2: a server must accept it) after its
    /// scheme and authority, "/" when it names no path.
    @Test func pathAndQuery() {
        for (target, path, query) in [
            ("/metrics", "/metrics", nil), ("/metrics?x=1", "/metrics", "x=1"), ("/probe?a=1?b", "/probe", "a=1?b"), ("/?", "/", ""),
            ("*", "*", nil), ("http://h:1/p?q", "/p", "q"), ("HTTPS://[::1]:9877/metrics", "/metrics", nil), ("http://h", "/", nil),
            ("http://h?x=1", "/", "x=1"), ("http://", "http://", nil), ("ftp://h/p", "ftp://h/p", nil), ("/http://h/p", "/http://h/p", nil),
        ] as [(String, String, String?)] {
            let head = one("OPTIONS \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(head?.target == target && head?.path == path && head?.query == query, "\(target)")
        }
    }

    /// Host values a client sends (RFC 3986's host, then an optional port of digits): each read.
    @Test func hostsThatAreHosts() {
        for host in [
            "", "a", "localhost:9877", "10.0.0.5:9877", "10.0.0.5:", "[::1]", "[::1]:9877", "[fe80::1%25wlan0]:1", "[v1.x]", "PUSH-01.ward_3.example",
            "[2001:db8::10.0.0.1]", "[::ffff:10.0.0.5]:9877", "[::0.0.0.0]", "[fe80::1%25en%2D0]", "[V1F.a:b]", "[2001:DB8:0:0:0:0:0:1]",
            "a%2Db", "sub!$&'()*+,;=delims", "~",
        ] {
            #expect(one("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")?.header("Host") == host, "\(host)")
        }
    }

    /// A client sending a byte at a time is not searched from the start on each byte (O(n²)):
    /// the search for the line's LF resumes where it stopped.
    @Test func theSearchResumesWhereItStopped() {
        var p = HTTPRequestParser()
        for b in Array("GET / HTTP/1.1\r\nHost: t\r\nA: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100) {
            p.feed([b])
            #expect(p.next() == nil)
            #expect(p.scanned >= p.buffered - 1, "searched up to the last byte held (a CR waits for the byte after it)")
        }
        #expect(p.buffered == 103 && p.scanned == 103)
    }

    /// After an error, every call answers it again, and later bytes are neither read nor kept.
    @Test func errorsAreSticky() {
        var p = HTTPRequestParser()
        p.feed(Array("GET / HTTP/1.1\r\nHost: t\r\n\r\nBAD\r\n".utf8))
        #expect(p.next().map { (try? $0.get())?.target } == "/")
        let error = p.next()
        #expect(error == .failure(.malformed("request line is not method, target and version")))
        p.feed(Array(Self.curl.utf8))
        #expect(p.next() == error && p.next() == error)
        #expect(p.buffered == 0)
    }
}
