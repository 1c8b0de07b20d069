// libFuzzer target: bytes from a push server through every framing pushdiag reads — SimplePush
// (both byte orders, JSON bodies), MQTT packets, WebSocket frames and upgrade responses — with
// small caps so the refusals are exercised too; every protocol's client and server machine
// (HeartbeatProtocol.allCases) after its hello and a heartbeat, in two pieces; plus threshold
// ranges and durations as typed.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for order in SimplePush.ByteOrder.allCases {
        var d = SimplePush.Decoder(order: order, cap: 4096)
        d.feed(bytes[...])
        for _ in 0..<64 {
            guard let m = try? d.next() else { break }
            _ = SimplePush.heartbeatCount(m)
        }
    }
    var mq = MQTT.Decoder(cap: 4096)
    mq.feed(bytes[...])
    for _ in 0..<64 { guard (try? mq.next()) != nil else { break } }
    var ws = WebSocket.Decoder(cap: 4096)
    ws.feed(bytes[...])
    for _ in 0..<64 { guard (try? ws.next()) != nil else { break } }
    let half = bytes.count / 2
    for proto in HeartbeatProtocol.allCases {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "h", port: 7), proto: proto)
        o.frameCap = 4096
        var client = proto.definition.client(o, clientID: "fuzz")
        _ = client.hello()
        _ = client.register("u")
        _ = client.heartbeat(1)
        if (try? client.receive(bytes[..<half])) != nil { _ = try? client.receive(bytes[half...]) }
        var settings = PushServerSettings()
        settings.frameCap = 4096
        if var server = proto.definition.server(settings) {
            if (try? server.receive(bytes[..<half])) != nil { _ = try? server.receive(bytes[half...]) }
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = WebSocket.checkResponse(text, key: "dGhlIHNhbXBsZSBub25jZQ==")
    _ = WebSocket.upgradeResponse(text)
    _ = ThresholdRange(text)
    _ = DurationText.seconds(text)
    _ = IPText.parse(text)
    _ = HeartbeatAnalysis.schedule(text)
    return 0
}
