import Foundation
import Testing

@testable import PushdiagCore

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

    /// A radio-wide survey entry (no frequency) is kept when it has times, as the kernel sends it
    /// with NL80211_ATTR_SURVEY_RADIO_STATS; one with nothing in it is not an entry.
    @Test func radioWideSurveyEntry() throws {
        func decode(_ info: [UInt8]) -> NL80211.SurveyEntry? {
            let m = message(type: 0x22, cmd: 51, [(3, le32(5)), (84, info)])
            var out: NL80211.SurveyEntry?
            m.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { if case .survey(_, let s)? = NL80211.decode($0) { out = s } } }
            return out
        }
        let radio = decode(nested([(4, le64(40_000)), (5, le64(9_000))]))
        #expect(radio?.frequency == 0 && radio?.active == 40_000 && radio?.busy == 9_000)
        #expect(WiFiAnalysis.radioWide([try #require(radio)]) == radio)
        #expect(decode(nested([(2, [0xA4])])) == nil)
    }

    /// GET_WIPHY's interface types and combinations (nested flags and lists), split over two
    /// messages as a split dump sends them, merged by index.
    @Test func wiphyInterfaceTypesAndCombinations() throws {
        let flags = { (types: [UInt16]) in self.nested(types.map { ($0, []) }) }
        // One combination: at most 2 interfaces, one managed, one AP or monitor.
        let limits = nested([(1, nested([(1, le32(1)), (2, flags([2]))])), (2, nested([(1, le32(1)), (2, flags([3, 6]))]))])
        let combination = nested([(1, limits), (2, le32(2)), (4, le32(1))])
        let first = message(type: 0x22, cmd: 3, [(1, le32(0)), (2, Array("phy0".utf8) + [0]), (32, flags([2, 3, 6]))])
        let second = message(type: 0x22, cmd: 3, [(1, le32(0)), (120, nested([(1, combination)]))])
        var parts: [NL80211.Wiphy] = []
        for m in [first, second] {
            m.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { if case .wiphy(let w)? = NL80211.decode($0) { parts.append(w) } } }
        }
        #expect(parts.count == 2)
        var w = try #require(parts.first)
        w.merge(parts[1])
        #expect(w.name == "phy0" && w.interfaceTypes == [2, 3, 6] && w.softwareInterfaceTypes.isEmpty)
        #expect(
            w.combinations == [NL80211.InterfaceCombination(limits: [.init(max: 1, types: [2]), .init(max: 1, types: [3, 6])], maxInterfaces: 2, channels: 1)])
        #expect(w.allows(2, beside: 6), "managed and monitor fit the two limits")
        // Managed and monitor sharing one slot do not; with monitor a software type they do.
        var shared = w
        shared.combinations = [NL80211.InterfaceCombination(limits: [.init(max: 1, types: [2, 6])], maxInterfaces: 2, channels: 1)]
        #expect(!shared.allows(2, beside: 6))
        shared.softwareInterfaceTypes = [6]
        #expect(shared.allows(2, beside: 6))
        // A total of one interface allows no pair; a radio without monitor, no monitor.
        var single = w
        single.combinations[0].maxInterfaces = 1
        #expect(!single.allows(2, beside: 6))
        var noMonitor = w
        noMonitor.interfaceTypes = [2, 3]
        #expect(!noMonitor.allows(2, beside: 6))
    }

    @Test func wrongLengthValuesReadAsAbsent() throws {
        let info = nested([(10, [1, 2]), (11, le32(3))])  // tx_packets only 2 bytes: absent
        let m = message(type: 0x22, cmd: 19, [(6, [2, 0, 0, 0, 1, 0]), (21, info)])
        var station: NL80211.Station?
        m.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { if case .station(let s)? = NL80211.decode($0) { station = s } } }
        #expect(station?.txPackets == nil && station?.txRetries == 3 && station?.mac == MACAddress("02:00:00:00:01:00"))
    }

    /// NL80211_CMD_CONTROL_PORT_FRAME_TX_STATUS from a hostile or broken source: no frame, a frame
    /// too short for an Ethernet header, a frame of another ethertype, an ACK flag with a payload,
    /// another interface. Each decodes (or not) without a crash, and only a whole EAPOL frame on
    /// the interface becomes a join event.
    @Test func controlPortTxStatusFromHostileInput() {
        let ifindex = le32(4)
        let eth = [UInt8](repeating: 0xFF, count: 6) + [2, 0, 0, 0, 2, 0]
        let eapolStart = eth + [0x88, 0x8E] + [2, 1, 0, 0]
        func event(_ attrs: [(UInt16, [UInt8])]) -> JoinEvent.Kind? {
            let m = message(type: 0x22, cmd: 139, attrs)
            var out: JoinEvent.Kind?
            m.withUnsafeBytes { b in
                try? Netlink.forEachMessage(b) { msg in
                    if let e = NL80211.decode(msg) { out = JoinEvent.Kind.nl80211(e, ifindex: 4) }
                }
            }
            return out
        }
        #expect(event([(3, ifindex), (51, eapolStart), (92, [])]) == .eapolSent(.start, acked: true))
        #expect(event([(3, ifindex), (51, eapolStart)]) == .eapolSent(.start, acked: false))
        #expect(event([(3, ifindex), (92, [])]) == nil)  // no frame
        #expect(event([(3, ifindex), (51, Array(eapolStart.prefix(13))), (92, [])]) == nil)  // no whole Ethernet header
        #expect(event([(3, ifindex), (51, eth + [0x08, 0x00] + [0x45]), (92, [])]) == nil)  // not EAPOL
        #expect(event([(3, ifindex), (51, eth + [0x88, 0x8E]), (92, [1, 2, 3, 4])]) == nil)  // EAPOL without a header
        #expect(event([(3, le32(5)), (51, eapolStart), (92, [])]) == nil)  // another interface
        #expect(event([(3, [4]), (51, eapolStart), (92, [])]) == nil)  // an ifindex of the wrong size is none
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
