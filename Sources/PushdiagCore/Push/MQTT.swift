/// MQTT 3.1.1 (OASIS), the part a heartbeat needs: CONNECT/CONNACK, PINGREQ/PINGRESP,
/// DISCONNECT, and a stream decoder that refuses packets above a cap before buffering them.
public enum MQTT {
    public static let connack: UInt8 = 2, pingresp: UInt8 = 13

    static func remainingLength(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        var x = n
        repeat {
            var b = UInt8(x % 128)
            x /= 128
            if x > 0 { b |= 0x80 }
            out.append(b)
        } while x > 0
        return out
    }

    static func string(_ s: String) -> [UInt8] {
        let b = Array(s.utf8)
        return [UInt8(b.count >> 8), UInt8(b.count & 0xFF)] + b
    }

    /// CONNECT with a clean session and the given keep-alive (seconds).
    public static func connect(clientID: String, keepAlive: UInt16) -> [UInt8] {
        let variable = string("MQTT") + [4, 0x02, UInt8(keepAlive >> 8), UInt8(keepAlive & 0xFF)]
        let payload = string(clientID)
        return [0x10] + remainingLength(variable.count + payload.count) + variable + payload
    }

    public static let pingRequest: [UInt8] = [0xC0, 0x00]
    public static let disconnect: [UInt8] = [0xE0, 0x00]

    /// CONNACK return codes (MQTT 3.1.1 table 3.1).
    public static func connackReason(_ code: UInt8) -> String {
        switch code {
        case 0: return "accepted"
        case 1: return "unacceptable protocol version"
        case 2: return "client identifier rejected"
        case 3: return "server unavailable"
        case 4: return "bad user name or password"
        case 5: return "not authorized"
        default: return "return code \(code)"
        }
    }

    public struct Packet: Equatable, Sendable {
        public var type: UInt8
        public var flags: UInt8
        public var body: [UInt8]
    }

    public struct Decoder: FrameDecoder {
        public let cap: Int
        var queue = ByteQueue()
        public init(cap: Int = 65_536) { self.cap = cap }
        public mutating func feed(_ b: ArraySlice<UInt8>) { queue.append(b) }

        public mutating func next() throws(FramingError) -> Packet? {
            guard queue.count >= 2 else { return nil }
            var length = 0
            var multiplier = 1
            var i = 1
            while true {
                guard i < queue.count else { return nil }
                guard i <= 4 else { throw .malformed("MQTT packet with a malformed remaining length") }
                let b = queue[i]
                length += Int(b & 0x7F) * multiplier
                multiplier *= 128
                i += 1
                if b & 0x80 == 0 { break }
            }
            guard length <= cap else { throw .oversized(what: "MQTT packet", size: length, cap: cap) }
            guard queue.count >= i + length else { return nil }
            let p = Packet(type: queue[0] >> 4, flags: queue[0] & 0x0F, body: Array(queue.bytes(i..<(i + length))))
            queue.consume(i + length)
            return p
        }
    }
}
