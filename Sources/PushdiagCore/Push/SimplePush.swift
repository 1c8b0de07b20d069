import FoundationEssentials

/// The wire protocol of Apple's Local Push Connectivity sample ("SimplePush"), which real
/// deployments copy: each message is a 4-byte length prefix (little-endian as Apple hardware
/// writes it; some ports use network order) and a JSON body
/// `{"command":"request"|"acknowledge","requestIdentifier":N,"payload":{"codingKey":K,"data":"<base64 JSON>"}}`.
/// Every request is answered by an acknowledge with the same identifier. codingKey 4 is a
/// heartbeat `{"count":N}`, 1 a user registration.
public enum SimplePush {
    public enum ByteOrder: String, Sendable, CaseIterable {
        case little, big
    }

    public static let codingKeyRegistration: UInt8 = 1
    public static let codingKeyHeartbeat: UInt8 = 4

    public struct Payload: Codable, Sendable, Equatable {
        public var codingKey: UInt8
        /// Base64 of a JSON object.
        public var data: String
    }

    /// The commands this protocol defines.
    public enum Command: String, Sendable {
        case request, acknowledge
    }

    public struct Message: Codable, Sendable, Equatable {
        /// A `Command`'s raw value; kept as text so that a message with a command pushdiag does
        /// not know still decodes (and is neither a request nor an acknowledge).
        public var command: String
        public var requestIdentifier: UInt32
        public var payload: Payload?

        public init(command: String, requestIdentifier: UInt32, payload: Payload?) {
            self.command = command
            self.requestIdentifier = requestIdentifier
            self.payload = payload
        }

        public var isRequest: Bool { command == Command.request.rawValue }
        public var isAcknowledge: Bool { command == Command.acknowledge.rawValue }
    }

    struct Heartbeat: Codable { var count: Int64 }
    struct Registration: Codable { var name: String }

    public static func heartbeat(id: UInt32, count: Int64) -> Message {
        let json = try! JSONEncoder().encode(Heartbeat(count: count))
        return Message(
            command: Command.request.rawValue, requestIdentifier: id, payload: Payload(codingKey: codingKeyHeartbeat, data: json.base64EncodedString()))
    }

    public static func registration(id: UInt32, name: String) -> Message {
        let json = try! JSONEncoder().encode(Registration(name: name))
        return Message(
            command: Command.request.rawValue, requestIdentifier: id, payload: Payload(codingKey: codingKeyRegistration, data: json.base64EncodedString()))
    }

    public static func acknowledge(_ m: Message) -> Message {
        Message(command: Command.acknowledge.rawValue, requestIdentifier: m.requestIdentifier, payload: nil)
    }

    /// The count of a heartbeat request, or nil when the message is not one.
    public static func heartbeatCount(_ m: Message) -> Int64? {
        guard m.isRequest, let p = m.payload, p.codingKey == codingKeyHeartbeat, let d = Data(base64Encoded: p.data),
            let h = try? JSONDecoder().decode(Heartbeat.self, from: d)
        else { return nil }
        return h.count
    }

    /// Length prefix and body.
    public static func frame(_ m: Message, order: ByteOrder) -> [UInt8] {
        let body = [UInt8](try! JSONEncoder().encode(m))
        let n = UInt32(body.count)
        let prefix: [UInt8] =
            order == .little
            ? [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)]
            : [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
        return prefix + body
    }

    /// Reassembles frames from a byte stream, refusing frames above `cap` before buffering them.
    public struct Decoder: FrameDecoder {
        public let order: ByteOrder
        public let cap: Int
        var queue = ByteQueue()

        public init(order: ByteOrder, cap: Int = 65_536) {
            self.order = order
            self.cap = cap
        }

        public mutating func feed(_ bytes: ArraySlice<UInt8>) { queue.append(bytes) }

        /// The next complete message, nil when more bytes are needed.
        public mutating func next() throws(FramingError) -> Message? {
            guard queue.count >= 4 else { return nil }
            let b = (queue[0], queue[1], queue[2], queue[3])
            let n =
                order == .little
                ? Int(b.0) | Int(b.1) << 8 | Int(b.2) << 16 | Int(b.3) << 24
                : Int(b.3) | Int(b.2) << 8 | Int(b.1) << 16 | Int(b.0) << 24
            guard n <= cap else { throw .oversized(what: "frame", size: n, cap: cap) }
            guard queue.count >= 4 + n else { return nil }
            let body = Data(queue.bytes(4..<(4 + n)))
            queue.consume(4 + n)
            do {
                return try JSONDecoder().decode(Message.self, from: body)
            } catch {
                throw .malformed("frame is not a SimplePush message: " + String(describing: error).prefix(120))
            }
        }
    }
}
