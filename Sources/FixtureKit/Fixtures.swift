import PushdiagCore

/// The captures in fixtures/, described by what they contain. The generator writes them; the
/// tests read them back and expect the numbers that follow from these descriptions.
public enum Fixtures {
    /// 2026-01-01T00:00:00Z in nanoseconds.
    public static let epoch: Int64 = 1_767_225_600 * 1_000_000_000
    public static let ap1 = MACAddress("02:00:00:00:01:00")!
    public static let ap2 = MACAddress("02:00:00:00:02:00")!
    public static let station = MACAddress("02:00:00:00:00:51")!
    public static let ssid = "ward-3"
    public static let mobilityDomain: UInt16 = 0x3412

    public struct Record {
        public var timeNs: Int64
        public var bytes: [UInt8]
    }

    public struct Fixture {
        public var name: String
        public var records: [Record]
    }

    static func ms(_ v: Int64) -> Int64 { epoch + v * 1_000_000 }

    /// 10 beacons (every 20th frame) and 190 data frames from one station, 40 of them
    /// retransmissions: 40 of 200 frames, 20% retries; the station alone 40 of 190.
    public static let retriesBeacons = 10, retriesData = 190, retriesRetried = 40

    public static func retriesAbove15Percent() -> Fixture {
        var r: [Record] = []
        let o = FrameBuilder.BeaconOptions(ssid: ssid, channel: 6)
        for i in 0..<200 {
            let t = ms(Int64(i) * 10)
            if i % 20 == 0 {
                r.append(Record(timeNs: t, bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap1, o, sequence: UInt16(i)))))
            } else {
                let dataIndex = i - i / 20 - 1
                let retry = dataIndex % 19 < 4  // 4 of every 19 data frames: 40 of 190
                r.append(
                    Record(
                        timeNs: t,
                        bytes: FrameBuilder.radiotap(FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true, retry: retry, sequence: UInt16(i)))))
            }
        }
        return Fixture(name: "retries-above-15pct.pcap", records: r)
    }

    /// 50 beacons over 4.9 s advertising BSS Load: 12 stations, utilisation 140/255 = 54.9%.
    public static let bssLoadRaw: UInt8 = 140, bssLoadStations: UInt16 = 12, bssLoadBeacons = 50

    public static func bssLoad55Percent() -> Fixture {
        var o = FrameBuilder.BeaconOptions(ssid: ssid, channel: 11)
        o.bssLoad = (bssLoadStations, bssLoadRaw)
        let r = (0..<bssLoadBeacons).map { i in
            Record(timeNs: ms(Int64(i) * 100), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap1, o, sequence: UInt16(i)), frequency: 2462))
        }
        return Fixture(name: "beacon-bssload-55pct.pcap", records: r)
    }

    static func roamingAPs(ft: Bool) -> (FrameBuilder.BeaconOptions, FrameBuilder.BeaconOptions) {
        var a = FrameBuilder.BeaconOptions(ssid: ssid, channel: 1)
        var b = FrameBuilder.BeaconOptions(ssid: ssid, channel: 6)
        for i in [0, 1] {
            var o = i == 0 ? a : b
            o.radioMeasurement = true
            o.bssTransition = true
            if ft {
                o.mobilityDomain = mobilityDomain
                o.akms = [2, 4]
            }
            if i == 0 { a = o } else { b = o }
        }
        return (a, b)
    }

    /// Station on AP1 (beacons, data), then an FT roam to AP2: FT authentication at 1000 ms,
    /// AP2's FT authentication response at 1002 ms, reassociation request (current AP: AP1) at
    /// 1004 ms, response (status 0) at 1010 ms, then data on AP2. Gap: 10 ms.
    public static let ftRoamStartMs: Int64 = 1000, ftRoamEndMs: Int64 = 1010

    public static func ftRoam() -> Fixture {
        let (a, b) = roamingAPs(ft: true)
        var r: [Record] = []
        r.append(Record(timeNs: ms(0), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap1, a), frequency: 2412)))
        r.append(Record(timeNs: ms(50), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap2, b))))
        for i in 0..<5 {
            r.append(
                Record(
                    timeNs: ms(100 + Int64(i) * 100),
                    bytes: FrameBuilder.radiotap(FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true), frequency: 2412)))
        }
        r.append(
            Record(
                timeNs: ms(ftRoamStartMs),
                bytes: FrameBuilder.radiotap(
                    FrameBuilder.authentication(from: station, to: ap2, bssid: ap2, algorithm: 2, transaction: 1, status: 0, mobilityDomain: mobilityDomain))))
        r.append(
            Record(
                timeNs: ms(1002),
                bytes: FrameBuilder.radiotap(
                    FrameBuilder.authentication(from: ap2, to: station, bssid: ap2, algorithm: 2, transaction: 2, status: 0, mobilityDomain: mobilityDomain))))
        r.append(
            Record(timeNs: ms(1004), bytes: FrameBuilder.radiotap(FrameBuilder.reassociationRequest(station: station, bssid: ap2, currentAP: ap1, ssid: ssid))))
        r.append(
            Record(
                timeNs: ms(ftRoamEndMs),
                bytes: FrameBuilder.radiotap(FrameBuilder.associationResponse(reassociation: true, station: station, bssid: ap2, status: 0))))
        for i in 0..<5 {
            r.append(Record(timeNs: ms(1100 + Int64(i) * 100), bytes: FrameBuilder.radiotap(FrameBuilder.data(from: station, to: ap2, bssid: ap2, toDS: true))))
        }
        return Fixture(name: "roam-ft.pcap", records: r)
    }

    /// Station on AP1; reassociates to AP2 at 1000 ms (response at 1005 ms: gap 5 ms); AP2
    /// deauthenticates it at 2000 ms (reason 7); it associates with AP1 at 2300 ms (response at
    /// 2302 ms: gap 302 ms from the deauthentication). AP2 also steers it with a BSS transition
    /// request that the station accepts.
    public static let deauthReason: UInt16 = 7

    public static func reassociationRoam() -> Fixture {
        let (a, b) = roamingAPs(ft: false)
        var r: [Record] = []
        r.append(Record(timeNs: ms(0), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap1, a), frequency: 2412)))
        r.append(Record(timeNs: ms(50), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap2, b))))
        r.append(Record(timeNs: ms(100), bytes: FrameBuilder.radiotap(FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true), frequency: 2412)))
        r.append(
            Record(timeNs: ms(1000), bytes: FrameBuilder.radiotap(FrameBuilder.reassociationRequest(station: station, bssid: ap2, currentAP: ap1, ssid: ssid))))
        r.append(
            Record(
                timeNs: ms(1005), bytes: FrameBuilder.radiotap(FrameBuilder.associationResponse(reassociation: true, station: station, bssid: ap2, status: 0))))
        r.append(Record(timeNs: ms(1500), bytes: FrameBuilder.radiotap(FrameBuilder.btmRequest(station: station, bssid: ap2))))
        r.append(Record(timeNs: ms(1510), bytes: FrameBuilder.radiotap(FrameBuilder.btmResponse(station: station, bssid: ap2, status: 0, target: ap1))))
        r.append(
            Record(timeNs: ms(2000), bytes: FrameBuilder.radiotap(FrameBuilder.deauthentication(from: ap2, to: station, bssid: ap2, reason: deauthReason))))
        r.append(
            Record(timeNs: ms(2300), bytes: FrameBuilder.radiotap(FrameBuilder.associationRequest(station: station, bssid: ap1, ssid: ssid), frequency: 2412)))
        r.append(
            Record(
                timeNs: ms(2302),
                bytes: FrameBuilder.radiotap(FrameBuilder.associationResponse(reassociation: false, station: station, bssid: ap1, status: 0), frequency: 2412)))
        return Fixture(name: "roam-reassociation.pcap", records: r)
    }

    /// The retries fixture's first 20 records, written whole; the file is then cut inside the
    /// 20th record (the generator removes its last 10 bytes).
    public static let truncatedRecords = 20, truncatedCut = 10

    public static func truncated() -> Fixture {
        Fixture(name: "capture-truncated.pcap", records: Array(retriesAbove15Percent().records.prefix(truncatedRecords)))
    }

    /// Frames a radio mangled: of 120 frames, 60 have a protocol version other than 0 (1, 2, 3
    /// in turn; every one with the Retry bit, a third of them beacons); the 60 valid ones are
    /// data frames from the station, 15 of them retransmissions.
    public static let mangledFrames = 120, mangledInvalid = 60, mangledRetries = 15

    public static func mangledVersion() -> Fixture {
        let o = FrameBuilder.BeaconOptions(ssid: ssid, channel: 6)
        let r = (0..<mangledFrames).map { i -> Record in
            if i % 2 == 0 {
                let retry = i % 8 == 0  // 15 of the 60 valid frames
                return Record(
                    timeNs: ms(Int64(i) * 5),
                    bytes: FrameBuilder.radiotap(FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true, retry: retry, sequence: UInt16(i))))
            }
            var frame =
                i % 6 == 1 ? FrameBuilder.beacon(bssid: ap2, o, sequence: UInt16(i)) : FrameBuilder.data(from: ap2, to: station, bssid: ap2, toDS: false)
            frame[0] |= UInt8(1 + (i / 2) % 3)  // protocol version 1, 2 or 3
            frame[1] |= 0x08  // Retry
            return Record(timeNs: ms(Int64(i) * 5), bytes: FrameBuilder.radiotap(frame))
        }
        return Fixture(name: "mangled-protocol-version.pcap", records: r)
    }

    public static var all: [Fixture] {
        [retriesAbove15Percent(), bssLoad55Percent(), ftRoam(), reassociationRoam(), truncated(), mangledVersion()]
    }
}
