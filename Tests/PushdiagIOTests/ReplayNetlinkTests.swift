import Foundation
import PushdiagCore
import TestSupport
import Testing

@testable import PushdiagIO

/// How a netlink recording replays over a long run: what it holds back (`incoming`), and the
/// order of requests and events a walk follows (`peekNext`), on recordings written here.
struct ReplayNetlinkTests {
    static let family: UInt16 = 0x20
    static let port: UInt32 = 77

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func message(type: UInt16 = family, flags: UInt16, sequence: UInt32, port: UInt32 = port, _ payload: [UInt8]) -> [UInt8] {
        le32(UInt32(16 + payload.count)) + le16(type) + le16(flags) + le32(sequence) + le32(port) + payload
    }

    /// NL80211_CMD_GET_STATION about ifindex 3 (not a dump), with NLM_F_ACK.
    static func request(_ sequence: UInt32, port: UInt32 = port, command: UInt8 = 17, dump: Bool = false) -> [UInt8] {
        let flags = Netlink.flagRequest | 0x04 | (dump ? 0x300 : 0)
        return message(flags: flags, sequence: sequence, port: port, [command, 0, 0, 0] + le16(8) + le16(NL80211.Attr.ifindex) + le32(3))
    }
    static func reply(_ sequence: UInt32) -> [UInt8] { message(flags: 0, sequence: sequence, [19, 0, 0, 0] + le16(8) + le16(NL80211.Attr.ifindex) + le32(3)) }
    /// The ACK that follows a reply: NLMSG_ERROR, error 0, the request's header.
    static func ack(_ sequence: UInt32) -> [UInt8] { message(type: 2, flags: 0x100, sequence: sequence, le32(0) + Array(request(sequence).prefix(16))) }
    static func event(_ command: UInt8) -> [UInt8] { message(flags: 0, sequence: 0, port: 0, [command, 0, 0, 0]) }

    static func recording(_ messages: [[UInt8]]) throws -> String {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("replay.pcap").path
        let w = try PcapWriter(path: path, linkType: 253)
        for (i, m) in messages.enumerated() {
            let request = m.count >= 8 && (UInt16(m[6]) | UInt16(m[7]) << 8) & Netlink.flagRequest != 0
            w.write(timestampNs: Int64(i) * 1_000_000, bytes: NetlinkRecord.header(outgoing: request, netlinkProtocol: Netlink.protocolGeneric) + m)
        }
        try w.close()
        return path
    }

    /// A request answered with a reply and then an ACK (a live client reads the reply and leaves
    /// the ACK): the ACK is consumed once read, and holds nothing back, so a recording of a
    /// thousand samples replays with a handful of records held, not all of them.
    @Test func theACKAfterAReplyHoldsNothingBack() throws {
        let n: UInt32 = 1000
        let path = try Self.recording((1...n).flatMap { [Self.request($0), Self.reply($0), Self.ack($0)] })
        let replay = try ReplayNetlink(path: path, protocol: Netlink.protocolGeneric)
        var most = 0
        for i in 1...n {
            #expect(try replay.exchange(Self.request(i), dump: false) == [Self.reply(i)])
            most = max(most, replay.incoming.count)
        }
        #expect(most < 8, "records held: \(most)")
    }

    /// An ACK read before its request was answered (a search for an event read ahead) is
    /// consumed then, not remembered: a later request that reuses the sequence number and port
    /// (libnl reopening a socket within the second) still gets its own reply.
    @Test func anACKReadAheadLeavesNothingToCatchALaterReply() throws {
        let path = try Self.recording([Self.request(1), Self.reply(1), Self.ack(1), Self.event(33), Self.request(1), Self.reply(1)])
        let replay = try ReplayNetlink(path: path, protocol: Netlink.protocolGeneric)
        try replay.join(group: 1)
        #expect(replay.peekNext() == .request)
        #expect(try replay.exchange(Self.request(1), dump: false) == [Self.reply(1)])
        #expect(try replay.nextEvent(timeoutMs: 0) == Self.event(33))
        #expect(try replay.exchange(Self.request(1), dump: false) == [Self.reply(1)])
    }

    /// Events a command never asks for (it joined no group: wifi, doctor) are held up to a bound,
    /// then dropped; a command that joined a group keeps them for its event search.
    @Test func eventsNobodyAsksForAreHeldUpToABound() throws {
        let n: UInt32 = 1000
        let path = try Self.recording((1...n).flatMap { [Self.request($0), Self.event(33), Self.reply($0), Self.ack($0)] })
        let replay = try ReplayNetlink(path: path, protocol: Netlink.protocolGeneric)
        replay.heldForEventsLimit = 100
        var most = 0
        for i in 1...n {
            _ = try replay.exchange(Self.request(i), dump: false)
            most = max(most, replay.incoming.count)
        }
        #expect(most <= 101, "records held: \(most)")
        // Subscribed: every event stays for the event search.
        let following = try ReplayNetlink(path: path, protocol: Netlink.protocolGeneric)
        following.heldForEventsLimit = 100
        try following.join(group: 1)
        for i in 1...n { _ = try following.exchange(Self.request(i), dump: false) }
        var events = 0
        while try following.nextEvent(timeoutMs: 0) != nil { events += 1 }
        #expect(events == Int(n))
    }

    /// A walk follows the recording's order of its own requests and events: another process's
    /// request in an nlmon capture (a port the walk's requests never had) is not one the walk will
    /// ask, and does not keep the events behind it waiting.
    @Test func anotherProcesssRequestDoesNotHoldBackTheEvents() throws {
        let path = try Self.recording([
            Self.request(1), Self.reply(1), Self.request(5, port: 4242, command: 1, dump: true), Self.event(33), Self.request(2), Self.reply(2),
        ])
        let replay = try ReplayNetlink(path: path, protocol: Netlink.protocolGeneric)
        #expect(replay.peekNext() == .request)
        _ = try replay.exchange(Self.request(1), dump: false)
        #expect(replay.peekNext() == .event)
        #expect(try replay.nextEvent(timeoutMs: 0) == Self.event(33))
        #expect(replay.peekNext() == .request)
        #expect(try replay.exchange(Self.request(2), dump: false) == [Self.reply(2)])
        #expect(replay.peekNext() == .end)
    }

    /// The lab's walk with another process's request put in it (a GET_WIPHY dump from port
    /// 4242, as wpa_supplicant makes in an nlmon capture) replays as the walk it was.
    @Test func aWalkWithAnotherProcesssRequestInItReplaysTheSame() throws {
        let source = TestPaths.fixtures.appendingPathComponent("lab-walk")
        let dir = try TestPaths.copyOfFixture("lab-walk")
        let pcap = dir.appendingPathComponent("nl80211.pcap").path
        try FileManager.default.removeItem(atPath: pcap)
        let file = try PcapFile(path: source.appendingPathComponent("nl80211.pcap").path)
        let w = try PcapWriter(path: pcap, linkType: 253)
        var k = 0
        while let r = try file.next(frame: k + 1) {
            k += 1
            if k == 21 {
                w.write(
                    timestampNs: r.timestampNs,
                    bytes: NetlinkRecord.header(outgoing: true, netlinkProtocol: Netlink.protocolGeneric) + Self.request(77, port: 4242, command: 1, dump: true)
                )
            }
            w.write(timestampNs: r.timestampNs, bytes: Array(r.bytes))
        }
        try w.close()
        let o = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        func walk(_ d: String) throws -> WalkReport {
            WalkReport.assemble(try WalkRunner.replay(directory: d, settings: WalkSettings(interface: "", heartbeat: o)))
        }
        let mended = try walk(dir.path)
        let original = try walk(source.path)
        #expect(
            mended.roams == original.roams && mended.durationSeconds == original.durationSeconds && mended.status == original.status,
            "\(mended.roams.count) roams against \(original.roams.count)")
        #expect(original.roams.count == 4)
    }
}
