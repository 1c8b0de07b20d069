import PushdiagCore
import Testing

/// A replay matches requests by what they ask, not by their bytes: the same question from iw,
/// ip or wpa_supplicant answers pushdiag's.
struct NetlinkRequestMeaningTests {
    let nl80211: UInt16 = 0x20

    func meaning(_ bytes: [UInt8], _ proto: UInt16 = Netlink.protocolGeneric) throws -> NetlinkRequestMeaning {
        try #require(NetlinkRequestMeaning(bytes, protocol: proto))
    }

    /// iw's station dump: other sequence, port, flags (NLM_F_ACK), attribute order; the same
    /// question as pushdiag's.
    @Test func sequencePortAndShapingAttributesDoNotMatter() throws {
        let ours = NL80211.request(family: nl80211, command: .getSurvey, dump: true, sequence: 0, ifindex: 4, flags: [NL80211.Attr.surveyRadioStats])
        var b = NetlinkMessageBuilder(
            type: nl80211, flags: Netlink.flagRequest | Netlink.flagDump | Netlink.flagAck, sequence: 1_795_336_932, portID: 2_558_525_558)
        b.genl(command: NL80211.Command.getSurvey.rawValue, version: 0)
        b.attribute(NL80211.Attr.ifindex, u32: 4)
        let iw = try meaning(b.finish())
        #expect(iw.answers(try meaning(ours)))
        // Another interface, another command, a dump where a single answer was asked: no.
        #expect(!iw.answers(try meaning(NL80211.request(family: nl80211, command: .getSurvey, dump: true, sequence: 0, ifindex: 2))))
        #expect(!iw.answers(try meaning(NL80211.request(family: nl80211, command: .getStation, dump: true, sequence: 0, ifindex: 4))))
        #expect(!iw.answers(try meaning(NL80211.request(family: nl80211, command: .getSurvey, dump: false, sequence: 0, ifindex: 4))))
        #expect(iw.subject(names: [4: "wlan2"]) == "wlan2 (ifindex 4)" && iw.subject() == "ifindex 4")
    }

    /// wpa_supplicant's signal poll names the peer: a MAC narrows the answer, so it answers
    /// pushdiag's question about that peer and not the dump of every station.
    @Test func aPeerIsPartOfTheQuestion() throws {
        let mac = MACAddress(rawValue: 0x0200_0000_0100)
        let poll = try meaning(NL80211.request(family: nl80211, command: .getStation, dump: false, sequence: 9, ifindex: 4, mac: mac))
        #expect(poll.answers(try meaning(NL80211.request(family: nl80211, command: .getStation, dump: false, sequence: 0, ifindex: 4, mac: mac))))
        #expect(!poll.answers(try meaning(NL80211.request(family: nl80211, command: .getStation, dump: false, sequence: 0, ifindex: 4))))
        let other = try meaning(
            NL80211.request(family: nl80211, command: .getStation, dump: false, sequence: 0, ifindex: 4, mac: MACAddress(rawValue: 0x0200_0000_0000)))
        #expect(!poll.answers(other))
        #expect(poll.subject() == "ifindex 4, 02:00:00:00:01:00")
    }

    /// wpa_supplicant asks about a wireless device by its id (a P2P device has no interface):
    /// the id is named by the interface the recording's interface dump gave it, where it did.
    @Test func aWirelessDeviceIsNamedWhereTheRecordingNamedIt() throws {
        var b = NetlinkMessageBuilder(type: nl80211, flags: Netlink.flagRequest | Netlink.flagDump, sequence: 5, portID: 77)
        b.genl(command: NL80211.Command.getScan.rawValue, version: 0)
        b.attribute(NL80211.Attr.wdev, (0..<8).map { UInt8(truncatingIfNeeded: UInt64(0x2_0000_0002) >> (8 * $0)) })
        let scan = try meaning(b.finish())
        #expect(scan.subject() == "wdev 0x0000000200000002")
        #expect(scan.subject(wdevNames: [0x2_0000_0002: "wlan2"]) == "wlan2 (wdev 0x0000000200000002)")
        #expect(scan.subject(wdevNames: [0x2_0000_0001: "wlan2"]) == "wdev 0x0000000200000002")
    }

    @Test func theFamilyLookUpIsByName() throws {
        let ours = try meaning(GenericNetlink.getFamilyRequest(name: "nl80211", sequence: 0))
        #expect(ours.answers(try meaning(GenericNetlink.getFamilyRequest(name: "nl80211", sequence: 77))))
        #expect(!ours.answers(try meaning(GenericNetlink.getFamilyRequest(name: "nlctrl", sequence: 0))))
        #expect(ours.subject() == "nl80211")
    }

    /// rtnetlink: `ip route get` to another host is another question; a neighbour dump of every
    /// family (as `ip neigh` asks) answers pushdiag's dump of one.
    @Test func routesByDestinationNeighboursByFamily() throws {
        let a = try #require(IPAddress("10.99.1.1"))
        let route = try meaning(RTNetlink.routeRequest(to: a, sequence: 3), Netlink.protocolRoute)
        #expect(route.answers(try meaning(RTNetlink.routeRequest(to: a, sequence: 0), Netlink.protocolRoute)))
        #expect(!route.answers(try meaning(RTNetlink.routeRequest(to: try #require(IPAddress("10.99.2.2")), sequence: 0), Netlink.protocolRoute)))
        #expect(route.subject() == "10.99.1.1")
        let every = try meaning(RTNetlink.neighbourDumpRequest(family: 0, sequence: 0), Netlink.protocolRoute)
        let inet = try meaning(RTNetlink.neighbourDumpRequest(family: RTNetlink.afInet, sequence: 0), Netlink.protocolRoute)
        #expect(every.answers(inet) && !inet.answers(every))
        #expect(!inet.answers(try meaning(RTNetlink.neighbourDumpRequest(family: RTNetlink.afInet6, sequence: 0), Netlink.protocolRoute)))
    }

    /// Replies, truncated and lying headers are no request: nil, never a crash.
    @Test func notARequest() throws {
        var reply = NL80211.request(family: nl80211, command: .getSurvey, dump: true, sequence: 0, ifindex: 4)
        reply[6] &= ~UInt8(Netlink.flagRequest)
        #expect(NetlinkRequestMeaning(reply, protocol: Netlink.protocolGeneric) == nil)
        let whole = NL80211.request(family: nl80211, command: .getSurvey, dump: true, sequence: 0, ifindex: 4)
        for n in 0..<whole.count {
            _ = NetlinkRequestMeaning(Array(whole.prefix(n)), protocol: Netlink.protocolGeneric)
            var lying = whole
            lying[0] = UInt8(truncatingIfNeeded: n)
            _ = NetlinkRequestMeaning(lying, protocol: Netlink.protocolGeneric)
        }
        #expect(NetlinkRequestMeaning(Array(whole.prefix(15)), protocol: Netlink.protocolGeneric) == nil)
    }
}
