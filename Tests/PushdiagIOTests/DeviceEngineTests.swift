import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The device engine's load run in this process, on paths the command's tests do not reach: a
/// protocol with a hello, heartbeats lost to a silent server, a stop in the middle.
@Suite(.serialized)
struct DeviceEngineTests {
    typealias InProcessResponder = HeartbeatSessionTests.InProcessResponder

    func options(_ port: UInt16, _ proto: HeartbeatProtocol = .simplepush) -> HeartbeatOptions {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: proto)
        o.count = 3
        o.intervalMs = 50
        o.timeoutMs = 1000
        o.connectTimeoutMs = 1000
        return o
    }

    /// The WebSocket upgrade is the engine's hello: the heartbeats start once it is answered.
    @Test func loadOverAProtocolWithAHello() throws {
        let port = freePort()
        let server = try InProcessResponder(ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .websocket))
        defer { server.stop() }
        let r = DeviceEngine.load(options(port, .websocket), DeviceEngine.Settings(clients: 20, rampSeconds: 0.1)) { false }
        #expect(r.clients == 20 && r.connected == 20 && r.sent == 60 && r.received == 60 && r.lossPercent == 0, "\(r)")
        #expect(r.rttMs != nil && r.perClient.allSatisfy { $0.planned == 3 && $0.rttMedianMs != nil })
        #expect(server.requests == 60, "the responder answered what the devices sent")
    }

    /// A server that accepts and never answers: each heartbeat is lost after --timeout, and the
    /// next one still goes out; nobody dropped out, nobody hung up.
    @Test func unansweredHeartbeatsAreLostOnTheirTimeout() throws {
        let port = freePort()
        let listener = try TCPListener(Endpoint(host: "127.0.0.1", port: port))
        var o = options(port)
        o.timeoutMs = 80
        let began = Date()
        let r = DeviceEngine.load(o, DeviceEngine.Settings(clients: 5)) { false }
        let took = Date().timeIntervalSince(began)
        _ = listener
        #expect(r.connected == 5 && r.sent == 15 && r.received == 0 && r.lossPercent == 100 && r.dropOuts == 0 && r.protocolFailures == 0, "\(r)")
        #expect(r.status == .critical && !r.interrupted)
        // Three heartbeats each waited for in turn: at least 3 × 80 ms, far less than a second.
        #expect(took >= 0.24 && took < 2, "\(took) s")
    }

    /// Stopped in the middle: only what each device had to send up to the stop is planned, and
    /// the heartbeat out at the stop is not counted as sent.
    @Test func aStopEndsTheRunWithWhatWasDue() throws {
        let port = freePort()
        let server = try InProcessResponder(ResponderOptions(endpoint: Endpoint(host: "127.0.0.1", port: port), proto: .line))
        defer { server.stop() }
        var o = options(port, .line)
        o.count = 1000
        let end = Date().addingTimeInterval(0.3)
        let r = DeviceEngine.load(o, DeviceEngine.Settings(clients: 10)) { Date() >= end }
        #expect(r.interrupted && r.clients == 10 && r.connected == 10, "\(r)")
        #expect(r.sent >= 10 && r.sent < 1000 && r.received == r.sent && r.planned == r.sent && r.lossPercent == 0, "\(r.sent) \(r.received) \(r.planned)")
    }

    /// A name that does not resolve fails every device before it tries, as the load always said.
    @Test func anUnresolvableNameFailsEveryDevice() {
        let o = HeartbeatOptions(endpoint: Endpoint(host: "no-such-host.invalid", port: 9), proto: .simplepush)
        let r = DeviceEngine.load(o, DeviceEngine.Settings(clients: 3)) { false }
        #expect(r.clients == 3 && r.failedConnects == 3 && r.perClient.allSatisfy { $0.error == "cannot resolve no-such-host.invalid" })
        let m = DeviceEngine.storm(o, DeviceEngine.Settings(clients: 3)) { false }
        #expect(m.devices.count == 3 && m.failure != nil)
    }
}
