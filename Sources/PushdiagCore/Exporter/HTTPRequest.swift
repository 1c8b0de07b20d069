/// One HTTP/1.x request's head as the exporter's routes see it (RFC 9112 §3 and §5).
public struct HTTPRequestHead: Sendable, Equatable {
    /// As sent ("GET", "HEAD", …): a token, compared case-sensitively (RFC 9110 §9.1).
    public var method: String
    /// The request-target as sent ("/metrics?x=1"): printable ASCII, no spaces.
    public var target: String
    /// HTTP/1.0 → 0, HTTP/1.1 → 1.
    public var minorVersion: Int = 1
    /// The field lines in order, names as sent, values without the whitespace around them.
    public var headers: [HTTPHeaderField] = []

    /// The first field named `name` (ASCII case-insensitive, RFC 9110 §5.1), its value without
    /// the whitespace around it; nil without one.
    public func header(_ name: String) -> String? {
        headers.first { HTTPRequestParser.sameName($0.name, name) }?.value
    }

    /// Whether the connection stays open after the answer (RFC 9112 §9.3): an HTTP/1.1 request
    /// unless its Connection fields list "close", an HTTP/1.0 one only when they list "keep-alive".
    public var keepAlive: Bool {
        let options = connectionOptions
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// The target's path: an origin-form target ("/metrics?x=1") up to its '?'; an absolute-form
    /// one ("http://10.0.0.5:9877/metrics?x=1", which a server must accept, RFC 9112 §3.2.2) after
    /// its scheme and authority, "/" when it names none.
    public var path: String {
        guard let rest = Self.absoluteForm(target)?.rest else { return String(target.prefix { $0 != "?" }) }
        let path = rest.prefix { $0 != "?" }
        return path.isEmpty ? "/" : String(path)
    }

    /// An absolute-form target's authority and what follows it: "http://" or "https://" (scheme
    /// case-insensitive), the authority up to the first '/' or '?', the rest; nil for any other form.
    static func absoluteForm(_ target: String) -> (authority: Substring, rest: Substring)? {
        let t = Substring(target)
        for scheme in ["http://", "https://"] where t.count > scheme.count && t.prefix(scheme.count).lowercased() == scheme {
            let after = t.dropFirst(scheme.count)
            let end = after.firstIndex { $0 == "/" || $0 == "?" } ?? after.endIndex
            return (after[..<end], after[end...])
        }
        return nil
    }

    /// The target after its first '?'; nil without one.
    public var query: String? {
        guard let q = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: q)...])
    }

    /// The Connection fields' options, lowercased: comma-separated tokens, over every such field
    /// (RFC 9110 §7.6.1).
    var connectionOptions: [String] {
        headers.filter { HTTPRequestParser.sameName($0.name, "Connection") }.flatMap { field in
            field.value.split(separator: ",").map { HTTPRequestParser.trimmed(Substring($0)).lowercased() }
        }
    }
}

/// One field line: its name as sent, its value without the whitespace around it.
public struct HTTPHeaderField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) { (self.name, self.value) = (name, value) }
}

/// Why a request cannot be read: the status the server answers before it closes.
public enum HTTPRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400, with a short reason in words ("header line without a colon", …).
    case malformed(String)
    /// 431: the head passed maxHeadBytes before its blank line, or has more than maxFields fields.
    case headTooLarge
    /// 413: Content-Length above maxBodyBytes.
    case bodyTooLarge
    /// 505: an HTTP version other than 1.0 or 1.1 (HTTP/2's preface "PRI * HTTP/2.0" included).
    case versionNotSupported

    public var status: Int {
        switch self {
        case .malformed: return 400
        case .headTooLarge: return 431
        case .bodyTooLarge: return 413
        case .versionNotSupported: return 505
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed request: \(why)"
        case .headTooLarge: return "request head too large"
        case .bodyTooLarge: return "request body too large"
        case .versionNotSupported: return "HTTP version not supported"
        }
    }
}

/// Incremental: bytes in as they arrive, whole request heads out in order (pipelining). A request's
/// body (Content-Length) is skipped, not kept: no route takes one.
///
/// Strict where RFC 9112 says a server must reject, since this faces the network: a bare CR,
/// whitespace before a field's colon, obs-fold, Transfer-Encoding (no chunked body is read),
/// differing Content-Lengths. Lines are read one at a time as their LF arrives, and the search for
/// it resumes where the last one stopped, so a client sending a byte at a time costs O(n), not
/// O(n²). Consumed bytes are dropped; body bytes are skipped as they are fed. A caller that feeds
/// again only once `next()` has returned nil holds at most maxHeadBytes plus one feed.
public struct HTTPRequestParser: Sendable {
    /// Empty lines ignored before a request-line (RFC 9112 §2.2 asks for "at least one"); more
    /// is not a client.
    public static let mostEmptyLines = 4

    let maxHeadBytes: Int
    let maxBodyBytes: Int
    let maxFields: Int

    /// Bytes held; those before `start` are consumed.
    var storage: [UInt8] = []
    var start = 0
    /// Bytes of the current line already searched for its LF.
    var scanned = 0
    /// Bytes of the head in progress already read (its lines so far, leading empty lines too).
    var headBytes = 0
    var emptyLines = 0
    /// The head in progress: its request-line read, its fields so far.
    var head: HTTPRequestHead?
    /// Body bytes of the last request still to skip.
    var bodyLeft = 0
    var failure: HTTPRequestError?

    public init(maxHeadBytes: Int = 16_384, maxBodyBytes: Int = 65_536, maxFields: Int = 100) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxFields = maxFields
    }

    /// Bytes held, for tests and limits.
    public var buffered: Int { storage.count - start }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        skipBody()
        let skipped = min(bodyLeft, bytes.count)
        bodyLeft -= skipped
        guard skipped < bytes.count else { return }
        if start > 0 && start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        storage.append(contentsOf: bytes[skipped...])
    }

    public mutating func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// The next complete request, nil until more bytes come; after an error every further call
    /// returns that error again (the connection is then answered and closed).
    public mutating func next() -> Result<HTTPRequestHead, HTTPRequestError>? {
        if let failure { return .failure(failure) }
        skipBody()
        guard bodyLeft == 0 else { return nil }
        while true {
            let line: Range<Int>
            let length: Int
            switch scanLine() {
            case .more: return nil
            case .failed(let error): return fail(error)
            case .line(let l, let n):
                line = l
                length = n
            }
            if line.isEmpty && head == nil {
                emptyLines += 1
                if emptyLines > Self.mostEmptyLines {
                    return fail(.malformed("more than \(Self.mostEmptyLines) empty lines before the request line"))
                }
            } else if line.isEmpty {
                return finishHead(length)
            } else if head == nil {
                switch Self.requestLine(storage[line]) {
                case .success(let h): head = h
                case .failure(let error): return fail(error)
                }
            } else {
                guard let count = head?.headers.count, count < maxFields else { return fail(.headTooLarge) }
                switch Self.fieldLine(storage[line]) {
                case .success(let field): head?.headers.append(field)
                case .failure(let error): return fail(error)
                }
            }
            consume(length)
            scanned = 0
            headBytes += length
        }
    }

    enum Scan {
        /// The line's bytes in `storage` without its CRLF or LF, and its length with them.
        case line(Range<Int>, length: Int)
        case more
        case failed(HTTPRequestError)
    }

    /// Looks for the current line's LF from where the last search stopped. The head's size is
    /// checked byte by byte and a bare CR as soon as the byte after it is here, in the order of
    /// the bytes, so a request fed at once or a byte at a time meets the same error.
    mutating func scanLine() -> Scan {
        var p = start + scanned
        while p < storage.count {
            if headBytes + (p - start) >= maxHeadBytes { return .failed(.headTooLarge) }
            let b = storage[p]
            if b == Self.lf {
                let end = p > start && storage[p - 1] == Self.cr ? p - 1 : p
                return .line(start..<end, length: p + 1 - start)
            }
            if b == Self.cr {
                guard p + 1 < storage.count else { break }
                // RFC 9112 §2.2: a bare CR is invalid.
                guard storage[p + 1] == Self.lf else { return .failed(.malformed("bare CR in a line")) }
            }
            p += 1
        }
        scanned = p - start
        return .more
    }

    /// The blank line of length `length` ends the head: its body's length is decided and the
    /// parser is ready for the next request.
    mutating func finishHead(_ length: Int) -> Result<HTTPRequestHead, HTTPRequestError> {
        guard let done = head else { return fail(.malformed("blank line without a request line")) }
        // RFC 9112 §3.2: an HTTP/1.1 request names its host, and no request names it twice.
        let hosts = done.headers.count { Self.sameName($0.name, "Host") }
        if hosts > 1 || (hosts == 0 && done.minorVersion == 1) {
            return fail(.malformed(hosts == 0 ? "an HTTP/1.1 request without a Host field" : "several Host fields"))
        }
        if let host = done.header("Host"), !Self.isHost(host.utf8) { return fail(.malformed("a Host field that is not a host")) }
        // RFC 9110 §4.2.1 and §4.2.4: an http URI's host may not be empty, and userinfo is an error.
        if let authority = HTTPRequestHead.absoluteForm(done.target)?.authority,
            authority.isEmpty || authority.first == ":" || !Self.isHost(authority.utf8)
        {
            return fail(.malformed("an absolute-form target whose authority is not a host"))
        }
        switch bodyLength(done) {
        case .failure(let error): return fail(error)
        case .success(let n): bodyLeft = n
        }
        consume(length)
        scanned = 0
        head = nil
        headBytes = 0
        emptyLines = 0
        return .success(done)
    }

    /// The body's length from Content-Length (RFC 9112 §6.3): several fields or a list of one
    /// value are that value; none is 0. Transfer-Encoding is refused (no route takes a chunked
    /// body, and Content-Length beside it is a smuggling attempt).
    func bodyLength(_ head: HTTPRequestHead) -> Result<Int, HTTPRequestError> {
        if head.headers.contains(where: { Self.sameName($0.name, "Transfer-Encoding") }) {
            return .failure(.malformed("Transfer-Encoding is not accepted"))
        }
        var length: Int?
        for field in head.headers where Self.sameName(field.name, "Content-Length") {
            for element in field.value.utf8.split(separator: Self.comma, omittingEmptySubsequences: false) {
                guard let n = Self.decimal(Self.trimmed(element)) else {
                    return .failure(.malformed("Content-Length is not a number"))
                }
                if let length, length != n { return .failure(.malformed("differing Content-Length values")) }
                length = n
            }
        }
        let n = length ?? 0
        return n > maxBodyBytes ? .failure(.bodyTooLarge) : .success(n)
    }

    mutating func skipBody() {
        let n = min(bodyLeft, buffered)
        consume(n)
        bodyLeft -= n
    }

    /// Drops `n` bytes from the front. The search for the LF is reset by whoever consumes a line,
    /// not here: skipping a body must not restart a slow client's search from the start.
    mutating func consume(_ n: Int) {
        start += n
        if start >= storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// Keeps the error for every further call and drops what is held.
    mutating func fail(_ error: HTTPRequestError) -> Result<HTTPRequestHead, HTTPRequestError> {
        failure = error
        storage = []
        start = 0
        scanned = 0
        head = nil
        bodyLeft = 0
        return .failure(error)
    }
}

extension HTTPRequestParser {
    static let lf = UInt8(ascii: "\n")
    static let cr = UInt8(ascii: "\r")
    static let sp = UInt8(ascii: " ")
    static let htab = UInt8(ascii: "\t")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), single spaces.
    /// The version is judged first: a request of another version is answered 505 whatever the
    /// rest looks like to an HTTP/1.1 reader.
    static func requestLine(_ line: ArraySlice<UInt8>) -> Result<HTTPRequestHead, HTTPRequestError> {
        guard let first = line.firstIndex(of: sp), let last = line.lastIndex(of: sp), first != last else {
            return .failure(.malformed("request line is not method, target and version"))
        }
        let minor: Int
        switch version(line[(last + 1)...]) {
        case .success(let v): minor = v
        case .failure(let error): return .failure(error)
        }
        let method = line[..<first]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else { return .failure(.malformed("method is not a token")) }
        let target = line[(first + 1)..<last]
        guard !target.isEmpty else { return .failure(.malformed("empty request target")) }
        guard !target.contains(sp) else { return .failure(.malformed("request line with more than two spaces")) }
        // Printable ASCII only: no controls, DEL or bytes above it (clients percent-encode them).
        guard target.allSatisfy({ $0 > sp && $0 < 0x7F }) else {
            return .failure(.malformed("control or non-ASCII byte in the request target"))
        }
        return .success(
            HTTPRequestHead(
                method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self), minorVersion: minor))
    }

    /// "HTTP/1.1" → 1, "HTTP/1.0" → 0 (case-sensitive, RFC 9112 §2.3); another HTTP/ major.minor
    /// is a version this server does not speak (505), anything else is not HTTP (400).
    static func version(_ bytes: ArraySlice<UInt8>) -> Result<Int, HTTPRequestError> {
        if bytes.elementsEqual("HTTP/1.1".utf8) { return .success(1) }
        if bytes.elementsEqual("HTTP/1.0".utf8) { return .success(0) }
        let name = "HTTP/".utf8
        guard bytes.starts(with: name) else { return .failure(.malformed("request line without an HTTP version")) }
        let number = bytes.dropFirst(name.count).split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard number.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isDigit) }) else {
            return .failure(.malformed("request line without an HTTP version"))
        }
        return .failure(.versionNotSupported)
    }

    /// field-line = field-name ":" OWS field-value OWS (RFC 9112 §5). Refused: obs-fold (§5.2),
    /// whitespace before the colon (§5.1), controls in the value but HTAB (RFC 9110 §5.5). Bytes
    /// above 0x7F (obs-text) are kept, read as UTF-8 with replacement.
    static func fieldLine(_ line: ArraySlice<UInt8>) -> Result<HTTPHeaderField, HTTPRequestError> {
        if let b = line.first, b == sp || b == htab {
            return .failure(.malformed("field line starting with whitespace (obs-fold)"))
        }
        guard let colon = line.firstIndex(of: Self.colon) else { return .failure(.malformed("header line without a colon")) }
        let name = line[..<colon]
        guard !name.isEmpty else { return .failure(.malformed("empty field name")) }
        if let b = name.last, b == sp || b == htab {
            return .failure(.malformed("whitespace between a field name and its colon"))
        }
        guard name.allSatisfy(isTokenByte) else { return .failure(.malformed("field name is not a token")) }
        let value = line[(colon + 1)...]
        guard !value.contains(where: { ($0 < sp && $0 != htab) || $0 == 0x7F }) else {
            return .failure(.malformed("control character in a field value"))
        }
        return .success(HTTPHeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: trimmed(value), as: UTF8.self)))
    }

    /// tchar (RFC 9110 §5.6.2): letters, digits and !#$%&'*+-.^_`|~.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return tokenSymbols.contains(b)
        }
    }
    static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    /// Host = uri-host [ ":" port ] (RFC 9110 §7.2, RFC 3986 §3.2.2 and §3.2.3): a reg-name or an
    /// IPv4 address (unreserved and sub-delims bytes, percent-encodings) or an IP-literal in
    /// brackets, then a port of digits. Empty is a host (a target without an authority).
    static func isHost<C: Collection<UInt8>>(_ value: C) -> Bool {
        var host = value[...]
        var port = value[value.endIndex...]
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard isIPLiteral(literal) else { return false }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || after.first == colon else { return false }
            port = after.dropFirst()
            host = literal
        } else {
            if let c = host.firstIndex(of: colon) {
                port = host[host.index(after: c)...]
                host = host[..<c]
            }
            guard isEncoded(host, allowing: isHostByte) else { return false }
        }
        return port.allSatisfy(isDigit)
    }

    /// What stands between an IP-literal's brackets (RFC 3986 §3.2.2): an IPv6 address, with a
    /// zone as RFC 6874 writes it ("%25" and the zone's unreserved or percent-encoded bytes), or an
    /// IPvFuture ("v", hex digits, ".", then unreserved, sub-delims or ":").
    static func isIPLiteral<C: Collection<UInt8>>(_ literal: C) -> Bool {
        if let v = literal.first, lowered(v) == UInt8(ascii: "v") {
            let rest = literal.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), dot != rest.startIndex, rest[..<dot].allSatisfy(isHexDigit) else { return false }
            let tail = rest[rest.index(after: dot)...]
            return !tail.isEmpty && tail.allSatisfy { isHostByte($0) || $0 == colon }
        }
        var address = literal[...]
        if let percent = literal.firstIndex(of: UInt8(ascii: "%")) {
            address = literal[..<percent]
            let zone = literal[percent...]
            guard zone.starts(with: "%25".utf8), zone.count > 3, isEncoded(zone.dropFirst(3), allowing: isUnreserved) else { return false }
        }
        // IPText reads IPv6 with an IPv4 tail too ("::ffff:10.0.0.1"), as RFC 3986's IPv6address
        // has it; its dec-octets have no leading zero ("010" is not one), which IPText allows.
        guard address.count <= 45, address.allSatisfy({ isHexDigit($0) || $0 == colon || $0 == UInt8(ascii: ".") }) else { return false }
        var tail = address[...]
        while let c = tail.firstIndex(of: colon) { tail = tail[tail.index(after: c)...] }
        let octets = tail.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if octets.count > 1, octets.contains(where: { $0.count > 1 && $0.first == UInt8(ascii: "0") }) { return false }
        return IPText.parse(String(decoding: address, as: UTF8.self))?.count == 16
    }

    /// Every byte `allowed` or a percent-encoding ("%" and two hex digits, RFC 3986 §2.1).
    static func isEncoded<C: Collection<UInt8>>(_ bytes: C, allowing allowed: (UInt8) -> Bool) -> Bool {
        var rest = bytes[...]
        while let b = rest.popFirst() {
            if b == UInt8(ascii: "%") {
                guard let h = rest.popFirst(), let l = rest.popFirst(), isHexDigit(h), isHexDigit(l) else { return false }
            } else if !allowed(b) {
                return false
            }
        }
        return true
    }

    /// unreserved (RFC 3986 §2.3): letters, digits and -._~.
    static func isUnreserved(_ b: UInt8) -> Bool {
        isDigit(b) || (lowered(b) >= UInt8(ascii: "a") && lowered(b) <= UInt8(ascii: "z")) || unreservedSymbols.contains(b)
    }

    static let unreservedSymbols = Array("-._~".utf8)

    /// unreserved / sub-delims (RFC 3986 §2.2, §2.3).
    static func isHostByte(_ b: UInt8) -> Bool { isUnreserved(b) || subDelims.contains(b) }

    static let subDelims = Array("!$&'()*+,;=".utf8)

    static func isHexDigit(_ b: UInt8) -> Bool { isDigit(b) || (lowered(b) >= UInt8(ascii: "a") && lowered(b) <= UInt8(ascii: "f")) }

    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// 1*DIGIT as a number, Int.max when it does not fit (a limit refuses it anyway); nil when
    /// it is not 1*DIGIT.
    static func decimal<C: Collection<UInt8>>(_ digits: C) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy(isDigit) else { return nil }
        var n = 0
        for d in digits {
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(d - UInt8(ascii: "0")))
            if o1 || o2 { return Int.max }
            n = sum
        }
        return n
    }

    /// Without the OWS (SP and HTAB) around it.
    static func trimmed<C: BidirectionalCollection<UInt8>>(_ bytes: C) -> C.SubSequence {
        let isOWS = { (b: UInt8) in b == sp || b == htab }
        let rest = bytes.drop(while: isOWS)
        guard let last = rest.lastIndex(where: { !isOWS($0) }) else { return rest[rest.endIndex...] }
        return rest[...last]
    }

    static func trimmed(_ text: Substring) -> Substring {
        Substring(trimmed(text.utf8))
    }

    /// Field names compare ASCII case-insensitively (RFC 9110 §5.1).
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { lowered($0) == lowered($1) }
    }

    static func lowered(_ b: UInt8) -> UInt8 { b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b + 32 : b }
}
