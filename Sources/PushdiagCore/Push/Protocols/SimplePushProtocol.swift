/// Apple's Local Push Connectivity sample (`SimplePush`): every request is acknowledged, the
/// server sends its own heartbeats to registered users.
public struct SimplePushProtocol: PushProtocol {
    public init() {}
    public var name: String { "simplepush" }
    public var summary: String { "simplepush (Apple's Local Push Connectivity sample: 4-byte length prefix and JSON, port 3000)" }
    public func defaultPort(tls: Bool) -> UInt16? { 3000 }
    public var modes: PushModes { [.holdsConnection, .load, .storm, .register, .serve] }
    public var settings: Set<PushSetting> { [.byteOrder, .maxFrame] }
    public func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient { Client(order: o.byteOrder, cap: o.frameCap, peer: o.endpoint.description) }
    public func server(_ s: PushServerSettings) -> (any PushServer)? { Server(order: s.byteOrder, cap: s.frameCap) }

    struct Client: PushClient {
        let order: SimplePush.ByteOrder
        let peer: String
        var decoder: SimplePush.Decoder
        var nextID: UInt32 = 1
        var pending: UInt32?
        var registration: UInt32?

        init(order: SimplePush.ByteOrder, cap: Int, peer: String) {
            self.order = order
            self.peer = peer
            decoder = SimplePush.Decoder(order: order, cap: cap)
        }

        mutating func takeID() -> UInt32 {
            defer { nextID &+= 1 }
            return nextID
        }

        mutating func register(_ name: String) -> [UInt8]? {
            let id = takeID()
            registration = id
            return SimplePush.frame(SimplePush.registration(id: id, name: name), order: order)
        }

        mutating func heartbeat(_ n: Int) -> [UInt8] {
            let id = takeID()
            pending = id
            return SimplePush.frame(SimplePush.heartbeat(id: id, count: Int64(n)), order: order)
        }

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent] {
            decoder.feed(bytes)
            var out: [PushClientEvent] = []
            while true {
                let m: SimplePush.Message?
                do throws(FramingError) { m = try decoder.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let m else { return out }
                if m.isAcknowledge, let id = pending, m.requestIdentifier == id {
                    pending = nil
                    out.append(.answered)
                } else if m.isAcknowledge, let id = registration, m.requestIdentifier == id {
                    registration = nil
                    out.append(.registered)
                } else if m.isRequest {
                    if SimplePush.heartbeatCount(m) != nil { out.append(.serverHeartbeat) }
                    out.append(.reply(SimplePush.frame(SimplePush.acknowledge(m), order: order)))
                }
            }
        }
    }

    struct Server: PushServer {
        let order: SimplePush.ByteOrder
        var decoder: SimplePush.Decoder
        var registered = false

        init(order: SimplePush.ByteOrder, cap: Int) {
            self.order = order
            decoder = SimplePush.Decoder(order: order, cap: cap)
        }

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(FramingError) -> [PushServerAction] {
            decoder.feed(bytes)
            var out: [PushServerAction] = []
            while let m = try decoder.next() {
                guard m.isRequest else { continue }
                if m.payload?.codingKey == SimplePush.codingKeyRegistration, !registered {
                    registered = true
                    out.append(.registered)
                }
                out.append(.answer(SimplePush.frame(SimplePush.acknowledge(m), order: order)))
            }
            return out
        }

        func serverHeartbeat(id: UInt32, count: Int64) -> [UInt8]? {
            SimplePush.frame(SimplePush.heartbeat(id: id, count: count), order: order)
        }
    }
}
