import PushdiagCore

/// Builds 802.11 frames byte by byte, as a radio would put them on the air, for fixtures and
/// tests. Everything is little-endian where 802.11 says so; addresses are in transmission order.
public enum FrameBuilder {
    public static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// A radiotap header with Flags, Rate, Channel and dBm antenna signal (present word 0x2e),
    /// followed by the frame and, when `fcs` is set, its CRC-32.
    public static func radiotap(
        _ frame: [UInt8], frequency: UInt16 = 2437, rate500k: UInt8 = 12, signal: Int8 = -50, fcs: Bool = true, badFCS: Bool = false
    ) -> [UInt8] {
        var flags: UInt8 = fcs ? 0x10 : 0
        if badFCS { flags |= 0x40 }
        let chanFlags: UInt16 = frequency < 3000 ? 0x00C0 : 0x0140  // 2 GHz|OFDM or 5 GHz|OFDM
        var h: [UInt8] = [0, 0, 0, 0]  // version, pad, length (filled below)
        h += [0x2E, 0, 0, 0]  // Flags | Rate | Channel | dBm signal
        h += [flags, rate500k]  // offset 8, 9
        h += le16(frequency) + le16(chanFlags)  // offset 10 (2-aligned)
        h += [UInt8(bitPattern: signal)]
        h[2] = UInt8(h.count)
        var out = h + frame
        if fcs {
            var crc = CRC32.checksum(frame)
            if badFCS { crc ^= 0xFFFF_FFFF }
            out += [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
        }
        return out
    }

    /// A MAC header: frame control (type, subtype, flags), duration, three addresses, sequence.
    public static func header(
        type: UInt8, subtype: UInt8, flags: UInt8 = 0, addr1: MACAddress, addr2: MACAddress, addr3: MACAddress, sequence: UInt16 = 0
    ) -> [UInt8] {
        [UInt8(subtype << 4 | type << 2), flags, 0x2C, 0x00] + addr1.bytes + addr2.bytes + addr3.bytes + le16(sequence << 4)
    }

    public static func element(_ id: UInt8, _ body: [UInt8]) -> [UInt8] { [id, UInt8(body.count)] + body }

    public struct BeaconOptions {
        public var ssid: String
        public var channel: UInt8
        /// (station count, raw channel utilisation 0–255)
        public var bssLoad: (UInt16, UInt8)?
        public var mobilityDomain: UInt16?
        /// AKM suite types under 00-0F-AC (2 PSK, 4 FT-PSK).
        public var akms: [UInt8] = [2]
        public var radioMeasurement = false
        public var bssTransition = false
        /// A TIM element: DTIM period and the AIDs with frames buffered.
        public var tim: (dtimPeriod: UInt8, aids: [Int])?
        public init(ssid: String, channel: UInt8) {
            self.ssid = ssid
            self.channel = channel
        }
    }

    public static func elements(_ o: BeaconOptions) -> [UInt8] {
        var e = element(0, Array(o.ssid.utf8))
        e += element(1, [0x82, 0x84, 0x8B, 0x96, 0x0C, 0x12, 0x18, 0x24])
        e += element(3, [o.channel])
        if let (period, aids) = o.tim { e += tim(dtimCount: 0, dtimPeriod: period, aids: aids) }
        if let (sta, cu) = o.bssLoad { e += element(11, le16(sta) + [cu] + le16(0)) }
        // RSN: version 1, group CCMP, 1 pairwise CCMP, AKMs, capabilities
        var rsn = le16(1) + [0x00, 0x0F, 0xAC, 4] + le16(1) + [0x00, 0x0F, 0xAC, 4] + le16(UInt16(o.akms.count))
        for a in o.akms { rsn += [0x00, 0x0F, 0xAC, a] }
        e += element(48, rsn + le16(0))
        if let md = o.mobilityDomain { e += element(54, le16(md) + [0x01]) }
        if o.radioMeasurement { e += element(70, [0x02, 0, 0, 0, 0]) }
        var ext: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x40]
        if o.bssTransition { ext[2] |= 0x08 }
        e += element(127, ext)
        return e
    }

    public static func beacon(bssid: MACAddress, _ o: BeaconOptions, sequence: UInt16 = 0, timestampUs: UInt64 = 0) -> [UInt8] {
        var f = header(type: 0, subtype: 8, addr1: .broadcast, addr2: bssid, addr3: bssid, sequence: sequence)
        for i in 0..<8 { f.append(UInt8(truncatingIfNeeded: timestampUs >> (8 * UInt64(i)))) }
        f += le16(100) + le16(0x0411)
        return f + elements(o)
    }

    /// A QoS-less data frame from a station to its AP (To DS) or back (From DS).
    public static func data(
        from: MACAddress, to: MACAddress, bssid: MACAddress, toDS: Bool, retry: Bool = false, sequence: UInt16 = 0, payload: Int = 100
    ) -> [UInt8] {
        let flags: UInt8 = (toDS ? 0x01 : 0x02) | (retry ? 0x08 : 0)
        let h =
            toDS
            ? header(type: 2, subtype: 0, flags: flags, addr1: bssid, addr2: from, addr3: to, sequence: sequence)
            : header(type: 2, subtype: 0, flags: flags, addr1: to, addr2: bssid, addr3: from, sequence: sequence)
        return h + [0xAA, 0xAA, 0x03, 0, 0, 0, 0x08, 0x00] + [UInt8](repeating: 0x5A, count: payload)
    }

    public static func authentication(
        from: MACAddress, to: MACAddress, bssid: MACAddress, algorithm: UInt16, transaction: UInt16, status: UInt16, mobilityDomain: UInt16? = nil
    ) -> [UInt8] {
        var f = header(type: 0, subtype: 11, addr1: to, addr2: from, addr3: bssid)
        f += le16(algorithm) + le16(transaction) + le16(status)
        if let md = mobilityDomain { f += element(54, le16(md) + [0x01]) }
        return f
    }

    public static func associationRequest(station: MACAddress, bssid: MACAddress, ssid: String) -> [UInt8] {
        header(type: 0, subtype: 0, addr1: bssid, addr2: station, addr3: bssid) + le16(0x0411) + le16(10) + element(0, Array(ssid.utf8))
    }

    public static func reassociationRequest(station: MACAddress, bssid: MACAddress, currentAP: MACAddress, ssid: String) -> [UInt8] {
        header(type: 0, subtype: 2, addr1: bssid, addr2: station, addr3: bssid) + le16(0x0411) + le16(10) + currentAP.bytes + element(0, Array(ssid.utf8))
    }

    /// Association (subtype 1) or reassociation (subtype 3) response.
    public static func associationResponse(reassociation: Bool, station: MACAddress, bssid: MACAddress, status: UInt16, aid: UInt16 = 1) -> [UInt8] {
        header(type: 0, subtype: reassociation ? 3 : 1, addr1: station, addr2: bssid, addr3: bssid) + le16(0x0411) + le16(status) + le16(0xC000 | aid)
    }

    /// Deauthentication (subtype 12) or disassociation (subtype 10) sent by `from`.
    public static func deauthentication(disassociation: Bool = false, from: MACAddress, to: MACAddress, bssid: MACAddress, reason: UInt16) -> [UInt8] {
        header(type: 0, subtype: disassociation ? 10 : 12, addr1: to, addr2: from, addr3: bssid) + le16(reason)
    }

    /// `frame` (a 24-byte header and its body) as 802.11w sends it: the Protected bit set, the
    /// body behind a CCMP header, scrambled as encryption leaves it, and an 8-byte MIC.
    public static func protected(_ frame: [UInt8], packetNumber: UInt8 = 1) -> [UInt8] {
        var f = Array(frame[..<24])
        f[1] |= 0x40
        f += [packetNumber, 0, 0, 0x20, 0, 0, 0, 0]  // PN0, PN1, reserved, ExtIV | key 0, PN2-PN5
        f += frame[24...].map { $0 ^ 0xA5 }
        return f + [UInt8](repeating: 0xEE, count: 8)
    }

    /// WNM BSS Transition Management Response (category 10, action 8).
    public static func btmResponse(station: MACAddress, bssid: MACAddress, status: UInt8, target: MACAddress?) -> [UInt8] {
        header(type: 0, subtype: 13, addr1: bssid, addr2: station, addr3: bssid) + [10, 8, 1, status, 0] + (target?.bytes ?? [])
    }

    /// A TIM element (5) whose partial virtual bitmap covers `aids` (9.4.2.5.1: the bitmap starts
    /// at an even octet N1 and ends at the last nonzero octet).
    public static func tim(dtimCount: UInt8, dtimPeriod: UInt8, aids: [Int]) -> [UInt8] {
        guard let low = aids.min(), let high = aids.max() else { return element(5, [dtimCount, dtimPeriod, 0, 0]) }
        let n1 = (low / 8) & ~1
        var bitmap = [UInt8](repeating: 0, count: high / 8 - n1 + 1)
        for a in aids { bitmap[a / 8 - n1] |= 1 << UInt8(a % 8) }
        return element(5, [dtimCount, dtimPeriod, UInt8(n1)] + bitmap)
    }

    /// A Null (subtype 4) or QoS Null (12) frame from a station to its AP, PM bit as given.
    public static func nullData(station: MACAddress, bssid: MACAddress, powerManagement: Bool, qos: Bool = false, retry: Bool = false) -> [UInt8] {
        let flags: UInt8 = 0x01 | (powerManagement ? 0x10 : 0) | (retry ? 0x08 : 0)
        let h = header(type: 2, subtype: qos ? 12 : 4, flags: flags, addr1: bssid, addr2: station, addr3: bssid)
        return qos ? h + [0, 0] : h
    }

    /// A PS-Poll (control subtype 10): AID with its two top bits set, BSSID, transmitter; PM set.
    public static func psPoll(station: MACAddress, bssid: MACAddress, aid: UInt16) -> [UInt8] {
        [0xA4, 0x10] + le16(0xC000 | aid) + bssid.bytes + station.bytes
    }

    /// An association (subtype 0) or reassociation (2) request with a listen interval and
    /// elements after the SSID (an RSN element with PMKIDs, a Fast BSS Transition element…).
    public static func request(
        reassociation: Bool, station: MACAddress, bssid: MACAddress, currentAP: MACAddress?, ssid: String, listenInterval: UInt16, elements: [UInt8] = []
    ) -> [UInt8] {
        var f = header(type: 0, subtype: reassociation ? 2 : 0, addr1: bssid, addr2: station, addr3: bssid) + le16(0x0411) + le16(listenInterval)
        if reassociation { f += (currentAP ?? MACAddress(rawValue: 0)).bytes }
        return f + element(0, Array(ssid.utf8)) + elements
    }

    /// An RSN element (PSK, CCMP) listing `pmkids` PMKIDs.
    public static func rsnWithPMKIDs(_ pmkids: Int) -> [UInt8] {
        var rsn = le16(1) + [0x00, 0x0F, 0xAC, 4] + le16(1) + [0x00, 0x0F, 0xAC, 4] + le16(1) + [0x00, 0x0F, 0xAC, 2] + le16(0)
        rsn += le16(UInt16(pmkids))
        for i in 0..<pmkids { rsn += [UInt8](repeating: UInt8(0x10 + i), count: 16) }
        return element(48, rsn)
    }

    /// WNM BSS Transition Management Request with a request mode, disassociation timer,
    /// validity and a Neighbor Report element (52) per candidate.
    public static func btmRequest(
        station: MACAddress, bssid: MACAddress, mode: UInt8, disassociationTimer: UInt16, validity: UInt8, candidates: [MACAddress]
    ) -> [UInt8] {
        var f = header(type: 0, subtype: 13, addr1: station, addr2: bssid, addr3: bssid) + [10, 7, 2, mode] + le16(disassociationTimer) + [validity]
        for c in candidates { f += element(52, c.bytes + [0x8F, 0, 0, 0] + [115, 36, 7]) }  // BSSID info, operating class, channel, PHY type
        return f
    }

    /// An FT Request action frame over the DS (category 6, action 1) from the station to its
    /// current AP, naming the target.
    public static func ftRequest(station: MACAddress, currentAP: MACAddress, target: MACAddress) -> [UInt8] {
        header(type: 0, subtype: 13, addr1: currentAP, addr2: station, addr3: currentAP) + [6, 1] + station.bytes + target.bytes
    }

    /// An SA Query request (action 0) or response (1), category 8, transaction identifier 2.
    public static func saQuery(from: MACAddress, to: MACAddress, bssid: MACAddress, response: Bool) -> [UInt8] {
        header(type: 0, subtype: 13, addr1: to, addr2: from, addr3: bssid) + [8, response ? 1 : 0, 0x12, 0x34]
    }

    /// An EAPOL packet of `type` (0 EAP, 3 Key) in a data frame between a station and its AP.
    static func eapol(from: MACAddress, to: MACAddress, bssid: MACAddress, toDS: Bool, type: UInt8, body: [UInt8]) -> [UInt8] {
        let flags: UInt8 = toDS ? 0x01 : 0x02
        let h =
            toDS
            ? header(type: 2, subtype: 0, flags: flags, addr1: bssid, addr2: from, addr3: to)
            : header(type: 2, subtype: 0, flags: flags, addr1: to, addr2: bssid, addr3: from)
        return h + [0xAA, 0xAA, 0x03, 0, 0, 0, 0x88, 0x8E] + [2, type] + [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// An EAP packet in EAPOL (802.1X-2010) in a data frame: code 1 request, 2 response, 3 success.
    public static func eap(from: MACAddress, to: MACAddress, bssid: MACAddress, toDS: Bool, code: UInt8, identifier: UInt8) -> [UInt8] {
        let eap: [UInt8] = code >= 3 ? [code, identifier, 0, 4] : [code, identifier, 0, 5, 1]  // Success/Failure: no type; others: Identity
        return eapol(from: from, to: to, bssid: bssid, toDS: toDS, type: 0, body: eap)
    }

    /// An EAPOL-Key frame (RSN descriptor) with `keyInfo` (IEEE 802.11-2020 Figure 12-33) and
    /// no key data: 0x008A message 1, 0x010A message 2, 0x13CA message 3, 0x030A message 4.
    public static func eapolKey(from: MACAddress, to: MACAddress, bssid: MACAddress, toDS: Bool, keyInfo: UInt16, replay: UInt8) -> [UInt8] {
        // Descriptor, key information, key length, replay counter, nonce, IV, RSC, reserved, MIC,
        // key data length (0).
        let key: [UInt8] =
            [2, UInt8(keyInfo >> 8), UInt8(keyInfo & 0xFF), 0, 16] + [UInt8](repeating: 0, count: 7) + [replay]
            + [UInt8](repeating: 0, count: 32 + 16 + 8 + 8 + 16) + [0, 0]
        return eapol(from: from, to: to, bssid: bssid, toDS: toDS, type: 3, body: key)
    }

    /// WNM BSS Transition Management Request (category 10, action 7) with no candidate list.
    public static func btmRequest(station: MACAddress, bssid: MACAddress) -> [UInt8] {
        header(type: 0, subtype: 13, addr1: station, addr2: bssid, addr3: bssid) + [10, 7, 1, 0x01, 0, 0, 10]
    }
}
