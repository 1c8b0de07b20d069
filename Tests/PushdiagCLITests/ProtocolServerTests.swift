import Foundation
import TestSupport
import Testing

/// Heartbeats against well-known servers: mosquitto (MQTT) and the Python websockets library.
@Suite(.serialized)
struct ProtocolServerTests {
    @Test(.enabled(if: TestPaths.which("mosquitto") != nil, "mosquitto is not installed"))
    func mqttAgainstMosquitto() throws {
        let mosquitto = TestPaths.which("mosquitto")!
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = freePort()
        let open = dir.appendingPathComponent("open.conf")
        try "listener \(port) 127.0.0.1\nallow_anonymous true\n".write(to: open, atomically: true, encoding: .utf8)
        let server = try Background(mosquitto, ["-c", open.path, "-v"])
        defer { server.stop() }
        #expect(server.wait(for: "running"), "mosquitto did not start: \(server.output)")
        let r = try pushdiag("heartbeat", "127.0.0.1:\(port)", "--protocol", "mqtt", "--count", "5", "--interval", "20ms", "--format", "json")
        let j = try json(r.stdout)
        #expect(r.status == 0 && j["received"] as? Int == 5 && j["handshake_ms"] is Double, "\(r.stderr)")
        #expect(server.output.contains("PINGREQ"), "mosquitto saw the pings")

        // A broker that refuses anonymous clients: the CONNACK's reason, a critical finding (devices
        // would be refused too).
        let closedPort = freePort()
        let closed = dir.appendingPathComponent("closed.conf")
        try "listener \(closedPort) 127.0.0.1\nallow_anonymous false\n".write(to: closed, atomically: true, encoding: .utf8)
        let refusing = try Background(mosquitto, ["-c", closed.path])
        defer { refusing.stop() }
        #expect(refusing.wait(for: "running"))
        let no = try pushdiag("heartbeat", "127.0.0.1:\(closedPort)", "--protocol", "mqtt", "--count", "2")
        #expect(no.status == 2 && no.stderr.contains("MQTT connection refused: not authorized"), "\(no.stderr)")
        #expect(no.stdout.contains("CRITICAL protocol: "), "\(no.stdout)")
    }

    static let python = "/usr/bin/python3"
    static var hasWebsockets: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(python, ["-c", "import websockets"]).status) == 0
    }

    @Test(.enabled(if: hasWebsockets, "Debian's python3-websockets is not installed"))
    func websocketAgainstPythonWebsockets() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("server.py")
        try """
        import asyncio, sys, websockets
        async def handler(ws):
            print("path", ws.path, flush=True)
            async for _ in ws:
                pass
        async def main():
            async with websockets.serve(handler, "127.0.0.1", int(sys.argv[1])):
                print("listening", flush=True)
                await asyncio.Future()
        asyncio.run(main())
        """.write(to: script, atomically: true, encoding: .utf8)
        let port = freePort()
        let server = try Background(Self.python, [script.path, String(port)])
        defer { server.stop() }
        #expect(server.wait(for: "listening"), "websockets server did not start: \(server.output)")
        let r = try pushdiag(
            "heartbeat", "127.0.0.1:\(port)", "--protocol", "websocket", "--path", "/push/v1", "--count", "5", "--interval", "20ms", "--format", "json")
        let j = try json(r.stdout)
        #expect(r.status == 0 && j["received"] as? Int == 5, "\(r.stderr)")
        #expect(server.wait(for: "path /push/v1"), "the server saw the path")

        // Not a WebSocket server: the status line it gave, a critical protocol finding.
        let linePort = freePort()
        let line = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(linePort)", "--protocol", "line"])
        defer { line.stop() }
        #expect(line.wait(for: "listening"))
        let no = try pushdiag("heartbeat", "127.0.0.1:\(linePort)", "--protocol", "websocket", "--count", "1", "--timeout", "1s")
        #expect(no.status == 2 && no.stderr.contains("WebSocket upgrade failed"), "\(no.stderr)")
        #expect(no.stdout.contains("CRITICAL protocol: "), "\(no.stdout)")
    }

    /// The responder's WebSocket side, checked by Python's websockets client (it validates the
    /// handshake and the pong) and by pushdiag, with the responder's delay in every round trip.
    @Test(.enabled(if: hasWebsockets, "Debian's python3-websockets is not installed"))
    func websocketResponderAgainstPythonClient() throws {
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--protocol", "websocket", "--delay", "10ms"])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"))
        let client = """
            import asyncio, sys, time, websockets
            async def main():
                async with websockets.connect(f"ws://127.0.0.1:{sys.argv[1]}/push") as ws:
                    t = time.monotonic()
                    await (await ws.ping(b"hello"))
                    print("pong after %.1f ms" % ((time.monotonic() - t) * 1000))
            asyncio.run(main())
            """
        let r = try run(Self.python, ["-c", client, String(port)])
        #expect(r.status == 0 && r.stdout.hasPrefix("pong after"), "\(r.stdout) \(r.stderr)")
        let ms = Double(r.stdout.split(separator: " ")[2]) ?? 0
        #expect(ms >= 10, "the responder's delay")
        let h = try pushdiag("heartbeat", "127.0.0.1:\(port)", "--protocol", "websocket", "--count", "3", "--interval", "20ms", "--format", "json")
        let hj = try json(h.stdout)
        #expect(h.status == 0 && hj["received"] as? Int == 3)
    }
}
