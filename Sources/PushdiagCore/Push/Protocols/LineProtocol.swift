/// A line out (`--send`), a line back that matches `--expect`; the responder answers every line
/// with `--reply`.
public struct LineProtocol: PushProtocol {
    public init() {}
    public var name: String { "line" }
    public var summary: String { "line (send a line, expect a reply matching a pattern)" }
    public func defaultPort(tls: Bool) -> UInt16? { nil }
    public var modes: PushModes { [.holdsConnection, .load, .storm, .serve] }
    public var settings: Set<PushSetting> { [.send, .expect, .reply, .maxFrame] }
    public func client(_ o: HeartbeatOptions, clientID: String) -> any PushClient {
        Client(send: Array((o.send + "\n").utf8), expect: LineReplyMatcher(o.expect), lines: LineDecoder(cap: o.frameCap), peer: o.endpoint.description)
    }
    public func server(_ s: PushServerSettings) -> (any PushServer)? {
        Server(reply: Array((s.reply + "\n").utf8), lines: LineDecoder(cap: s.frameCap))
    }

    struct Client: PushClient {
        let send: [UInt8]
        let expect: LineReplyMatcher
        var lines: LineDecoder
        let peer: String
        var pending = false

        mutating func heartbeat(_ n: Int) -> [UInt8] {
            pending = true
            return send
        }

        /// Every line answers the heartbeat outstanding, and must match.
        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(ConnectionFailure) -> [PushClientEvent] {
            lines.feed(bytes)
            var out: [PushClientEvent] = []
            while true {
                let line: String?
                do throws(FramingError) { line = try lines.next() } catch { throw .protocolViolation("\(peer): \(error)") }
                guard let line else { return out }
                guard expect.matches(line) else { throw .protocolViolation(expect.mismatch(line, peer: peer)) }
                if pending {
                    pending = false
                    out.append(.answered)
                }
            }
        }
    }

    struct Server: PushServer {
        let reply: [UInt8]
        var lines: LineDecoder

        mutating func receive(_ bytes: ArraySlice<UInt8>) throws(FramingError) -> [PushServerAction] {
            lines.feed(bytes)
            var out: [PushServerAction] = []
            while try lines.next() != nil { out.append(.answer(reply)) }
            return out
        }
    }
}
