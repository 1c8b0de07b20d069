import FixtureKit
import PushdiagCore
import Testing

struct Dot11HeaderTests {
    let sta = MACAddress("02:00:00:00:00:51")!, ap = MACAddress("02:00:00:00:01:00")!, dst = MACAddress("02:00:00:00:09:99")!

    @Test func bssidAndTransmitterFollowTheDSBits() throws {
        let up = try #require(withBytes(FrameBuilder.data(from: sta, to: dst, bssid: ap, toDS: true)) { Dot11Header.parse($0) })
        #expect(up.bssid == ap && up.transmitter == sta && up.toDS && !up.fromDS)
        let down = try #require(withBytes(FrameBuilder.data(from: dst, to: sta, bssid: ap, toDS: false, retry: true)) { Dot11Header.parse($0) })
        #expect(down.bssid == ap && down.transmitter == ap && down.retry)
    }

    @Test func controlFrames() throws {
        let ack: [UInt8] = [0xD4, 0x00, 0, 0] + sta.bytes
        let a = try #require(withBytes(ack) { Dot11Header.parse($0) })
        #expect(a.type == .control && a.subtype == 13 && a.transmitter == nil && a.bssid == nil && !a.truncated)
        let rts: [UInt8] = [0xB4, 0x00, 0, 0] + ap.bytes + sta.bytes
        let r = try #require(withBytes(rts) { Dot11Header.parse($0) })
        #expect(r.transmitter == sta)
    }

    @Test func truncatedHeadersKeepFrameControlOnly() throws {
        let beacon = FrameBuilder.beacon(bssid: ap, .init(ssid: "x", channel: 1))
        let cut = try #require(withBytes(Array(beacon.prefix(17))) { Dot11Header.parse($0) })
        #expect(cut.managementSubtype == .beacon && cut.truncated)
        #expect(cut.transmitter == nil && cut.bssid == nil, "as Wireshark: no wlan.ta or wlan.bssid in a cut header")
        #expect(withBytes([0x80]) { Dot11Header.parse($0) } == nil)
    }
}

struct ElementTests {
    @Test func roamingCapabilitiesAndBSSLoad() {
        var o = FrameBuilder.BeaconOptions(ssid: "ward-3", channel: 6)
        o.bssLoad = (7, 102)
        o.akms = [4]  // FT-PSK, no Mobility Domain element
        o.radioMeasurement = true
        o.bssTransition = true
        let e = withBytes(FrameBuilder.elements(o)) { b -> (ElementSummary, [UInt8]?) in
            let s = ElementSummary.parse(b)
            return (s, s.ssid.map(Array.init))
        }
        #expect(e.1 == Array("ward-3".utf8))
        #expect(e.0.channel == 6)
        #expect(e.0.bssLoad?.stationCount == 7 && e.0.bssLoad?.utilization == 102)
        #expect(e.0.fastTransition && e.0.mobilityDomain == nil && e.0.rsnFastTransition)
        #expect(e.0.radioMeasurement && e.0.bssTransition && !e.0.malformed)
    }

    @Test func plainPSKIsNotFastTransition() {
        let e = withBytes(FrameBuilder.elements(.init(ssid: "a", channel: 1))) { ElementSummary.parse($0) }
        #expect(!e.fastTransition && !e.radioMeasurement && !e.bssTransition && e.bssLoad == nil)
    }

    @Test func malformedElementsAreNotedAndEarlierOnesKept() {
        // SSID, then a BSS Load of the wrong length, then an element running past the end.
        let bytes: [UInt8] = [0, 2, 0x61, 0x62] + [11, 2, 1, 2] + [3, 1, 11] + [48, 40, 1, 0]
        let e = withBytes(bytes) { ElementSummary.parse($0) }
        #expect(e.malformed)
        #expect(e.bssLoad == nil)
        #expect(e.dsChannel == 11)
        #expect(e.elementCount == 3)
        // An RSN element whose AKM count runs past it.
        let rsn: [UInt8] = [48, 12, 1, 0, 0, 0x0F, 0xAC, 4, 0, 0, 9, 0, 0, 0x0F]
        #expect(withBytes(rsn) { ElementSummary.parse($0) }.malformed)
    }
}

struct AirtimeTests {
    func info(_ m: RadioInfo.Modulation, freq: UInt16 = 5180, short: Bool = false) -> RadioInfo {
        var i = RadioInfo()
        i.modulation = m
        i.frequencyMHz = freq
        i.shortPreamble = short
        return i
    }

    @Test func legacyRates() {
        // OFDM 54 Mb/s, 1500 bytes: 20 µs + ⌈(16 + 12000 + 6) / 216⌉ = 56 symbols × 4 µs.
        #expect(Airtime.microseconds(length: 1500, info: info(.legacy(rate500k: 108))) == 244)
        #expect(Airtime.microseconds(length: 1500, info: info(.legacy(rate500k: 108), freq: 2437)) == 250)
        // DSSS 1 Mb/s, 100 bytes, long preamble: 192 + 800 µs. CCK 11 Mb/s short: 96 + 800/11.
        #expect(Airtime.microseconds(length: 100, info: info(.legacy(rate500k: 2), freq: 2412)) == 992)
        let cck = Airtime.microseconds(length: 100, info: info(.legacy(rate500k: 22), freq: 2412, short: true))!
        #expect(abs(cck - (96 + 800.0 / 11)) < 1e-9)
        #expect(Airtime.microseconds(length: 100, info: RadioInfo()) == nil)
    }

    @Test func htVhtHe() {
        // HT MCS 7, 20 MHz, long GI, 1500 bytes: 36 µs preamble + ⌈12022 / 260⌉ = 47 × 4 µs.
        #expect(Airtime.microseconds(length: 1500, info: info(.ht(mcs: 7, bandwidthMHz: 20, shortGI: false))) == 224)
        // VHT MCS 9, 2 streams, 80 MHz: N_DBPS = 234 × 20/3 × 2 = 3120; ⌈12022 / 3120⌉ = 4 symbols.
        let vht = Airtime.microseconds(length: 1500, info: info(.vht(mcs: 9, nss: 2, bandwidthMHz: 80, shortGI: false)))!
        #expect(abs(vht - (20 + 8 + 4 + 8 + 4 + 16)) < 1e-9)
        // HE MCS 11, 1 stream, 20 MHz, 0.8 µs GI: N_DBPS = 234 × 25/3 = 1950; 7 symbols of 13.6 µs.
        let he = Airtime.microseconds(length: 1500, info: info(.he(mcs: 11, nss: 1, bandwidthMHz: 20, guardIntervalNs: 800)))!
        #expect(abs(he - (44 + 7 * 13.6)) < 1e-9)
        #expect(Airtime.microseconds(length: 1500, info: info(.ht(mcs: 40, bandwidthMHz: 20, shortGI: false))) == nil)
    }
}

struct SmallPartsTests {
    @Test func crc32() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        // Slicing-by-8 equals the bitwise definition on lengths around the 8-byte blocks.
        for n in [0, 1, 7, 8, 9, 63, 100] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var crc: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                crc ^= UInt32(b)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            #expect(CRC32.checksum(bytes) == crc ^ 0xFFFF_FFFF, "length \(n)")
        }
    }

    @Test func timestamps() {
        #expect(Timestamp.rfc3339(nanoseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(Timestamp.rfc3339(nanoseconds: 1_767_225_600_123_456_789) == "2026-01-01T00:00:00.123456Z")
        #expect(Timestamp.rfc3339(nanoseconds: 951_782_400 * 1_000_000_000) == "2000-02-29T00:00:00.000000Z")
        #expect(Timestamp.rfc3339(nanoseconds: -1000) == "1969-12-31T23:59:59.999999Z")
    }

    @Test func macTableFindsEveryKeyAndStopsAtCapacity() {
        var t = MACTable<Int>(capacity: 5000)
        var state: UInt64 = 12345
        var keys: [MACAddress] = []
        for i in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let k = MACAddress(rawValue: state >> 16)
            guard !keys.contains(k) else { continue }
            keys.append(k)
            #expect(t.slot(k, make: { i }) != nil)
        }
        for (i, k) in keys.enumerated() { #expect(t.find(k) == i) }
        #expect(t.slot(MACAddress(rawValue: 0xFFFF_0000_0001), make: { 0 }) == nil || keys.count < 5000)
        #expect(t.find(MACAddress(rawValue: 0x1234)) == nil || keys.contains(MACAddress(rawValue: 0x1234)))
    }

    @Test func ssidText() {
        #expect(SSIDText.render(Array("ward-3".utf8)) == "ward-3")
        #expect(SSIDText.render([0x61, 0x00, 0xFF]) == "a\\x00\\xff")
        #expect(SSIDText.render(Array("病棟".utf8)) == "病棟")
    }

    @Test func channelPlan() {
        #expect(ChannelPlan.channel(forFrequency: 2437) == 6)
        #expect(ChannelPlan.channel(forFrequency: 2484) == 14)
        #expect(ChannelPlan.channel(forFrequency: 5180) == 36)
        #expect(ChannelPlan.frequency(forChannel: 11) == 2462)
        #expect(ChannelPlan.frequency(forChannel: 149) == 5745)
    }
}
