/// MQTT 3.1.1: CONNECT/CONNACK to open, PINGREQ/PINGRESP as the heartbeat, DISCONNECT to go.
/// The responder does not serve it (mosquitto does, in the tests).
public struct MQTTProtocol: PushProtocol {
    public init() {}
    public var name: String { "mqtt" }
    public var summary: String { "mqtt (3.1.1 CONNECT, then PINGREQ/PINGRESP)" }
    public func defaultPort(tls: Bool) -> UInt16? { tls ? 8883 : 1883 }
    public var modes: PushModes { [.holdsConnection, .storm] }
    public var settings: Set<PushSetting> { [.keepAlive, .maxFrame] }
    public func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient {
        Client(clientID: clientID, keepAlive: o.keepAlive, decoder: MQTT.Decoder(cap: o.frameCap), peer: o.endpoint.description)
    }

    struct Client: PushClient {
        let clientID: String
        let keepAlive: UInt16
        var decoder: MQTT.Decoder
        let peer: String
        var opening = false
        var pending = false

        var helloName: String { "the MQTT CONNECT" }

        mutating func hello() -> [UInt8]? {
            opening = true
            return MQTT.connect(clientID: clientID, keepAlive: keepAlive)
        }

        mutating func heartbeat(_ n: Int) -> [UInt8] {
            pending = true
            return MQTT.pingRequest
        }

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent] {
            decoder.feed(bytes)
            var out: [PushClientEvent] = []
            while true {
                let p: MQTT.Packet?
                do throws(FramingError) { p = try decoder.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let p else { return out }
                if p.type == MQTT.connack, opening, p.body.count >= 2 {
                    opening = false
                    let code = p.body[1]
                    if code != 0 { throw .protocolViolation("\(peer): MQTT connection refused: \(MQTT.connackReason(code))") }
                    out.append(.opened)
                } else if p.type == MQTT.pingresp, pending {
                    pending = false
                    out.append(.answered)
                }
            }
        }

        func goodbye() -> [UInt8]? { MQTT.disconnect }
    }
}
