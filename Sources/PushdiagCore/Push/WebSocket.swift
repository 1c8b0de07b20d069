import FoundationEssentials

/// RFC 6455 WebSocket, the part a heartbeat needs: the HTTP/1.1 upgrade with its
/// Sec-WebSocket-Accept check, masked client frames, ping/pong and close.
public enum WebSocket {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    public static func upgradeRequest(host: String, path: String, key: String) -> [UInt8] {
        Array(
            ("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nUser-Agent: pushdiag\r\n\r\n").utf8)
    }

    /// base64(SHA-1(key + GUID)), what the server must answer.
    public static func expectedAccept(key: String) -> String { Data(SHA1.hash(Array((key + guid).utf8))).base64EncodedString() }

    /// Checks the server's response head (up to the blank line). Nil when the upgrade succeeded,
    /// else why not.
    public static func checkResponse(_ head: String, key: String) -> String? {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard let status = lines.first else { return "empty response" }
        let parts = status.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1] == "101" else {
            return "the server answered \"\(status.prefix(80))\" instead of 101 Switching Protocols"
        }
        var accept: String?
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            if l[..<colon].lowercased() == "sec-websocket-accept" {
                accept = String(l[l.index(after: colon)...]).trimmingCharactersInSet(" ")
            }
        }
        guard accept == expectedAccept(key: key) else { return "Sec-WebSocket-Accept is \(accept ?? "missing"), not \(expectedAccept(key: key))" }
        return nil
    }

    /// A masked client frame (FIN set).
    public static func frame(opcode: UInt8, payload: [UInt8], mask: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n <= 0xFFFF {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for i in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: n >> (8 * i))) }
        }
        out += mask
        for (i, b) in payload.enumerated() { out.append(b ^ mask[i % 4]) }
        return out
    }

    public static let opClose: UInt8 = 8, opPing: UInt8 = 9, opPong: UInt8 = 10

    /// A server frame: unmasked, FIN set.
    public static func serverFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        var out: [UInt8] = [0x80 | opcode]
        if n < 126 {
            out.append(UInt8(n))
        } else if n <= 0xFFFF {
            out += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(127)
            for i in (0..<8).reversed() { out.append(UInt8(truncatingIfNeeded: n >> (8 * i))) }
        }
        return out + payload
    }

    /// The server's side of the upgrade: the 101 response for a request head, or nil when the
    /// head is not a WebSocket upgrade (the caller answers 400).
    public static func upgradeResponse(_ head: String) -> [UInt8]? {
        let lines = head.split(separator: "\r\n").map(String.init)
        guard let first = lines.first, first.hasPrefix("GET ") else { return nil }
        var key: String?
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            if l[..<colon].lowercased() == "sec-websocket-key" { key = String(l[l.index(after: colon)...]).trimmingCharactersInSet(" ") }
        }
        guard let key, !key.isEmpty else { return nil }
        return Array(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(expectedAccept(key: key))\r\n\r\n".utf8)
    }

    public struct Frame: Equatable, Sendable {
        public var opcode: UInt8
        public var payload: [UInt8]
    }

    /// Frames from the server (unmasked, but a masked one is unmasked too).
    public struct Decoder: FrameDecoder {
        public let cap: Int
        var queue = ByteQueue()
        public init(cap: Int = 65_536) { self.cap = cap }
        public mutating func feed(_ b: ArraySlice<UInt8>) { queue.append(b) }

        public mutating func next() throws(FramingError) -> Frame? {
            guard queue.count >= 2 else { return nil }
            let opcode = queue[0] & 0x0F
            let masked = queue[1] & 0x80 != 0
            var n = Int(queue[1] & 0x7F)
            var o = 2
            if n == 126 {
                guard queue.count >= 4 else { return nil }
                n = Int(queue[2]) << 8 | Int(queue[3])
                o = 4
            } else if n == 127 {
                guard queue.count >= 10 else { return nil }
                var v: UInt64 = 0
                for i in 2..<10 { v = v << 8 | UInt64(queue[i]) }
                guard v <= UInt64(cap) else { throw .oversized(what: "WebSocket frame", size: v > UInt64(Int.max) ? Int.max : Int(v), cap: cap) }
                n = Int(v)
                o = 10
            }
            guard n <= cap else { throw .oversized(what: "WebSocket frame", size: n, cap: cap) }
            let maskAt = o
            if masked { o += 4 }
            guard queue.count >= o + n else { return nil }
            var payload = Array(queue.bytes(o..<(o + n)))
            if masked { for i in 0..<payload.count { payload[i] ^= queue[maskAt + i % 4] } }
            queue.consume(o + n)
            return Frame(opcode: opcode, payload: payload)
        }
    }
}
