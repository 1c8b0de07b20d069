/// One shape for every wire protocol pushdiag speaks (the shape of swift-nio's `ByteToMessageDecoder`): bytes
/// go in as they arrive, whole frames come out, or nil for "need more bytes". A frame above the
/// cap is refused before it is buffered. Line, SimplePush, MQTT, WebSocket and the HTTP head of
/// the WebSocket upgrade implement it; one receive loop (IO's `HeartbeatSession`) drives them.
public protocol FrameDecoder {
    associatedtype Frame
    /// The largest frame accepted, in bytes.
    var cap: Int { get }
    mutating func feed(_ bytes: ArraySlice<UInt8>)
    /// The next whole frame; nil when more bytes are needed.
    mutating func next() throws(FramingError) -> Frame?
}

/// Why bytes from a peer are not the protocol they should be.
public enum FramingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `what` ("frame", "MQTT packet", …) of `size` bytes is above `cap`.
    case oversized(what: String, size: Int, cap: Int)
    case malformed(String)

    public var description: String {
        switch self {
        case .oversized(let what, let n, let cap): return "\(what) of \(n) bytes exceeds the \(cap)-byte cap"
        case .malformed(let why): return why
        }
    }
}

/// Bytes received and not yet decoded: appended at the end, consumed from the front without
/// moving the rest each time (the storage is compacted once half of it is consumed).
public struct ByteQueue: Sendable, Equatable {
    var storage: [UInt8] = []
    var start = 0

    public init() {}

    public var count: Int { storage.count - start }
    public var isEmpty: Bool { count == 0 }
    public subscript(i: Int) -> UInt8 { storage[start + i] }

    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        if start > 0 && start >= storage.count / 2 {
            storage.removeFirst(start)
            start = 0
        }
        storage += bytes
    }

    /// Bytes `r` (relative to the front), not consumed.
    public func bytes(_ r: Range<Int>) -> ArraySlice<UInt8> { storage[(start + r.lowerBound)..<(start + r.upperBound)] }

    public mutating func consume(_ n: Int) {
        start += n
        if start >= storage.count {
            storage.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// Everything buffered, consumed.
    public mutating func takeAll() -> ArraySlice<UInt8> {
        defer { consume(count) }
        return bytes(0..<count)
    }

    public func firstIndex(of b: UInt8) -> Int? { storage[start...].firstIndex(of: b).map { $0 - start } }

    public func firstRange(of pattern: [UInt8]) -> Range<Int>? {
        storage[start...].firstRange(of: pattern).map { ($0.lowerBound - start)..<($0.upperBound - start) }
    }
}

/// Lines ending in LF (a CR before it is dropped), as text.
public struct LineDecoder: FrameDecoder {
    public let cap: Int
    var queue = ByteQueue()

    public init(cap: Int = 65_536) { self.cap = cap }

    public mutating func feed(_ bytes: ArraySlice<UInt8>) { queue.append(bytes) }

    public mutating func next() throws(FramingError) -> String? {
        guard let nl = queue.firstIndex(of: 10) else {
            guard queue.count <= cap else { throw .oversized(what: "reply line", size: queue.count, cap: cap) }
            return nil
        }
        guard nl <= cap else { throw .oversized(what: "reply line", size: nl, cap: cap) }
        var line = queue.bytes(0..<nl)
        if line.last == 13 { line = line.dropLast() }
        queue.consume(nl + 1)
        return String(decoding: line, as: UTF8.self)
    }
}

/// The line protocol's check of a reply (`--expect`): the line contains a match of the pattern,
/// read as a regular expression, or as plain text when it is not one. Compiled once, and only
/// for the line protocol: the other protocols' sessions never compile a pattern.
public struct LineReplyMatcher: @unchecked Sendable {
    public let pattern: String
    let regex: Regex<AnyRegexOutput>?

    public init(_ pattern: String) {
        self.pattern = pattern
        regex = try? Regex(pattern)
    }

    public func matches(_ line: String) -> Bool { regex.map { line.contains($0) } ?? line.contains(pattern) }

    /// Why a reply is refused.
    public func mismatch(_ line: String) -> String { "reply \"\(line.prefix(80))\" does not match \"\(pattern)\"" }

    /// What a device says of a reply that does not match.
    public func mismatch(_ line: String, peer: String) -> String { "\(peer): \(mismatch(line))" }
}

/// An HTTP/1.1 head up to its blank line (the WebSocket upgrade, both sides). What follows the
/// head is left for the next decoder: `remainder()`.
public struct HTTPHeadDecoder: FrameDecoder {
    public let cap: Int
    var queue = ByteQueue()

    public init(cap: Int = 65_536) { self.cap = cap }

    public mutating func feed(_ bytes: ArraySlice<UInt8>) { queue.append(bytes) }

    /// The head as text, without the blank line.
    public mutating func next() throws(FramingError) -> String? {
        guard let end = queue.firstRange(of: [13, 10, 13, 10]) else {
            guard queue.count <= cap else { throw .oversized(what: "HTTP head", size: queue.count, cap: cap) }
            return nil
        }
        let head = String(decoding: queue.bytes(0..<end.lowerBound), as: UTF8.self)
        queue.consume(end.upperBound)
        return head
    }

    /// Whether the bytes so far can still be an HTTP response (they start with "HTTP/").
    public var looksLikeHTTPResponse: Bool {
        let prefix = Array("HTTP/".utf8)
        return (0..<min(queue.count, prefix.count)).allSatisfy { queue[$0] == prefix[$0] }
    }

    /// The first line buffered, for a message about what the peer sent instead.
    public var firstLine: String {
        let n = min(queue.count, 80)
        return String(decoding: queue.bytes(0..<n).prefix(while: { $0 != 10 && $0 != 13 }), as: UTF8.self)
    }

    /// Bytes after the head (the first frames of the upgraded protocol).
    public mutating func remainder() -> ArraySlice<UInt8> { queue.takeAll() }
}
