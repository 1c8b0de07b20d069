// libFuzzer target: bytes from an HTTP client through the exporter's request-head parser
// (HTTPRequestParser), with small limits so every refusal is reached. The input's first two bytes
// choose the sizes of the pieces the rest is fed in (1 + b0 % 64 and 1 + b1, in turn; a seed
// starting "\0\0" is fed a byte at a time and then in pieces of one). Every head is a token method,
// a target of printable ASCII (its path and query end it) and well-formed fields, a Host without a
// space, slash or '@'; an error repeats and drops what is held;
// the parser never holds more than its head limit once drained, nor more than that and one piece
// before; and the same bytes fed at once give the same heads and the same error.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

private let maxHeadBytes = 512

private func parser() -> HTTPRequestParser { HTTPRequestParser(maxHeadBytes: maxHeadBytes, maxBodyBytes: 256, maxFields: 8) }

private func isToken(_ text: String) -> Bool {
    let symbols = "!#$%&'*+-.^_`|~".utf8
    return !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0 | 0x20) || symbols.contains($0) }
}

private func check(_ head: HTTPRequestHead) {
    guard isToken(head.method) else { fatalError("a method that is not a token: \(head.method.debugDescription)") }
    guard !head.target.isEmpty, head.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
        fatalError("a target with a space, control or non-ASCII byte: \(head.target.debugDescription)")
    }
    guard head.minorVersion == 0 || head.minorVersion == 1 else { fatalError("HTTP/1.\(head.minorVersion)") }
    guard head.headers.count <= 8 else { fatalError("\(head.headers.count) fields past the limit of 8") }
    for field in head.headers {
        guard isToken(field.name) else { fatalError("a field name that is not a token: \(field.name.debugDescription)") }
        guard !field.value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            fatalError("a control character in the value of \(field.name)")
        }
        guard field.value.first != " " && field.value.last != " " else { fatalError("a value not trimmed: \(field.value.debugDescription)") }
        guard head.header(field.name.uppercased()) != nil else { fatalError("\(field.name) not found by its name") }
    }
    // Origin-form: the target is its path and query. Absolute-form: a scheme, an authority
    // without '/' or '?', then the path (none when it is "/" and the rest starts with '?' or is
    // empty) and the query, exactly.
    let query = head.query.map { "?" + $0 } ?? ""
    let lowered = head.target.lowercased()
    let scheme = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
    if scheme > 0 && head.target.utf8.count > scheme {
        let authority = head.target.dropFirst(scheme).prefix { $0 != "/" && $0 != "?" }
        let rest = head.target.dropFirst(scheme + authority.count)
        let rebuilt = rest.hasPrefix("/") ? head.path + query : head.path == "/" ? query : "\u{0}"
        guard rebuilt == rest, !authority.isEmpty, !authority.contains("@") else {
            fatalError("path \(head.path.debugDescription) and query do not rebuild the absolute-form target \(head.target.debugDescription)")
        }
    } else {
        guard head.path + query == head.target else { fatalError("path and query are not the target") }
    }
    if let host = head.header("Host") {
        guard !host.contains(" ") && !host.contains("/") && !host.contains("@") else { fatalError("a Host that is not a host: \(host.debugDescription)") }
    }
    _ = head.keepAlive
}

private func check(_ error: HTTPRequestError) {
    guard [400, 413, 431, 505].contains(error.status) else { fatalError("status \(error.status)") }
    if case .malformed(let why) = error, why.isEmpty || why.contains("\n") { fatalError("a reason that is not one line: \(why.debugDescription)") }
}

/// The heads `p` gives until nil or its first error.
private func drain(_ p: inout HTTPRequestParser, into heads: inout [HTTPRequestHead]) -> HTTPRequestError? {
    while let next = p.next() {
        switch next {
        case .success(let head):
            check(head)
            heads.append(head)
        case .failure(let error):
            check(error)
            return error
        }
    }
    return nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 2 else { return 0 }
    let sizes = [1 + Int(input[0]) % 64, 1 + Int(input[1])]
    let stream = Array(input[2...])

    var pieces = parser()
    var heads: [HTTPRequestHead] = []
    var failure: HTTPRequestError?
    var at = 0
    var turn = 0
    while at < stream.count && failure == nil {
        let n = min(sizes[turn % 2], stream.count - at)
        // Both feeds: the raw buffer the server reads into, and an array.
        if turn % 2 == 0 { stream[at..<(at + n)].withUnsafeBytes { pieces.feed($0) } } else { pieces.feed(Array(stream[at..<(at + n)])) }
        at += n
        turn += 1
        guard pieces.buffered <= maxHeadBytes + n else { fatalError("\(pieces.buffered) bytes held after a piece of \(n)") }
        failure = drain(&pieces, into: &heads)
        guard failure != nil || pieces.buffered <= maxHeadBytes else { fatalError("\(pieces.buffered) bytes held once drained") }
    }
    if let failure {
        guard pieces.buffered == 0 else { fatalError("\(pieces.buffered) bytes held after \(failure)") }
        pieces.feed(Array(stream[at...]) + Array("GET / HTTP/1.1\r\n\r\n".utf8))
        guard pieces.next() == .failure(failure), pieces.next() == .failure(failure), pieces.buffered == 0 else {
            fatalError("\(failure) did not repeat")
        }
    }

    var whole = parser()
    whole.feed(stream)
    var wholeHeads: [HTTPRequestHead] = []
    let wholeFailure = drain(&whole, into: &wholeHeads)
    guard wholeHeads == heads, wholeFailure == failure else {
        fatalError(
            "in pieces of \(sizes): \(heads.count) heads, \(String(describing: failure)); at once: \(wholeHeads.count) heads, \(String(describing: wholeFailure))"
        )
    }
    return 0
}
