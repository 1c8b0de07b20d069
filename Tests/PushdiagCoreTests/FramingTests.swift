import PushdiagCore
import Testing

/// The one decoder shape: bytes in as they come, whole frames out, a cap before buffering.
struct FramingTests {
    @Test func byteQueueConsumesWithoutLosingBytes() {
        var q = ByteQueue()
        var expected: [UInt8] = []
        var next: UInt8 = 0
        for round in 0..<200 {
            let chunk = (0..<(round % 7 + 1)).map { _ -> UInt8 in
                defer { next &+= 1 }
                return next
            }
            q.append(chunk[...])
            expected += chunk
            let take = min(q.count, round % 5)
            #expect(Array(q.bytes(0..<take)) == Array(expected.prefix(take)))
            q.consume(take)
            expected.removeFirst(take)
            #expect(q.count == expected.count)
        }
        #expect(Array(q.takeAll()) == expected && q.isEmpty)
    }

    @Test func linesAcrossReadsWithCRLFAndACap() throws {
        var d = LineDecoder(cap: 8)
        d.feed(Array("PO".utf8)[...])
        #expect(try d.next() == nil)
        d.feed(Array("NG\r\nok\nrest".utf8)[...])
        #expect(try d.next() == "PONG")
        #expect(try d.next() == "ok")
        #expect(try d.next() == nil, "an unfinished line waits")
        d.feed(Array("12345".utf8)[...])
        #expect(throws: FramingError.oversized(what: "reply line", size: 9, cap: 8)) { try d.next() }
        var long = LineDecoder(cap: 3)
        long.feed(Array("abcdef\n".utf8)[...])
        #expect(throws: FramingError.oversized(what: "reply line", size: 6, cap: 3)) { try long.next() }
    }

    @Test func httpHeadLeavesWhatFollowsForTheNextDecoder() throws {
        var h = HTTPHeadDecoder(cap: 1024)
        h.feed(Array("HTTP/1.1 101 Switching".utf8)[...])
        #expect(try h.next() == nil && h.looksLikeHTTPResponse)
        h.feed(Array(" Protocols\r\nUpgrade: websocket\r\n\r\n".utf8)[...] + [0x8A, 0x00][...])
        #expect(try h.next() == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket")
        var ws = WebSocket.Decoder()
        ws.feed(h.remainder())
        let pong = try #require(try ws.next())
        #expect(pong.opcode == WebSocket.opPong && pong.payload.isEmpty)
        var other = HTTPHeadDecoder()
        other.feed(Array("SSH-2.0-OpenSSH\r\n".utf8)[...])
        #expect(!other.looksLikeHTTPResponse && other.firstLine == "SSH-2.0-OpenSSH")
        var big = HTTPHeadDecoder(cap: 4)
        big.feed(Array("HTTP/1.1".utf8)[...])
        #expect(throws: FramingError.oversized(what: "HTTP head", size: 8, cap: 4)) { try big.next() }
    }

    /// Every protocol's decoder is the one shape, so one generic loop drives any of them.
    @Test func oneLoopDrivesEveryDecoder() throws {
        func drain<D: FrameDecoder>(_ d: inout D, _ chunks: [[UInt8]]) throws -> [D.Frame] {
            var out: [D.Frame] = []
            for c in chunks {
                d.feed(c[...])
                while let f = try d.next() { out.append(f) }
            }
            return out
        }
        let sp = SimplePush.frame(SimplePush.heartbeat(id: 1, count: 1), order: .big) + SimplePush.frame(SimplePush.heartbeat(id: 2, count: 2), order: .big)
        var s = SimplePush.Decoder(order: .big)
        #expect(try drain(&s, [Array(sp[0..<3]), Array(sp[3...])]).map(\.requestIdentifier) == [1, 2])
        var m = MQTT.Decoder()
        #expect(try drain(&m, [[0xD0], [0x00, 0xD0, 0x00]]).map(\.type) == [MQTT.pingresp, MQTT.pingresp])
        var l = LineDecoder()
        #expect(try drain(&l, [Array("a\nb".utf8), Array("\n".utf8)]) == ["a", "b"])
    }
}
