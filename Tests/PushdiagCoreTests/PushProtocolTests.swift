import Foundation
import Testing

@testable import PushdiagCore

struct PushProtocolTests {
    @Test func sha1AndTheWebSocketAccept() {
        let hex = SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
        // RFC 6455 section 1.3.
        #expect(WebSocket.expectedAccept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(
            WebSocket.checkResponse(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", key: "dGhlIHNhbXBsZSBub25jZQ==")
                == nil)
        #expect(WebSocket.checkResponse("HTTP/1.1 200 OK", key: "x")?.contains("200 OK") == true)
    }

    @Test func websocketFrames() throws {
        let f = WebSocket.frame(opcode: WebSocket.opPing, payload: Array("hi".utf8), mask: [1, 2, 3, 4])
        #expect(f == [0x89, 0x82, 1, 2, 3, 4, UInt8(ascii: "h") ^ 1, UInt8(ascii: "i") ^ 2])
        var d = WebSocket.Decoder(cap: 100)
        d.feed([0x8A, 0x02, 0x68][...])
        #expect(try d.next() == nil, "waits for the rest")
        d.feed([0x69][...])
        #expect(try d.next() == WebSocket.Frame(opcode: 10, payload: Array("hi".utf8)))
        var big = WebSocket.Decoder(cap: 100)
        big.feed([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0][...])
        #expect(throws: FramingError.oversized(what: "WebSocket frame", size: 1 << 32, cap: 100)) { try big.next() }
    }

    @Test func mqttPackets() throws {
        let c = MQTT.connect(clientID: "a", keepAlive: 60)
        #expect(c == [0x10, 13, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x02, 0, 60, 0, 1, 0x61])
        var d = MQTT.Decoder(cap: 1000)
        d.feed([0x20, 0x02, 0x00, 0x05, 0xD0][...])
        #expect(try d.next() == MQTT.Packet(type: 2, flags: 0, body: [0, 5]))
        #expect(try d.next() == nil)
        d.feed([0x00][...])
        #expect(try d.next()?.type == MQTT.pingresp)
        var bad = MQTT.Decoder(cap: 10)
        bad.feed([0x30, 0xFF, 0xFF, 0xFF, 0x7F][...])
        #expect(throws: FramingError.oversized(what: "MQTT packet", size: 268_435_455, cap: 10)) { try bad.next() }
        var five = MQTT.Decoder(cap: 10)
        five.feed([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01][...])
        #expect(throws: FramingError.malformed("MQTT packet with a malformed remaining length")) { try five.next() }
    }

    @Test func simplePushFraming() throws {
        let m = SimplePush.heartbeat(id: 7, count: 3)
        for order in SimplePush.ByteOrder.allCases {
            let bytes = SimplePush.frame(m, order: order)
            var d = SimplePush.Decoder(order: order)
            d.feed(bytes[0..<5])
            #expect(try d.next() == nil)
            d.feed(bytes[5...])
            let back = try #require(try d.next())
            #expect(back == m && SimplePush.heartbeatCount(back) == 3)
        }
        var d = SimplePush.Decoder(order: .little, cap: 100)
        d.feed([0xFF, 0xFF, 0, 0][...])
        #expect(throws: FramingError.oversized(what: "frame", size: 65535, cap: 100)) { try d.next() }
        var g = SimplePush.Decoder(order: .little)
        g.feed([3, 0, 0, 0, 0x7B, 0x7D, 0x7D][...])
        #expect(throws: FramingError.self) { try g.next() }
    }

    @Test func rttStatistics() throws {
        let s = try #require(RTTSummary.of([4, 1, 3, 2, 100]))
        #expect(s.min == 1 && s.max == 100 && s.median == 3 && s.p95 == 100 && s.avg == 22)
        #expect(RTTSummary.jitter([1, 3, 2]) == 1.5)
        #expect(RTTSummary.of([]) == nil)
        #expect(HeartbeatAnalysis.schedule("0.5,1,2s,500ms") == [0.5, 1, 2, 0.5])
        #expect(HeartbeatAnalysis.schedule("1,x") == nil)
    }
}

/// `PushProtocol.settings` is what each protocol's machines read: a setting it declares changes
/// what its client sends or how it takes an answer (or what its server answers), one it does not
/// declare changes nothing. What the flags, a [[server]] table and /probe refuse comes from the
/// declaration, so a declaration that lied would refuse a setting that works or let one do
/// nothing. (`--max-frame`, a decoder's limit, is read by every protocol that decodes frames:
/// their clients are built with `o.frameCap`, tcp's with nothing.)
struct ProtocolSettingsTests {
    /// What a client does that a setting may change: its hello up to a WebSocket key (random, as
    /// a WebSocket mask is), the start of its first heartbeat (the length prefix, the line), and
    /// what an answer "PONG" means to it.
    static func behaviour(_ proto: HeartbeatProtocol, _ change: (inout HeartbeatOptions) -> Void) -> String {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "h", port: 7), proto: proto)
        change(&o)
        var c = proto.definition.client(o, clientID: "c")
        var hello = c.hello() ?? []
        let key = Array("Sec-WebSocket-Key".utf8)
        if let at = hello.indices.first(where: { hello[$0...].starts(with: key) }) { hello = Array(hello[..<at]) }
        let beat = c.heartbeat(1).prefix(2)
        let answer: String
        do { answer = "\(try c.receive(Array("PONG\n".utf8)[...]))" } catch { answer = "\(error)" }
        return "\(hello) \(Array(beat)) \(answer)"
    }

    static let changes: [(PushSetting, @Sendable (inout HeartbeatOptions) -> Void)] = [
        (.byteOrder, { $0.byteOrder = .big }), (.send, { $0.send = "other" }), (.expect, { $0.expect = "^NOPE" }), (.path, { $0.path = "/x" }),
        (.keepAlive, { $0.keepAlive = 5 }),
    ]

    @Test(arguments: HeartbeatProtocol.allCases)
    func aClientReadsTheSettingsItsProtocolDeclares(proto: HeartbeatProtocol) {
        let plain = Self.behaviour(proto) { _ in }
        for (setting, change) in Self.changes {
            #expect((Self.behaviour(proto, change) != plain) == proto.settings.contains(setting), "\(proto) \(setting)")
        }
    }

    @Test(arguments: HeartbeatProtocol.with(.serve))
    func aServerReadsTheSettingsItsProtocolDeclares(proto: HeartbeatProtocol) throws {
        func answer(_ change: (inout PushServerSettings) -> Void) throws -> String {
            var s = PushServerSettings()
            change(&s)
            var server = try #require(proto.definition.server(s))
            var c = proto.definition.client(HeartbeatOptions(endpoint: Endpoint(host: "h", port: 7), proto: proto), clientID: "c")
            // What the answers mean to a client of the default settings (the bytes may differ
            // from run to run: JSON's key order, a WebSocket mask).
            do {
                var events: [PushClientEvent] = []
                for bytes in [c.hello(), c.heartbeat(1)].compactMap({ $0 }) {
                    for action in try server.receive(bytes[...]) {
                        switch action {
                        case .answer(let b), .send(let b, _): events += try c.receive(b[...])
                        case .registered: break
                        }
                    }
                }
                return "\(events)"
            } catch { return "\(error)" }
        }
        let plain = try answer { _ in }
        #expect((try answer { $0.byteOrder = .big } != plain) == proto.settings.contains(.byteOrder), "\(proto) byte order")
        #expect((try answer { $0.reply = "other" } != plain) == proto.settings.contains(.reply), "\(proto) reply")
    }
}
