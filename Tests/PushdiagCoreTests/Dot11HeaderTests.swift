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
