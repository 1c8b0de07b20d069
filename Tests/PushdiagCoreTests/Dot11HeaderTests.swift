import FixtureKit
import PushdiagCore
import Testing

struct Dot11HeaderTests {
    let sta = MACAddress("02:00:00:00:00:51")!, ap = MACAddress("02:00:00:00:01:00")!, dst = MACAddress("02:00:00:00:09:99")!

    @Test func bssidAndTransmitterFollowTheDSBits() throws {
        // The header borrows the frame's bytes: everything is read inside the closure.
        try withBytes(FrameBuilder.data(from: sta, to: dst, bssid: ap, toDS: true)) {
            let up = try #require(Dot11Header.parse($0))
            #expect(up.bssid == ap && up.transmitter == sta && up.toDS && !up.fromDS)
            #expect(up.addr1 == ap && up.addr3 == dst && up.addr4 == nil && up.headerLength == 24)
        }
        try withBytes(FrameBuilder.data(from: dst, to: sta, bssid: ap, toDS: false, retry: true)) {
            let down = try #require(Dot11Header.parse($0))
            #expect(down.bssid == ap && down.transmitter == ap && down.retry)
        }
    }

    @Test func controlFrames() throws {
        let ack: [UInt8] = [0xD4, 0x00, 0, 0] + sta.bytes
        try withBytes(ack) {
            let a = try #require(Dot11Header.parse($0))
            #expect(a.type == .control && a.subtype == 13 && a.transmitter == nil && a.bssid == nil && !a.truncated)
            #expect(a.addr1 == sta && a.addr2 == nil && a.headerLength == 10)
        }
        let rts: [UInt8] = [0xB4, 0x00, 0, 0] + ap.bytes + sta.bytes
        try withBytes(rts) {
            let r = try #require(Dot11Header.parse($0))
            #expect(r.transmitter == sta && r.addr1 == ap)
        }
        try withBytes(Array(rts.prefix(12))) {
            let cut = try #require(Dot11Header.parse($0))
            #expect(cut.truncated && cut.transmitter == nil && cut.addr1 == ap && cut.headerLength == 12)
        }
    }

    @Test func truncatedHeadersKeepFrameControlOnly() throws {
        let beacon = FrameBuilder.beacon(bssid: ap, .init(ssid: "x", channel: 1))
        try withBytes(Array(beacon.prefix(17))) {
            let cut = try #require(Dot11Header.parse($0))
            #expect(cut.managementSubtype == .beacon && cut.truncated && cut.headerLength == 17)
            #expect(cut.transmitter == nil && cut.bssid == nil, "as Wireshark: no wlan.ta or wlan.bssid in a cut header")
        }
        #expect(withBytes([0x80]) { Dot11Header.parse($0) } == nil)
    }
}
