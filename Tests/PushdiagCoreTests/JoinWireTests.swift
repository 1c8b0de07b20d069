import PushdiagCore
import Testing

/// The parsers of what a rejoin shows on the wire (DHCP, DNS, EAPOL and EAP, the association
/// response's BSS Max Idle Period), from bytes written here field by field after the RFCs and
/// IEEE 802.11; and every one of them fed cut, corrupted and random bytes without a crash.
@Suite struct JoinWireTests {
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    /// A BOOTP reply (RFC 951 layout) with the DHCP options given.
    static func dhcp(op: UInt8 = 2, xid: UInt32 = 0xDEAD_BEEF, yiaddr: [UInt8] = [10, 0, 0, 7], options: [UInt8]) -> [UInt8] {
        var b: [UInt8] = [op, 1, 6, 0] + be32(xid) + [0, 0, 0, 0] + [0, 0, 0, 0] + yiaddr + [0, 0, 0, 0] + [0, 0, 0, 0]
        b += [0x02, 0, 0, 0, 0, 0x51] + [UInt8](repeating: 0, count: 10)  // chaddr
        b += [UInt8](repeating: 0, count: 192)  // sname, file
        return b + [99, 130, 83, 99] + options
    }
    static let ackOptions: [UInt8] = [53, 1, 5, 51, 4] + be32(3600) + [54, 4, 10, 0, 0, 1, 3, 4, 10, 0, 0, 1, 0, 255]

    @Test func dhcpGivesTypeTransactionAndLease() throws {
        let m = try #require(withBytes(Self.dhcp(options: Self.ackOptions)) { DHCPMessage.parse($0) })
        #expect(m.messageType == .ack && m.xid == 0xDEAD_BEEF && m.leaseSeconds == 3600 && !m.malformed)
        #expect(m.yourAddress?.description == "10.0.0.7" && m.serverIdentifier?.description == "10.0.0.1" && m.router?.description == "10.0.0.1")
        #expect(m.clientMAC?.description == "02:00:00:00:00:51" && m.clientAddress == nil)
        let discover = try #require(withBytes(Self.dhcp(op: 1, yiaddr: [0, 0, 0, 0], options: [53, 1, 1, 50, 4, 10, 0, 0, 2, 255])) { DHCPMessage.parse($0) })
        #expect(discover.messageType == .discover && discover.messageType?.fromClient == true && discover.requestedAddress?.description == "10.0.0.2")
        #expect(discover.yourAddress == nil)
        // No end option, an option past the end, a wrong length: what was read stands, flagged.
        let cut = try #require(withBytes(Self.dhcp(options: [53, 1, 2, 51, 4, 0])) { DHCPMessage.parse($0) })
        #expect(cut.messageType == .offer && cut.leaseSeconds == nil && cut.malformed)
        #expect(withBytes(Self.dhcp(options: [53, 2, 5, 5, 255])) { DHCPMessage.parse($0) }?.messageType == nil)
        // Not DHCP: no magic cookie, or too short for one.
        var noCookie = Self.dhcp(options: Self.ackOptions)
        noCookie[236] = 0
        #expect(withBytes(noCookie) { DHCPMessage.parse($0) } == nil)
        #expect(withBytes(Array(Self.dhcp(options: Self.ackOptions).prefix(239))) { DHCPMessage.parse($0) } == nil)
    }

    /// RFC 1035 4.1: the header, then the question's labels.
    static func dnsQuery(id: UInt16, name: [String], response: Bool = false, rcode: UInt8 = 0) -> [UInt8] {
        var b = be16(id) + be16((response ? 0x8180 : 0x0100) | UInt16(rcode)) + be16(1) + be16(response ? 1 : 0) + be16(0) + be16(0)
        for l in name { b += [UInt8(l.utf8.count)] + Array(l.utf8) }
        return b + [0] + be16(1) + be16(1)
    }

    @Test func dnsPairsByIdentifierAndName() throws {
        let q = try #require(withBytes(Self.dnsQuery(id: 0x1234, name: ["Push", "ward", "example"])) { DNSMessage.parse($0) })
        #expect(q.id == 0x1234 && !q.isResponse && q.name == "push.ward.example" && q.qtype == 1 && q.questionCount == 1)
        var answer = Self.dnsQuery(id: 0x1234, name: ["push", "ward", "example"], response: true, rcode: 3)
        // An answer record whose name points back at the question (offset 12).
        answer += [0xC0, 12] + Self.be16(1) + Self.be16(1) + Self.be32(60) + Self.be16(4) + [10, 0, 0, 9]
        let a = try #require(withBytes(answer) { DNSMessage.parse($0) })
        #expect(a.isResponse && a.rcode == 3 && DNSMessage.rcodeName(a.rcode) == "NXDOMAIN" && a.name == q.name && a.answerCount == 1)
        // A question that is a pointer to itself, or forward: no name, no loop.
        let header = Self.be16(1) + Self.be16(0x0100) + Self.be16(1) + [0, 0, 0, 0, 0, 0]
        #expect(withBytes(header + [0xC0, 12]) { DNSMessage.parse($0) }?.name == nil)
        #expect(withBytes(header + [0xC0, 40]) { DNSMessage.parse($0) }?.name == nil)
        #expect(withBytes(header + [4, 0x70, 0x75]) { DNSMessage.parse($0) }?.name == nil)
        #expect(withBytes(Array(header.prefix(11))) { DNSMessage.parse($0) } == nil)
    }

    /// An EAPOL-Key frame (802.1X header, then IEEE 802.11-2020 12.7.2's fields, 16-byte MIC).
    static func eapolKey(_ info: UInt16, keyData: Int = 0) -> [UInt8] {
        var body: [UInt8] = [2] + be16(info) + be16(16) + [0, 0, 0, 0, 0, 0, 0, 1]
        body += [UInt8](repeating: 0, count: 32 + 16 + 8 + 8 + 16) + be16(UInt16(keyData)) + [UInt8](repeating: 0xDD, count: keyData)
        return [2, 3] + be16(UInt16(body.count)) + body
    }

    @Test func eapolKeyInfoNamesTheHandshakesMessages() throws {
        // wpa_supplicant's and hostapd's Key Information for CCMP (descriptor version 2).
        let cases: [(UInt16, Int, EAPOLKey.Message?)] = [
            (0x008A, 0, .pairwise(1)), (0x010A, 22, .pairwise(2)), (0x13CA, 56, .pairwise(3)), (0x030A, 0, .pairwise(4)),
            // WPA (not RSN): message 4 is not Secure, and carries no key data.
            (0x0109, 0, .pairwise(4)), (0x1382, 32, .group(1)), (0x0302, 0, .group(2)), (0x0B0A, 0, nil),
        ]
        for (info, data, expected) in cases {
            let p = try #require(withBytes(Self.eapolKey(info, keyData: data)) { EAPOLPacket.parse($0) })
            guard case .key(let k) = p else {
                Issue.record("not a key frame: \(p)")
                continue
            }
            #expect(k.message == expected && k.replayCounter == 1 && k.keyDataLength == UInt16(data), "0x\(String(info, radix: 16))")
        }
        #expect(withBytes(Self.eapolKey(0x030A)) { EAPOLPacket.parse($0) }.map { if case .key(let k) = $0 { k.description } else { "" } } == "4-way 4/4")
    }

    @Test func eapGivesCodeAndMethod() throws {
        let identity: [UInt8] = [1, 0, 0, 5, 1, 7, 0, 5, 1]
        #expect(withBytes(identity) { EAPOLPacket.parse($0) } == .eap(EAPPacket(code: .request, rawCode: 1, identifier: 7, type: 1)))
        let peap: [UInt8] = [1, 0, 0, 6, 1, 8, 0, 6, 25, 0x20]
        #expect(withBytes(peap) { EAPOLPacket.parse($0) }.map { if case .eap(let e) = $0 { e.description } else { "" } } == "Request/PEAP")
        #expect(withBytes([1, 0, 0, 4, 3, 9, 0, 4]) { EAPOLPacket.parse($0) } == .eap(EAPPacket(code: .success, rawCode: 3, identifier: 9, type: nil)))
        #expect(withBytes([1, 1, 0, 0]) { EAPOLPacket.parse($0) } == .start)
        #expect(withBytes([1, 0, 0, 4, 3, 9]) { EAPOLPacket.parse($0) } == nil, "an EAP header cut short")
        #expect(withBytes([1, 0, 0]) { EAPOLPacket.parse($0) } == nil)
    }

    static func ethernet(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [0x02, 0, 0, 0, 0, 0x51, 0x02, 0, 0, 0, 0x01, 0] + be16(type) + payload
    }
    static func ipv4UDP(src: [UInt8], dst: [UInt8], sport: UInt16, dport: UInt16, _ data: [UInt8], fragment: UInt16 = 0) -> [UInt8] {
        let udp = be16(sport) + be16(dport) + be16(UInt16(8 + data.count)) + [0, 0] + data
        return [0x45, 0] + be16(UInt16(20 + udp.count)) + [0, 1] + be16(fragment) + [64, 17, 0, 0] + src + dst + udp
    }

    @Test func stationPacketsSortEAPOLDHCPAndDNS() throws {
        let ack = Self.ethernet(
            0x0800, Self.ipv4UDP(src: [10, 0, 0, 1], dst: [255, 255, 255, 255], sport: 67, dport: 68, Self.dhcp(options: Self.ackOptions)))
        guard case .dhcp(let m)? = withBytes(ack, { StationPacket.parse(ethernet: $0) }) else {
            Issue.record("no DHCP")
            return
        }
        #expect(m.messageType == .ack)
        let query = Self.ethernet(0x0800, Self.ipv4UDP(src: [10, 0, 0, 7], dst: [10, 0, 0, 1], sport: 40000, dport: 53, Self.dnsQuery(id: 5, name: ["push"])))
        guard case .dns(let d, let source, let destination)? = withBytes(query, { StationPacket.parse(ethernet: $0) }) else {
            Issue.record("no DNS")
            return
        }
        #expect(d.name == "push" && source.description == "10.0.0.7" && destination.description == "10.0.0.1")
        // A later fragment holds no UDP header; another port is not ours.
        let fragment = Self.ethernet(0x0800, Self.ipv4UDP(src: [10, 0, 0, 7], dst: [10, 0, 0, 1], sport: 40000, dport: 53, [1, 2, 3, 4], fragment: 0x0010))
        #expect(withBytes(fragment) { StationPacket.parse(ethernet: $0) } == nil)
        let other = Self.ethernet(0x0800, Self.ipv4UDP(src: [10, 0, 0, 7], dst: [10, 0, 0, 1], sport: 40000, dport: 5223, [1, 2, 3, 4]))
        #expect(withBytes(other) { StationPacket.parse(ethernet: $0) } == nil)
        // EAPOL, also behind an 802.1Q tag.
        let m4 = Self.eapolKey(0x030A)
        let tagged = [0x02, 0, 0, 0, 0, 0x51, 0x02, 0, 0, 0, 0x01, 0] + Self.be16(0x8100) + Self.be16(10) + Self.be16(0x888E) + m4
        for frame in [Self.ethernet(0x888E, m4), tagged] {
            guard case .eapol(.key(let k))? = withBytes(frame, { StationPacket.parse(ethernet: $0) }) else {
                Issue.record("no EAPOL-Key")
                continue
            }
            #expect(k.message == .pairwise(4))
        }
        // DNS over IPv6.
        let v6src = [UInt8](repeating: 0, count: 15) + [7]
        let v6dst = [UInt8](repeating: 0, count: 15) + [1]
        let dns6 = Self.dnsQuery(id: 6, name: ["push"])
        let udp6 = Self.be16(40000) + Self.be16(53) + Self.be16(UInt16(8 + dns6.count)) + [0, 0] + dns6
        let ip6 = [0x60, 0, 0, 0] + Self.be16(UInt16(udp6.count)) + [17, 64] + v6src + v6dst + udp6
        guard case .dns(let d6, _, let server)? = withBytes(Self.ethernet(0x86DD, ip6), { StationPacket.parse(ethernet: $0) }) else {
            Issue.record("no DNS over IPv6")
            return
        }
        #expect(d6.id == 6 && server.description == "::1")
    }

    /// An association response (IEEE 802.11-2020 9.3.3.7) from 02:00:00:00:01:00 with `elements`.
    static func associationResponse(status: UInt16 = 0, _ elements: [UInt8]) -> [UInt8] {
        let ap: [UInt8] = [0x02, 0, 0, 0, 0x01, 0]
        return [0x10, 0, 0, 0] + [0x02, 0, 0, 0, 0, 0x51] + ap + ap + [0, 0] + [0x01, 0x04, UInt8(status & 0xFF), UInt8(status >> 8), 0x01, 0xC0] + elements
    }

    @Test func bssMaxIdleFromTheAssociationResponse() throws {
        // Element 90: 300 units of 1000 TUs, protected keep-alive required; after a Supported Rates element.
        let frame = Self.associationResponse([1, 2, 0x82, 0x84, 90, 3, 0x2C, 0x01, 0x01])
        let idle = try #require(withBytes(frame) { BSSMaxIdle.inAssociationResponse($0) })
        #expect(idle.periodUnits == 300 && idle.protectedKeepAliveRequired && abs(idle.seconds - 307.2) < 1e-9)
        #expect(withBytes(Self.associationResponse([90, 2, 0x2C, 0x01])) { BSSMaxIdle.inAssociationResponse($0) } == nil, "wrong length")
        #expect(withBytes(Self.associationResponse([1, 2, 0x82, 0x84])) { BSSMaxIdle.inAssociationResponse($0) } == nil, "absent")
        // nl80211's ASSOCIATE event carries the frame: status, BSSID and the element come out.
        var b = NetlinkMessageBuilder(type: 0x20, flags: 0, sequence: 0)
        b.genl(command: NL80211.Command.associate.rawValue)
        b.attribute(NL80211.Attr.ifindex, u32: 4)
        b.attribute(NL80211.Attr.frame, Self.associationResponse(status: 0, [90, 3, 0x0A, 0x00, 0x00]))
        var event: NL80211.Event?
        b.finish().withUnsafeBytes { m in try? Netlink.forEachMessage(m) { event = NL80211.decode($0) } }
        #expect(
            event
                == .associate(
                    ifindex: 4, bssid: MACAddress("02:00:00:00:01:00"), status: 0, maxIdle: BSSMaxIdle(periodUnits: 10, protectedKeepAliveRequired: false)))
    }

    /// Every parser over every prefix and every single-byte corruption of a valid input, and over
    /// random bytes: values or nil, never a crash or a read past the end (the address sanitizer's
    /// run of these tests checks the reads).
    @Test func hostileBytesNeverCrash() {
        func all(_ b: [UInt8]) {
            withBytes(b) { p in
                _ = DHCPMessage.parse(p)
                _ = DNSMessage.parse(p)
                _ = EAPOLPacket.parse(p)
                _ = StationPacket.parse(ethernet: p)
                _ = BSSMaxIdle.inAssociationResponse(p)
                _ = ElementSummary.parse(p)
            }
        }
        let valid = [
            Self.dhcp(options: Self.ackOptions), Self.dnsQuery(id: 1, name: ["a", "b"]), Self.eapolKey(0x13CA, keyData: 56),
            Self.ethernet(0x0800, Self.ipv4UDP(src: [1, 2, 3, 4], dst: [5, 6, 7, 8], sport: 68, dport: 67, Self.dhcp(options: Self.ackOptions))),
            Self.associationResponse([90, 3, 1, 0, 0]),
        ]
        for v in valid {
            for n in 0...v.count { all(Array(v.prefix(n))) }
            for i in v.indices {
                for x: UInt8 in [0x00, 0xFF, 0xC0, 0x3F] {
                    var c = v
                    c[i] = x
                    all(c)
                }
            }
        }
        var rng = SeededRandom(seed: 2028)
        for _ in 0..<5000 {
            let n = Int(rng.next() * 400)
            all((0..<n).map { _ in UInt8(rng.next() * 256) })
        }
    }
}
