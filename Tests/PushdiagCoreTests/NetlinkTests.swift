@testable import PushdiagCore
import Foundation
import Testing

struct NetlinkParserTests {
    func message(type: UInt16, flags: UInt16 = 0, seq: UInt32 = 7, cmd: UInt8, _ attrs: [(UInt16, [UInt8])]) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: type, flags: flags, sequence: seq)
        b.genl(command: cmd)
        for (t, v) in attrs { b.attribute(t, v) }
        return b.finish()
    }

    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    func nested(_ attrs: [(UInt16, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (t, v) in attrs {
            let len = 4 + v.count
            out += [UInt8(len), 0, UInt8(t & 0xFF), UInt8(t >> 8)] + v + [UInt8](repeating: 0, count: Netlink.align(len) - len)
        }
        return out
    }

    @Test func surveyWithUnalignedU64AndMissingTimes() throws {
        // Survey info: frequency, noise, in use, active (u64 at a 4-aligned, not 8-aligned offset), no busy.
        let info = nested([(1, le32(2437)), (2, [0xA4]), (3, []), (4, le64(0x1_0000_0001))])
        let m = message(type: 0x22, cmd: 51, [(3, le32(5)), (84, info)])
        let event = m.withUnsafeBytes { b -> NL80211.Event? in
            var e: NL80211.Event?
            try? Netlink.forEachMessage(b) { e = NL80211.decode($0) }
            return e
        }
        guard case .survey(let ifindex, let s)? = event else {
            Issue.record("expected a survey entry, got \(String(describing: event))")
            return
        }
        #expect(ifindex == 5 && s.frequency == 2437 && s.noise == -92 && s.inUse)
        #expect(s.active == 0x1_0000_0001)
        #expect(s.busy == nil && s.rx == nil, "attributes the driver leaves out are nil, never zero")
    }

    @Test func wrongLengthValuesReadAsAbsent() throws {
        let info = nested([(10, [1, 2]), (11, le32(3))])  // tx_packets only 2 bytes: absent
        let m = message(type: 0x22, cmd: 19, [(6, [2, 0, 0, 0, 1, 0]), (21, info)])
        var station: NL80211.Station?
        m.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { if case .station(let s)? = NL80211.decode($0) { station = s } } }
        #expect(station?.txPackets == nil && station?.txRetries == 3 && station?.mac == MACAddress("02:00:00:00:01:00"))
    }

    @Test func malformedMessagesStopWithAnError() {
        var m = message(type: 0x22, cmd: 5, [(3, le32(1))])
        m[0] = 200  // claims more bytes than there are
        var seen = 0
        let error = m.withUnsafeBytes { b -> NetlinkError? in
            do throws(NetlinkError) {
                try Netlink.forEachMessage(b) { _ in seen += 1 }
                return nil
            } catch { return error }
        }
        #expect(seen == 0)
        guard case .malformed? = error else {
            Issue.record("expected .malformed, got \(String(describing: error))")
            return
        }
        // An attribute running past its message is cut off; the ones before it stand.
        let attrs: [UInt8] = [8, 0, 3, 0, 1, 0, 0, 0] + [40, 0, 4, 0, 0x77]
        var types: [UInt16] = []
        let ok = attrs.withUnsafeBytes { Netlink.forEachAttribute($0) { t, _ in types.append(t) } }
        #expect(!ok && types == [3])
    }

    @Test func severalMessagesPerBufferAndReplyProgress() {
        let a = message(type: 0x22, flags: Netlink.flagMulti, seq: 9, cmd: 7, [(3, le32(1))])
        var done = NetlinkMessageBuilder(type: Netlink.done, flags: Netlink.flagMulti, sequence: 9)
        done.attribute(0, [0, 0])
        let buf = a + done.finish()
        let p = buf.withUnsafeBytes { Netlink.replyProgress($0, sequence: 9, port: nil, dump: true) }
        #expect(p.ours && p.finished && !p.malformed)
        let other = buf.withUnsafeBytes { Netlink.replyProgress($0, sequence: 10, port: nil, dump: true) }
        #expect(!other.ours)
    }

    @Test func familyResolution() throws {
        let group = nested([(2, le32(5)), (1, Array("mlme".utf8) + [0])])
        let groups = nested([(1, group)])
        let m = message(type: GenericNetlink.controlID, cmd: GenericNetlink.newFamily, [(1, [0x22, 0]), (2, Array("nl80211".utf8) + [0]), (7, groups)])
        var family: GenericNetlink.Family?
        m.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { family = GenericNetlink.family($0) } }
        #expect(family == GenericNetlink.Family(id: 0x22, name: "nl80211", groups: ["mlme": 5]))
    }

    @Test func recordHeader() throws {
        let h = NetlinkRecord.header(outgoing: true, netlinkProtocol: 16) + [1, 2, 3]
        let p = try #require(h.withUnsafeBytes { b in NetlinkRecord.parse(b).map { ($0.outgoing, $0.netlinkProtocol, $0.messages.count) } })
        #expect(p.0 && p.1 == 16 && p.2 == 3)
        #expect([UInt8](repeating: 0, count: 16).withUnsafeBytes { NetlinkRecord.parse($0) } == nil, "ARPHRD type must be NETLINK")
    }
}

struct WiFiAnalysisTests {
    let ap = MACAddress("02:00:00:00:01:00")!

    func sample(_ t: Int64, active: UInt64?, busy: UInt64?, inUse: Bool = false, packets: UInt32? = nil, retries: UInt32? = nil, connected: UInt32 = 10, peer: MACAddress? = nil) -> WiFiSample {
        var iface = NL80211.Interface(ifindex: 3)
        iface.frequency = 2437
        iface.type = 2
        var s = NL80211.SurveyEntry(frequency: 2437)
        s.active = active
        s.busy = busy
        s.inUse = inUse
        var other = NL80211.SurveyEntry(frequency: 2412)
        other.active = 1000
        other.busy = 900
        var st = NL80211.Station(mac: peer ?? ap)
        st.txPackets = packets
        st.txRetries = retries
        st.connectedTime = connected
        return WiFiSample(time: t * 1_000_000_000, interface: iface, survey: [other, s], stations: packets == nil ? [] : [st])
    }

    @Test func utilisationFromTheChannelInUse() {
        let r = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: 100, busy: 10), sample(1, active: 1100, busy: 460)], scan: [], thresholds: .init())
        #expect(r.channelUtilizationPercent == 45)
        #expect(r.findings.first?.severity == .critical)
        // A driver reset (counters going down) is left out, not reported as nonsense.
        let reset = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: 5000, busy: 100), sample(1, active: 100, busy: 10), sample(2, active: 1100, busy: 110)], scan: [], thresholds: .init())
        #expect(reset.channelUtilizationPercent == 10)
        #expect(reset.notes.contains { $0.contains("restarted") })
        // Not reported: null with the reason.
        let missing = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: nil, busy: nil), sample(1, active: nil, busy: nil)], scan: [], thresholds: .init())
        #expect(missing.channelUtilizationPercent == nil && missing.notes.contains { $0.contains("not reported by driver") })
    }

    @Test func retransmissionsWrapAndRebaseline() {
        let wrap = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3),
                                       samples: [sample(0, active: 1, busy: 0, packets: 0xFFFF_FFF0, retries: 0xFFFF_FFFF), sample(1, active: 2, busy: 0, packets: 0x90, retries: 0x20)],
                                       scan: [], thresholds: .init())
        #expect(wrap.retransmissionPercent == NumberText.rounded(Double(0x21) * 100 / Double(0xA0)))
        let reassoc = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3),
                                          samples: [sample(0, active: 1, busy: 0, packets: 900, retries: 90, connected: 50),
                                                    sample(1, active: 2, busy: 0, packets: 10, retries: 1, connected: 1),
                                                    sample(2, active: 3, busy: 0, packets: 110, retries: 6, connected: 2)],
                                          scan: [], thresholds: .init())
        #expect(reassoc.retransmissionPercent == 5)
        let one = WiFiAnalysis.report(interface: NL80211.Interface(ifindex: 3), samples: [sample(0, active: 1, busy: 0, packets: 5, retries: 1)], scan: [], thresholds: .init())
        #expect(one.retransmissionPercent == nil && one.channelUtilizationPercent == nil && one.stations.first?.txPackets == 5)
    }
}

struct RoamTrackerTests {
    let a = MACAddress("02:00:00:00:00:00")!, b = MACAddress("02:00:00:00:01:00")!

    func feed(_ t: inout RoamTracker, _ e: NL80211.Event, at ms: Int64, ssid: String?) -> [WatchEvent] {
        t.handle(e, time: ms * 1_000_000, name: { _ in "wlan0" }, ssid: { _, _ in ssid })
    }

    @Test func disconnectThenConnectToAnotherBSSIsARoam() {
        var t = RoamTracker(windowSeconds: 10)
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        let d = feed(&t, .disconnect(ifindex: 3, reason: 1, byAP: false), at: 1000, ssid: nil)
        #expect(d.map(\.event) == ["disconnect"] && d[0].reasonCode == 1 && d[0].byAp == false && d[0].bssid == a)
        let r = feed(&t, .connect(ifindex: 3, bssid: b, status: 0, timedOut: false), at: 1045, ssid: "ward-3")
        #expect(r.map(\.event) == ["roam"] && r[0].fromBssid == a && r[0].bssid == b && r[0].gapMs == 45)
        #expect(t.summary(start: 0, end: 3_600_000_000_000).roamsPerHour == 1)
    }

    @Test func anotherSSIDIsAConnectAndTooLateIsAConnect() {
        var t = RoamTracker(windowSeconds: 10)
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        _ = feed(&t, .disconnect(ifindex: 3, reason: 3, byAP: true), at: 0, ssid: nil)
        let other = feed(&t, .connect(ifindex: 3, bssid: b, status: 0, timedOut: false), at: 100, ssid: "guest")
        #expect(other.map(\.event) == ["connect"] && other[0].previousSsid == "ward-3")
        _ = feed(&t, .disconnect(ifindex: 3, reason: 3, byAP: true), at: 200, ssid: nil)
        let late = feed(&t, .connect(ifindex: 3, bssid: a, status: 0, timedOut: false), at: 20_200, ssid: "guest")
        #expect(late.map(\.event) == ["connect"])
        #expect(t.roams == 0 && t.disconnects == 2)
    }

    @Test func commandRoam() {
        var t = RoamTracker()
        t.seed(ifindex: 3, bssid: a, ssid: "ward-3")
        let r = feed(&t, .roam(ifindex: 3, bssid: b), at: 5, ssid: "ward-3")
        #expect(r.first?.event == "roam" && r.first?.fromBssid == a && r.first?.gapMs == 0)
    }
}

struct PushProtocolTests {
    @Test func sha1AndTheWebSocketAccept() {
        let hex = SHA1.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "a9993e364706816aba3e25717850c26c9cd0d89d")
        // RFC 6455 section 1.3.
        #expect(WebSocket.expectedAccept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocket.checkResponse("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", key: "dGhlIHNhbXBsZSBub25jZQ==") == nil)
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
