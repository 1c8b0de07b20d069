import FoundationEssentials

/// RFC 6455: the HTTP upgrade to open, a masked ping answered by a pong with its payload as the
/// heartbeat, a close to go. The responder answers the upgrade and every ping.
public struct WebSocketProtocol: PushProtocol {
    public init() {}
    public var name: String { "websocket" }
    public var summary: String { "websocket (RFC 6455 ping/pong, ws:// or wss:// with --tls)" }
    public func defaultPort(tls: Bool) -> UInt16? { tls ? 443 : 80 }
    public var modes: PushModes { [.holdsConnection, .serve] }
    public var settings: Set<PushSetting> { [.path, .maxFrame] }
    public func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient {
        // The Host header names the port only when it is not the scheme's.
        let host = o.endpoint.port == defaultPort(tls: o.tls != nil) ? o.endpoint.host : o.endpoint.description
        return Client(host: host, path: o.path, cap: o.frameCap, peer: o.endpoint.description)
    }
    public func server(_ s: PushServerSettings) -> (any PushServer)? { Server(cap: s.frameCap) }

    static func randomBytes(_ n: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    struct Client: PushClient {
        let host: String
        let path: String
        let peer: String
        var head: HTTPHeadDecoder?
        var frames: WebSocket.Decoder
        var key = ""
        let mask = WebSocketProtocol.randomBytes(4)
        var pending: [UInt8]?

        init(host: String, path: String, cap: Int, peer: String) {
            self.host = host
            self.path = path
            self.peer = peer
            frames = WebSocket.Decoder(cap: cap)
            head = HTTPHeadDecoder(cap: cap)
        }

        var helloName: String { "the WebSocket upgrade" }

        mutating func hello() -> [UInt8]? {
            key = Data(WebSocketProtocol.randomBytes(16)).base64EncodedString()
            return WebSocket.upgradeRequest(host: host, path: path, key: key)
        }

        mutating func heartbeat(_ n: Int) -> [UInt8] {
            let payload = Array("pushdiag-\(n)".utf8)
            pending = payload
            return WebSocket.frame(opcode: WebSocket.opPing, payload: payload, mask: mask)
        }

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent] {
            var out: [PushClientEvent] = []
            var rest = bytes
            if var h = head {
                h.feed(bytes)
                rest = []
                guard h.looksLikeHTTPResponse else {
                    throw .protocolViolation("\(peer): WebSocket upgrade failed: the server answered \"\(h.firstLine)\", not HTTP")
                }
                let response: String?
                do throws(FramingError) { response = try h.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let response else {
                    head = h
                    return out
                }
                if let why = WebSocket.checkResponse(response, key: key) { throw .protocolViolation("\(peer): WebSocket upgrade failed: \(why)") }
                head = nil
                rest = h.remainder()
                out.append(.opened)
            }
            frames.feed(rest)
            while true {
                let f: WebSocket.Frame?
                do throws(FramingError) { f = try frames.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let f else { return out }
                if f.opcode == WebSocket.opPong, let p = pending, f.payload == p {
                    pending = nil
                    out.append(.answered)
                } else if f.opcode == WebSocket.opClose {
                    throw .closedByPeer("the server closed the WebSocket")
                } else if f.opcode == WebSocket.opPing {
                    out.append(.reply(WebSocket.frame(opcode: WebSocket.opPong, payload: f.payload, mask: mask)))
                }
            }
        }

        func goodbye() -> [UInt8]? { WebSocket.frame(opcode: WebSocket.opClose, payload: [0x03, 0xE8], mask: [1, 2, 3, 4]) }
    }

    struct Server: PushServer {
        var head: HTTPHeadDecoder?
        var frames: WebSocket.Decoder

        init(cap: Int) {
            head = HTTPHeadDecoder(cap: cap)
            frames = WebSocket.Decoder()
        }

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(FramingError) -> [PushServerAction] {
            var out: [PushServerAction] = []
            var rest = bytes
            if var h = head {
                h.feed(bytes)
                guard let request = try h.next() else {
                    head = h
                    return out
                }
                rest = h.remainder()
                guard let response = WebSocket.upgradeResponse(request) else {
                    head = h
                    return [.send(Array("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n".utf8), close: true)]
                }
                head = nil
                out.append(.send(response, close: false))
            }
            frames.feed(rest)
            while let f = try frames.next() {
                switch f.opcode {
                case WebSocket.opPing: out.append(.answer(WebSocket.serverFrame(opcode: WebSocket.opPong, payload: f.payload)))
                case WebSocket.opClose:
                    out.append(.send(WebSocket.serverFrame(opcode: WebSocket.opClose, payload: Array(f.payload.prefix(2))), close: true))
                    return out
                default: break
                }
            }
            return out
        }
    }
}
