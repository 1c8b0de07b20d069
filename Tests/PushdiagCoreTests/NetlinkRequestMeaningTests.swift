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

    /// iw's and wpa_supplicant's requests as they send them: flags NLM_F_REQUEST|NLM_F_ACK (and
    /// NLM_F_DUMP where they dump), their own sequence and port.
    func recorded(_ command: NL80211.Command, dump: Bool = false, _ attributes: [(UInt16, [UInt8])]) throws -> NetlinkRequestMeaning {
        var b = NetlinkMessageBuilder(
            type: nl80211, flags: Netlink.flagRequest | Netlink.flagAck | (dump ? Netlink.flagDump : 0), sequence: 1_795_628_720, portID: 1_191_182_519)
        b.genl(command: command.rawValue, version: 0)
        for (t, v) in attributes { b.attribute(t, v) }
        return try meaning(b.finish())
    }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    func le64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    /// #26: `iw dev wlan2 info` (GET_INTERFACE about ifindex 4, no dump flag) answers pushdiag's
    /// dump of every interface for wlan2, by index or name, and for no other interface; it is no
    /// exact answer to the dump.
    @Test func anInterfaceRequestAnswersTheDumpForThatInterface() throws {
        let dump = try meaning(NL80211.request(family: nl80211, command: .getInterface, dump: true, sequence: 0))
        let info = try recorded(.getInterface, [(NL80211.Attr.ifindex, le32(4))])
        #expect(!info.answers(dump) && info.narrows(dump))
        typealias I = NetlinkRequestMeaning.Interface
        #expect(info.answersPerObject(dump, at: I(ifindex: 4)))
        #expect(info.answersPerObject(dump, at: I(name: "wlan2"), names: [4: "wlan2"]))
        #expect(!info.answersPerObject(dump, at: I(name: "wlan2")), "ifindex 4's name is not known")
        #expect(!info.answersPerObject(dump, at: I(ifindex: 2, name: "wlan0"), names: [4: "wlan2"]))
        #expect(!info.answersPerObject(dump, at: nil), "no interface at hand")
        #expect(info.interface(names: [4: "wlan2"]) == I(ifindex: 4, name: "wlan2") && info.interface()?.description == "ifindex 4")
        let byName = try recorded(.getInterface, [(NL80211.Attr.ifname, Array("wlan2".utf8) + [0])])
        #expect(byName.answersPerObject(dump, at: I(ifindex: 4, name: "wlan2")) && !byName.answersPerObject(dump, at: I(name: "wlan0")))
        // A dump is answered by no request that is not about one object of it.
        #expect(!dump.narrows(dump) && !info.narrows(info))
        #expect(!info.narrows(try meaning(NL80211.request(family: nl80211, command: .getScan, dump: true, sequence: 0, ifindex: 4))))
    }

    /// `iw dev wlan2 station get AP` and wpa_supplicant's signal poll: GET_STATION about one MAC
    /// on ifindex 4 answers the station dump of ifindex 4, not of another interface; the dump
    /// names the interface, so no interface at hand is needed.
    @Test func aStationRequestAnswersTheStationDumpOfItsInterface() throws {
        let get = try recorded(.getStation, [(NL80211.Attr.ifindex, le32(4)), (NL80211.Attr.mac, [2, 0, 0, 0, 0, 0])])
        let dump4 = try meaning(NL80211.request(family: nl80211, command: .getStation, dump: true, sequence: 0, ifindex: 4))
        let dump2 = try meaning(NL80211.request(family: nl80211, command: .getStation, dump: true, sequence: 0, ifindex: 2))
        #expect(get.answersPerObject(dump4, at: nil) && !get.answersPerObject(dump2, at: nil))
        #expect(!get.narrows(try meaning(NL80211.request(family: nl80211, command: .getSurvey, dump: true, sequence: 0, ifindex: 4))))
        // Not a dump: a question about one object is answered only by that object's answer.
        let one = try meaning(NL80211.request(family: nl80211, command: .getStation, dump: false, sequence: 0, ifindex: 4))
        #expect(!get.narrows(one))
    }

    /// wpa_supplicant dumps its own radio (GET_WIPHY with its ifindex, or its P2P device's wdev):
    /// that answers pushdiag's dump of every radio for that interface alone; a wdev is named only
    /// where the recording named it.
    @Test func aRadioDumpAboutAnInterfaceAnswersTheDumpOfEveryRadio() throws {
        let every = try meaning(NL80211.request(family: nl80211, command: .getWiphy, dump: true, sequence: 0, flags: [NL80211.Attr.splitWiphyDump]))
        let mine = try recorded(.getWiphy, dump: true, [(NL80211.Attr.ifindex, le32(4)), (NL80211.Attr.splitWiphyDump, [])])
        let p2p = try recorded(.getWiphy, dump: true, [(NL80211.Attr.wdev, le64(0x2_0000_0003))])
        typealias I = NetlinkRequestMeaning.Interface
        #expect(mine.answersPerObject(every, at: I(ifindex: 4, name: "wlan2")))
        #expect(!p2p.answersPerObject(every, at: I(ifindex: 4, name: "wlan2")))
        #expect(p2p.interface()?.description == "wdev 0x0000000200000003")
        #expect(p2p.interface(wdevNames: [0x2_0000_0003: "p2p-dev-wlan2"])?.description == "p2p-dev-wlan2 (wdev 0x0000000200000003)")
        #expect(p2p.answersPerObject(every, at: I(name: "p2p-dev-wlan2"), wdevNames: [0x2_0000_0003: "p2p-dev-wlan2"]))
        // A wdev in bytes that do not decode is an interface no other matches.
        let short = try recorded(.getWiphy, dump: true, [(NL80211.Attr.wdev, [3, 0])])
        #expect(short.interface() == I() && !short.answersPerObject(every, at: I(ifindex: 4, name: "wlan2")))
        // A radio asked by its index names no interface: it answers for any.
        let phy = try recorded(.getWiphy, [(NL80211.Attr.wiphy, le32(2))])
        #expect(phy.interface() == nil && phy.answersPerObject(every, at: nil))
        // The controller and rtnetlink have no per-object answers.
        let family = try meaning(GenericNetlink.getFamilyRequest(name: "nl80211", sequence: 0))
        #expect(!family.narrows(family))
    }

    /// NetworkManager's own requests (nm-wifi-utils-nl80211.c): GET_INTERFACE about its ifindex
    /// with the radio beside it, a GET_STATION dump of its ifindex and radio, GET_WIPHY about its
    /// ifindex. Each answers pushdiag's dump for that interface.
    @Test func networkManagersRequestsNameTheRadioBesideTheInterface() throws {
        typealias I = NetlinkRequestMeaning.Interface
        let at = I(ifindex: 4, name: "wlan2")
        let iface = try recorded(.getInterface, [(NL80211.Attr.ifindex, le32(4)), (NL80211.Attr.wiphy, le32(2))])
        #expect(iface.answersPerObject(try meaning(NL80211.request(family: nl80211, command: .getInterface, dump: true, sequence: 0)), at: at))
        #expect(!iface.answersPerObject(try meaning(NL80211.request(family: nl80211, command: .getInterface, dump: true, sequence: 0)), at: I(ifindex: 2)))
        let stations = try recorded(.getStation, dump: true, [(NL80211.Attr.ifindex, le32(4)), (NL80211.Attr.wiphy, le32(2))])
        #expect(stations.answersPerObject(try meaning(NL80211.request(family: nl80211, command: .getStation, dump: true, sequence: 0, ifindex: 4)), at: nil))
        #expect(!stations.narrows(try meaning(NL80211.request(family: nl80211, command: .getStation, dump: true, sequence: 0, ifindex: 3))))
        let radio = try recorded(.getWiphy, [(NL80211.Attr.ifindex, le32(4))])
        let every = try meaning(NL80211.request(family: nl80211, command: .getWiphy, dump: true, sequence: 0, flags: [NL80211.Attr.splitWiphyDump]))
        #expect(radio.answersPerObject(every, at: at) && !radio.answersPerObject(every, at: I(ifindex: 3, name: "wlan1")))
    }

    @Test func theNoteNamesTheCommands() {
        let note = NetlinkRequestMeaning.perObjectNote(["NL80211_CMD_GET_INTERFACE", "NL80211_CMD_GET_STATION"])
        #expect(note.hasPrefix("the recording held per-object answers only (NL80211_CMD_GET_INTERFACE, NL80211_CMD_GET_STATION)"))
    }
}
