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
        [retriesAbove15Percent(), bssLoad55Percent(), ftRoam(), reassociationRoam(), truncated(), mangledVersion(), stationDoze(), steering(), roamTypes()]
    }

    static func sorted(_ r: [Record]) -> [Record] {
        r.enumerated().sorted { ($0.element.timeNs, $0.offset) < ($1.element.timeNs, $1.offset) }.map(\.element)
    }

    /// A phone dozing 30 s with its AID in the TIM (issue #30). AP1 beacons every 100 ms (at
    /// 50, 150, … 32 050 ms; DTIM period 3); the station associates (listen interval 10, AID 5)
    /// and sends 4 data frames, then a Null with PM set at 1000 ms (and its retransmission). The
    /// AP sends it 2 frames while it dozes and sets AID 5 in its beacons' TIM from 1500 ms; the
    /// station wakes with a PS-Poll at 31 000 ms (a 30 s doze, a 30 s silence), dozes 10 ms more
    /// until a data frame with PM clear, then dozes 300 ms from a QoS Null with PM set to a
    /// U-APSD trigger at 31 800 ms, which leaves it dozing when the capture ends.
    public static let dozeAID: UInt16 = 5, dozeListenInterval: UInt16 = 10, dozeDTIM: UInt8 = 3

    public static func stationDoze() -> Fixture {
        var o = FrameBuilder.BeaconOptions(ssid: ssid, channel: 6)
        var r: [Record] = []
        for k in 0...320 {
            let t = Int64(k) * 100 + 50
            o.tim = (dozeDTIM, t >= 1500 && t < 31000 ? [Int(dozeAID)] : [])
            r.append(Record(timeNs: ms(t), bytes: FrameBuilder.radiotap(FrameBuilder.beacon(bssid: ap1, o, sequence: UInt16(k)))))
        }
        func add(_ t: Int64, _ f: [UInt8]) { r.append(Record(timeNs: ms(t), bytes: FrameBuilder.radiotap(f))) }
        add(10, FrameBuilder.request(reassociation: false, station: station, bssid: ap1, currentAP: nil, ssid: ssid, listenInterval: dozeListenInterval))
        add(12, FrameBuilder.associationResponse(reassociation: false, station: station, bssid: ap1, status: 0, aid: dozeAID))
        for t: Int64 in [200, 400, 600, 800] { add(t, FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true)) }
        add(1000, FrameBuilder.nullData(station: station, bssid: ap1, powerManagement: true))
        add(1001, FrameBuilder.nullData(station: station, bssid: ap1, powerManagement: true, retry: true))
        add(1500, FrameBuilder.data(from: ap1, to: station, bssid: ap1, toDS: false))
        add(9000, FrameBuilder.data(from: ap1, to: station, bssid: ap1, toDS: false))
        add(31000, FrameBuilder.psPoll(station: station, bssid: ap1, aid: dozeAID))
        add(31005, FrameBuilder.data(from: ap1, to: station, bssid: ap1, toDS: false))
        add(31010, FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true))
        add(31500, FrameBuilder.nullData(station: station, bssid: ap1, powerManagement: true, qos: true))
        add(31800, FrameBuilder.nullData(station: station, bssid: ap1, powerManagement: true, qos: true))
        return Fixture(name: "station-doze-30s.pcap", records: sorted(r))
    }

    /// Steering and an ejection (issue #30): the station on AP2 gets a BTM request with
    /// disassociation imminent (timer 15, validity 10, AP1 as the one candidate) at 5000 ms and
    /// rejects it (status 7); an SA Query exchange follows; AP2 deauthenticates it at 7500 ms
    /// (reason 12); silent from its last frame at 6000 ms, it comes back at 19 000 ms on AP1 (open
    /// authentication, association, AID 3): a 13 s silence and a roam with an 11 510 ms gap from
    /// the deauthentication. It disassociates from AP1 (reason 8) at 21 000 ms.
    public static let steeringDeauthReason: UInt16 = 12, steeringBTMStatus: UInt8 = 7

    public static func steering() -> Fixture {
        let (a, b) = roamingAPs(ft: false)
        var r: [Record] = []
        func add(_ t: Int64, _ f: [UInt8]) { r.append(Record(timeNs: ms(t), bytes: FrameBuilder.radiotap(f))) }
        add(0, FrameBuilder.beacon(bssid: ap1, a))
        add(50, FrameBuilder.beacon(bssid: ap2, b))
        add(100, FrameBuilder.data(from: station, to: ap2, bssid: ap2, toDS: true))
        add(5000, FrameBuilder.btmRequest(station: station, bssid: ap2, mode: 0x05, disassociationTimer: 15, validity: 10, candidates: [ap1]))
        add(5010, FrameBuilder.btmResponse(station: station, bssid: ap2, status: steeringBTMStatus, target: nil))
        add(5500, FrameBuilder.saQuery(from: ap2, to: station, bssid: ap2, response: false))
        add(5510, FrameBuilder.saQuery(from: station, to: ap2, bssid: ap2, response: true))
        add(6000, FrameBuilder.data(from: station, to: ap2, bssid: ap2, toDS: true))
        add(7500, FrameBuilder.deauthentication(from: ap2, to: station, bssid: ap2, reason: steeringDeauthReason))
        add(19000, FrameBuilder.authentication(from: station, to: ap1, bssid: ap1, algorithm: 0, transaction: 1, status: 0))
        add(19002, FrameBuilder.authentication(from: ap1, to: station, bssid: ap1, algorithm: 0, transaction: 2, status: 0))
        add(19005, FrameBuilder.request(reassociation: false, station: station, bssid: ap1, currentAP: nil, ssid: ssid, listenInterval: 3))
        add(19010, FrameBuilder.associationResponse(reassociation: false, station: station, bssid: ap1, status: 0, aid: 3))
        add(20000, FrameBuilder.data(from: station, to: ap1, bssid: ap1, toDS: true))
        add(21000, FrameBuilder.deauthentication(disassociation: true, from: station, to: ap1, bssid: ap1, reason: 8))
        return Fixture(name: "steering-btm-deauth.pcap", records: r)
    }

    /// Each roam type once (issue #30), by six stations (…:61 to …:66) that each send a data
    /// frame to AP1 at T = 1000 × (1 + k) ms and move to AP2: FT over the air (gap 10 ms), FT
    /// over the DS (60 ms from the FT Request), PMKSA caching (8 ms), SAE (55 ms), 802.1X (180 ms
    /// to the 4-way handshake's message 4, 30 ms after the EAP Success: a warning) and open (4 ms).
    public static let roamTypeStations = (0..<6).map { MACAddress(rawValue: 0x0200_0000_0061 + UInt64($0)) }
    public static let roamTypeGapsMs: [Double] = [10, 60, 8, 55, 180, 4]

    public static func roamTypes() -> Fixture {
        let (a, b) = roamingAPs(ft: true)
        var r: [Record] = []
        func add(_ t: Int64, _ f: [UInt8]) { r.append(Record(timeNs: ms(t), bytes: FrameBuilder.radiotap(f))) }
        add(0, FrameBuilder.beacon(bssid: ap1, a))
        add(50, FrameBuilder.beacon(bssid: ap2, b))
        let fte = FrameBuilder.element(55, [UInt8](repeating: 0, count: 82))
        for (k, sta) in roamTypeStations.enumerated() {
            let t0 = Int64(k + 1) * 1000
            func at(_ dt: Int64, _ f: [UInt8]) { add(t0 + dt, f) }
            func auth(_ dt: Int64, _ alg: UInt16, _ seq: UInt16) {
                at(dt, FrameBuilder.authentication(from: sta, to: ap2, bssid: ap2, algorithm: alg, transaction: seq, status: 0))
                at(dt + 1, FrameBuilder.authentication(from: ap2, to: sta, bssid: ap2, algorithm: alg, transaction: seq + 1, status: 0))
            }
            func reassoc(_ dt: Int64, _ elements: [UInt8], answer: Int64) {
                at(dt, FrameBuilder.request(reassociation: true, station: sta, bssid: ap2, currentAP: ap1, ssid: ssid, listenInterval: 10, elements: elements))
                at(answer, FrameBuilder.associationResponse(reassociation: true, station: sta, bssid: ap2, status: 0, aid: UInt16(k + 1)))
            }
            at(0, FrameBuilder.data(from: sta, to: ap1, bssid: ap1, toDS: true))
            switch k {
            case 0:
                auth(100, 2, 1)
                reassoc(104, fte, answer: 110)
            case 1:
                at(100, FrameBuilder.ftRequest(station: sta, currentAP: ap1, target: ap2))
                reassoc(150, fte, answer: 160)
            case 2:
                auth(100, 0, 1)
                reassoc(103, FrameBuilder.rsnWithPMKIDs(1), answer: 108)
            case 3:
                at(100, FrameBuilder.authentication(from: sta, to: ap2, bssid: ap2, algorithm: 3, transaction: 1, status: 0))
                at(120, FrameBuilder.authentication(from: ap2, to: sta, bssid: ap2, algorithm: 3, transaction: 1, status: 0))
                at(130, FrameBuilder.authentication(from: sta, to: ap2, bssid: ap2, algorithm: 3, transaction: 2, status: 0))
                at(140, FrameBuilder.authentication(from: ap2, to: sta, bssid: ap2, algorithm: 3, transaction: 2, status: 0))
                reassoc(150, [], answer: 155)
            case 4:
                auth(100, 0, 1)
                reassoc(102, [], answer: 105)
                at(110, FrameBuilder.eap(from: ap2, to: sta, bssid: ap2, toDS: false, code: 1, identifier: 1))
                at(120, FrameBuilder.eap(from: sta, to: ap2, bssid: ap2, toDS: true, code: 2, identifier: 1))
                at(250, FrameBuilder.eap(from: ap2, to: sta, bssid: ap2, toDS: false, code: 3, identifier: 2))
                for (dt, info, toDS) in [(255, 0x008A, false), (260, 0x010A, true), (270, 0x13CA, false), (280, 0x030A, true)] as [(Int64, UInt16, Bool)] {
                    let (from, to) = toDS ? (sta, ap2) : (ap2, sta)
                    at(dt, FrameBuilder.eapolKey(from: from, to: to, bssid: ap2, toDS: toDS, keyInfo: info, replay: dt >= 270 ? 2 : 1))
                }
            default:
                auth(100, 0, 1)
                reassoc(102, [], answer: 104)
            }
            at(500, FrameBuilder.data(from: sta, to: ap2, bssid: ap2, toDS: true))
        }
        return Fixture(name: "roam-types.pcap", records: sorted(r))
    }
}
