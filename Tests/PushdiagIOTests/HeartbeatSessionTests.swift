import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The session the heartbeat command, the walk and the exporter hold, against pushdiag's
/// responder on loopback (run in this process) and against sockets that misbehave on purpose.
@Suite(.serialized)
struct HeartbeatSessionTests {
    /// A responder on a thread of this process, stopped when the test ends.
    final class InProcessResponder: @unchecked Sendable {
        let stopped = NSLock()
        var stopFlag = false
        let done = DispatchSemaphore(value: 0)
        /// Released at stop, so that its port can be listened on again.
        var responder: Responder?
        var requests: Int { responder?.requests ?? 0 }

        init(_ o: ResponderOptions) throws {
            nonisolated(unsafe) let r = try Responder(o)
            responder = r
            Thread {
                r.run { self.stopped.withLock { self.stopFlag } }
                self.done.signal()
            }.start()
        }

        func stop() {
            guard responder != nil else { return }
            stopped.withLock { stopFlag = true }
            done.wait()
            responder = nil
        }
    }

    func options(_ port: UInt16, _ proto: HeartbeatProtocol = .simplepush) -> HeartbeatOptions {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: proto)
        o.timeoutMs = 1000
        o.connectTimeoutMs = 1000
        return o
    }

    @Test(arguments: [HeartbeatProtocol.simplepush, .websocket, .line])
    func heartbeatsAreAnsweredAndTheTimelineKept(proto: HeartbeatProtocol) throws {
        let port = freePort()
        let server = try InProcessResponder(ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: proto))
        defer { server.stop() }
        let session = HeartbeatSession(options(port, proto), address: IPAddress("127.0.0.1")!)
        var events: [String] = []
        session.onEvent = { if case .state(let s) = $0 { events.append(s.state.rawValue) } }
        try session.open()
        session.state(.ready)
        for n in 1...5 {
            guard case .answered(let ms) = try session.heartbeat(n) else {
                Issue.record("heartbeat \(n) not answered")
                return
            }
            #expect(ms >= 0 && ms < 1000)
        }
        session.close()
        #expect(events == ["ready"] && session.connectMs != nil && !session.isConnected)
        #expect(server.requests == 5, "the responder answered what the session sent")
    }

    @Test func failuresAreTyped() throws {
        // Nobody listens: connect(2) refuses, with its errno.
        let closed = freePort()
        let refused = HeartbeatSession(options(closed), address: IPAddress("127.0.0.1")!)
        #expect(throws: ConnectionFailure.connect(host: "127.0.0.1:\(closed)", errno: .connectionRefused)) { try refused.open() }
        // A name this machine cannot resolve.
        guard case .failure(.resolve(let host, _)) = Resolver.resolve("no-such-host.invalid") else {
            Issue.record("resolved a name under .invalid")
            return
        }
        #expect(host == "no-such-host.invalid")
        // A server answering with a frame far above the cap breaks the protocol.
        let port = freePort()
        let listener = try TCPListener(Endpoint(host: "127.0.0.1", port: port))
        let garbage = Thread {
            let end = Date().addingTimeInterval(5)
            while Date() < end {
                if case .success(let c)? = listener.accept() {
                    usleep(100_000)
                    try? c.send([0xFF, 0xFF, 0xFF, 0x7F] + Array("garbage".utf8), timeoutMs: 500)
                    usleep(500_000)
                    return
                }
                usleep(10_000)
            }
        }
        garbage.start()
        let session = HeartbeatSession(options(port), address: IPAddress("127.0.0.1")!)
        try session.open()
        #expect(throws: ConnectionFailure.protocolViolation("127.0.0.1:\(port): frame of 2147483647 bytes exceeds the 65536-byte cap")) {
            try session.heartbeat(1)
        }
    }

    /// The server goes away: the heartbeat reports the connection lost, and the session
    /// reconnects on its schedule once the server is back.
    @Test func lossAndReconnectOnTheSchedule() throws {
        let port = freePort()
        var o = options(port)
        o.schedule = [0.1, 0.2, 0.4, 0.8]
        var ro = ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .simplepush)
        ro.closeAfter = 1
        let first = try InProcessResponder(ro)
        let session = HeartbeatSession(o, address: IPAddress("127.0.0.1")!)
        try session.open()
        guard case .answered = try session.heartbeat(1) else {
            Issue.record("first heartbeat not answered")
            return
        }
        first.stop()
        usleep(100_000)
        guard case .connectionLost(.closedByPeer) = try session.heartbeat(2) else {
            Issue.record("the close was not seen")
            return
        }
        let second = try InProcessResponder(ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .simplepush))
        defer { second.stop() }
        #expect(session.reconnect(after: "closed") == .connected)
        #expect(session.reconnects.last?.outcome == .connected && session.states.last?.state == .ready)
        guard case .answered = try session.heartbeat(3) else {
            Issue.record("no answer after reconnecting")
            return
        }
    }

    /// A stop while reconnecting (a signal, or a survey's window ending) is not a lost connection:
    /// the probe reported the connection lost (the schedule run out), a false critical.
    @Test func aStopWhileReconnectingIsNotALoss() throws {
        let port = freePort()
        var ro = ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .simplepush)
        ro.closeAfter = 1
        let server = try InProcessResponder(ro)
        var o = options(port)
        o.count = 20
        o.intervalMs = 100
        o.schedule = [5]  // so the stop comes while it waits to reconnect
        let started = Date()
        let report = HeartbeatProbe(o, stop: { Date().timeIntervalSince(started) > 1.5 }).run()
        server.stop()
        #expect(!report.connectionLost && !report.findings.contains { $0.source == "reconnect_schedule" }, "\(report.findings)")
        #expect(report.states.last?.state == .cancelled, "\(report.states.map(\.state))")
    }

    /// The cadence every loop shares: misses in a row make the session lost (never for tcp, where
    /// each heartbeat is its own connection), an answer clears them, and the next heartbeat is an
    /// interval after the last was due, never in the past, and an interval after a reconnect.
    @Test func theCadenceCountsMissesAndPaces() {
        var o = options(1)
        o.intervalMs = 1000
        o.missesBeforeReconnect = 2
        var c = HeartbeatCadence(o, now: 0)
        #expect(c.loss(after: .unanswered) == nil)
        #expect(c.loss(after: .answered(ms: 3)) == nil)
        #expect(c.loss(after: .unanswered) == nil)
        #expect(c.loss(after: .unanswered) == "2 heartbeats unanswered")
        #expect(c.loss(after: .unanswered) == nil, "the count starts again after a loss")
        #expect(c.loss(after: .connectionLost(.closedByPeer("gone"))) == ConnectionFailure.closedByPeer("gone").description)
        #expect(c.advance(now: 10) == 1000)
        #expect(c.advance(now: 1500) == 2000)
        #expect(c.advance(now: 5000) == 5000, "an answer that came late does not bring a burst")
        c.restart(now: 9000)
        #expect(c.advance(now: 9000) == 10_000)
        o.proto = .tcp
        var tcp = HeartbeatCadence(o, now: 0)
        for _ in 1...5 { #expect(tcp.loss(after: .unanswered) == nil) }
    }

    /// After the server drops the connection, `heartbeat` reconnects on the schedule and sends the
    /// next heartbeat an interval after the session is back, not at once to make up the time the
    /// schedule took (it did, before the loops shared `HeartbeatCadence`).
    @Test func theHeartbeatAfterAReconnectWaitsAnInterval() throws {
        let port = freePort()
        var ro = ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .simplepush)
        ro.closeAfter = 1
        let server = try InProcessResponder(ro)
        defer { server.stop() }
        var o = options(port)
        o.count = 3
        o.intervalMs = 300
        o.schedule = [0.6]
        var seenAt: [Int: Double] = [:]
        let probe = HeartbeatProbe(o)
        probe.onHeartbeat = { n, _, _ in seenAt[n] = Clock.ms() }
        let report = probe.run()
        let states = report.states.map(\.state)
        #expect(report.received == 2 && report.reconnects.count == 1, "\(states)")
        let lost = try #require(seenAt[2], "\(states)")
        let third = try #require(seenAt[3], "\(states)")
        // The loss is seen at once; the schedule waits 600 ms; then an interval (300 ms).
        #expect(third - lost >= 600 + 0.9 * o.intervalMs, "heartbeat 3 came \(third - lost) ms after heartbeat 2 was lost")
    }
}
