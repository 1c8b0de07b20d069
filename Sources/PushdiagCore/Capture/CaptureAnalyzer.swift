/// Streams 802.11 records into counts, per-BSS, per-transmitter and per-channel tables, roaming
/// events and BSS Transition Management exchanges. Memory is bounded by the table capacities,
/// never by the number of frames.
public struct CaptureAnalyzer {
    public struct Options: Sendable {
        public var checkFCS = false
        public var thresholds = Thresholds()
        public var bssCapacity = 16_384
        public var transmitterCapacity = 262_144
        public var stationCapacity = 262_144
        public var roamingEventCapacity = 10_000
        /// A station that left one BSS and associates with another within this window has roamed.
        public var roamWindowNs: Int64 = 30_000_000_000
        /// The per-station analysis (StationAnalysis.swift).
        public var stations = StationAnalysis.Options()
        public init() {}
    }

    struct BSS {
        var ssid: [UInt8]?
        var channel: UInt8?
        var frequency: UInt16 = 0
        var frames = 0
        var retries = 0
        var beacons = 0
        var probeResponses = 0
        var loadSamples = 0
        var loadSum = 0
        var loadMin: UInt8 = .max
        var loadMax: UInt8 = 0
        var loadLast: UInt8 = 0
        var stationsLast: UInt16 = 0
        var fastTransition = false
        var radioMeasurement = false
        var bssTransition = false
        var mobilityDomain: UInt16?
        var signalSum = 0
        var signalSamples = 0
    }

    struct Transmitter {
        var frames = 0
        var retries = 0
        /// The sequence control of its last deauthentication, disassociation or action frame
        /// (`repeats`); -1 before one.
        var lastRobust: Int32 = -1
    }

    struct Channel {
        var frames = 0
        var retries = 0
        var airtimeFrames = 0
        var airtimeUs: Double = 0
        var first: Int64 = .max
        var last: Int64 = .min
    }

    struct Station {
        var bssid: MACAddress?
        var leftBSSID: MACAddress?
        var leftSubtype: UInt8 = 0
        /// Nil when the frame was protected (802.11w).
        var leftReason: UInt16?
        var leftTime: Int64 = 0
        var pending: Int = -1  // index of the roaming event awaiting its response
    }

    struct Roam {
        var time: Int64
        var station: MACAddress
        var from: MACAddress?
        var to: MACAddress
        var kind: CaptureRoamKind
        var reason: UInt16?
        var status: UInt16?
        var startedAt: Int64
        var gapNs: Int64?
    }

    public let options: Options
    public internal(set) var frames = 0
    public internal(set) var dot11Frames = 0
    public internal(set) var undecodable = 0
    /// 802.11 frames whose protocol version is not 0: radios pass such frames on with a bad
    /// PLCP or FCS; nothing in them (type, flags, addresses) is interpreted, as Wireshark does.
    public internal(set) var invalidFrames = 0
    public internal(set) var retryFrames = 0
    public internal(set) var dataFrames = 0
    public internal(set) var controlFrames = 0
    public internal(set) var extensionFrames = 0
    /// Frames by management subtype (0–15).
    public internal(set) var managementBySubtype = [Int](repeating: 0, count: 16)
    public internal(set) var fcsFrames = 0
    public internal(set) var fcsBadFlagged = 0
    public internal(set) var fcsBad = 0
    public internal(set) var malformedElements = 0
    public internal(set) var firstTimestamp: Int64 = .max
    public internal(set) var lastTimestamp: Int64 = .min
    /// Raw BSS Load channel-utilisation values (0–255) seen in any frame, as a 256-bit set.
    public internal(set) var utilizationValuesSeen = [UInt64](repeating: 0, count: 4)
    var bssTable: MACTable<BSS>
    var transmitterTable: MACTable<Transmitter>
    var stationTable: MACTable<Station>
    /// Frequency (MHz) → channel index + 1: a direct table, no hashing per frame.
    var channelSlot: [Int16] = []
    var channels: [(UInt16, Channel)] = []
    var lastFrequency: UInt16 = 0
    var lastChannel = 0
    var roams: [Roam] = []
    var roamsDropped = 0
    var untrackedTransmitters = 0
    var btm = BSSTransitionReport()
    var radiotapLayout = Radiotap.LayoutCache()
    public internal(set) var stationAnalysis: StationAnalysis

    public init(options: Options = Options()) {
        self.options = options
        bssTable = MACTable(capacity: options.bssCapacity)
        transmitterTable = MACTable(capacity: options.transmitterCapacity)
        stationTable = MACTable(capacity: options.stationCapacity)
        stationAnalysis = StationAnalysis(options: options.stations, bssCapacity: options.bssCapacity)
    }

    /// The distinct BSSIDs that sent beacons.
    public var beaconBSSIDs: [MACAddress] {
        (0..<bssTable.count).filter { bssTable[$0].beacons > 0 }.map { bssTable.keys[$0] }
    }

    /// The raw BSS Load utilisation values seen, sorted.
    public var utilizationValues: [Int] {
        (0..<256).filter { utilizationValuesSeen[$0 >> 6] & (1 << UInt64($0 & 63)) != 0 }
    }

    /// Frames and retry frames per transmitter address (`wlan.ta`).
    public var transmitterCounts: [MACAddress: (frames: Int, retries: Int)] {
        var out: [MACAddress: (frames: Int, retries: Int)] = [:]
        for i in 0..<transmitterTable.count {
            out[transmitterTable.keys[i]] = (transmitterTable[i].frames, transmitterTable[i].retries)
        }
        return out
    }

    // MARK: - Ingest

    /// One capture record: its link type, time, captured bytes and original (on-the-wire) length.
    @inline(__always)
    public mutating func ingest(linkType: LinkType, timestampNs: Int64, packet: UnsafeRawBufferPointer, originalLength: Int) {
        ingest(CaptureFrame(linkType: linkType, timestampNs: timestampNs, packet: packet, originalLength: originalLength, cache: &radiotapLayout))
    }

    /// One record, its radio header already taken off (`CaptureFrame`, perhaps on another thread).
    public mutating func ingest(_ f: CaptureFrame) {
        let timestampNs = f.timestampNs
        frames += 1
        if timestampNs < firstTimestamp { firstTimestamp = timestampNs }
        if timestampNs > lastTimestamp { lastTimestamp = timestampNs }
        guard let d = f.decapsulated else {
            undecodable += 1
            return
        }
        if d.info.fcsPresent { fcsFrames += 1 }
        if d.info.badFCSFlagged { fcsBadFlagged += 1 }
        guard let h = Dot11Header.parse(d.frame) else {
            undecodable += 1
            return
        }
        dot11Frames += 1
        if h.protocolVersion != 0 {
            invalidFrames += 1
            return
        }
        let retry = h.retry
        if retry { retryFrames += 1 }
        switch h.type {
        case .management: managementBySubtype[Int(h.subtype)] += 1
        case .control: controlFrames += 1
        case .data: dataFrames += 1
        case .extensionFrame: extensionFrames += 1
        }
        if options.checkFCS, let fcs = d.fcs, CRC32.checksum(d.frame) != fcs { fcsBad += 1 }
        stationAnalysis.frame(h, time: timestampNs)

        var transmitterSlot: Int?
        if let ta = h.transmitter {
            if let i = transmitterTable.slot(ta, make: { Transmitter() }) {
                transmitterSlot = i
                transmitterTable[i].frames += 1
                if retry { transmitterTable[i].retries += 1 }
            } else {
                untrackedTransmitters += 1
            }
        }

        var bssSlot: Int?
        if let b = h.bssid, b != .broadcast, let i = bssTable.slot(b, make: { BSS() }) {
            bssSlot = i
            bssTable[i].frames += 1
            if retry { bssTable[i].retries += 1 }
        }

        let freq = d.info.frequencyMHz
        if freq != 0 {
            let onAir = max(f.originalLength - d.headerLength, d.frame.count) + (d.info.fcsPresent ? 0 : 4)
            let airtime = Airtime.microseconds(length: onAir, modulation: d.info.modulation, frequencyMHz: freq, shortPreamble: d.info.shortPreamble)
            updateChannel(freq, retry: retry, airtime: airtime, time: timestampNs)
        }

        switch h.type {
        // A protected management frame (802.11w) only of the kinds counted by their addresses.
        case .management where !h.truncated && (!h.protected || h.managementSubtype?.isRobust == true):
            if h.managementSubtype?.isRobust == true, let i = transmitterSlot, repeats(h, transmitter: i) { break }
            // The two radio fields it reads, not the whole RadioInfo: passed on the stack, the struct
            // was rebuilt from single-byte stores and the call stalled on reading it back (12% of
            // the analysing thread on the mixed mix; docs/PERFORMANCE.md).
            management(h, body: d.frame.suffix(from: h.headerLength), time: timestampNs, bss: bssSlot, frequencyMHz: freq, signalDBm: d.info.signalDBm)
        case .data where h.flags & 0x03 == 0x01:
            // To DS: the transmitter is a station associated with addr1.
            if let sta = h.addr2, let ap = h.addr1, !sta.isGroup, let i = stationTable.slot(sta, make: { Station() }),
                stationTable[i].bssid == nil
            {
                stationTable[i].bssid = ap
            }
        default:
            break
        }
    }

    /// A deauthentication, disassociation or action frame (the kinds counted by reason, as
    /// steering and as BTM) that repeats its transmitter's last one: Retry set and the same
    /// sequence control. Its receiver drops it as a duplicate (802.11-2020 10.3.2.14), and so
    /// does the analysis: it counts as a frame and a retry, not again as a leave or a request.
    mutating func repeats(_ h: Dot11Header, transmitter i: Int) -> Bool {
        guard let sc = h.sequenceControl.map(Int32.init) else { return false }
        defer { transmitterTable[i].lastRobust = sc }
        return h.retry && transmitterTable[i].lastRobust == sc
    }

    @inline(__always)
    mutating func updateChannel(_ freq: UInt16, retry: Bool, airtime: Double?, time: Int64) {
        let i: Int
        if freq == lastFrequency {
            i = lastChannel
        } else if channelSlot.isEmpty == false, channelSlot[Int(freq)] != 0 {
            i = Int(channelSlot[Int(freq)]) - 1
        } else {
            guard channels.count < 1024 else { return }
            if channelSlot.isEmpty { channelSlot = [Int16](repeating: 0, count: 65536) }
            i = channels.count
            channelSlot[Int(freq)] = Int16(i + 1)
            channels.append((freq, Channel()))
        }
        lastFrequency = freq
        lastChannel = i
        channels[i].1.frames += 1
        if retry { channels[i].1.retries += 1 }
        if let a = airtime {
            channels[i].1.airtimeFrames += 1
            channels[i].1.airtimeUs += a
        }
        if time < channels[i].1.first { channels[i].1.first = time }
        if time > channels[i].1.last { channels[i].1.last = time }
    }

    // MARK: - Management bodies

    mutating func management(_ h: Dot11Header, body: UnsafeRawBufferPointer, time: Int64, bss: Int?, frequencyMHz: UInt16, signalDBm: Int8?) {
        guard let sub = h.managementSubtype else { return }
        stationAnalysis.management(h, body: body, time: time)
        switch sub {
        case .beacon, .probeResponse:
            // timestamp 8, beacon interval 2, capability 2, elements
            guard body.count >= 12 else { return }
            let e = elements(body.suffix(from: 12))
            guard let i = bss else { return }
            if sub == .beacon { bssTable[i].beacons += 1 } else { bssTable[i].probeResponses += 1 }
            if let ssid = e.ssid, !ssid.isEmpty, !ssid.elementsEqual(bssTable[i].ssid ?? []) {
                bssTable[i].ssid = Array(ssid)
            }
            if let ch = e.channel { bssTable[i].channel = ch }
            if frequencyMHz != 0, sub == .beacon { bssTable[i].frequency = frequencyMHz }
            if let s = signalDBm, s < 0 {
                bssTable[i].signalSum += Int(s)
                bssTable[i].signalSamples += 1
            }
            if let load = e.bssLoad {
                bssTable[i].loadSamples += 1
                bssTable[i].loadSum += Int(load.utilization)
                bssTable[i].loadMin = min(bssTable[i].loadMin, load.utilization)
                bssTable[i].loadMax = max(bssTable[i].loadMax, load.utilization)
                bssTable[i].loadLast = load.utilization
                bssTable[i].stationsLast = load.stationCount
            }
            if e.fastTransition { bssTable[i].fastTransition = true }
            if let md = e.mobilityDomain { bssTable[i].mobilityDomain = md }
            if e.radioMeasurement { bssTable[i].radioMeasurement = true }
            if e.bssTransition { bssTable[i].bssTransition = true }
        case .associationRequest:
            guard let sta = h.addr2, let ap = h.addr1, let s = station(sta) else { return }
            let st = stationTable[s]
            if let left = st.leftBSSID, left != ap, time - st.leftTime <= options.roamWindowNs {
                let kind = st.leftSubtype == 12 ? CaptureRoamKind.associationAfterDeauthentication : .associationAfterDisassociation
                addRoam(Roam(time: time, station: sta, from: left, to: ap, kind: kind, reason: st.leftReason, status: nil, startedAt: st.leftTime), slot: s)
            }
            stationTable[s].leftBSSID = nil
        case .reassociationRequest:
            // capability 2, listen interval 2, current AP address 6, elements
            guard let sta = h.addr2, let ap = h.addr1, let s = station(sta) else { return }
            let current = body.mac(at: 4)
            let st = stationTable[s]
            if st.pending >= 0, roams[st.pending].to == ap, roams[st.pending].status == nil || roams[st.pending].kind == .fastTransition {
                return  // part of a roam already reported (FT authentication, or a retransmission)
            }
            let from = current.flatMap { $0.rawValue == 0 ? nil : $0 } ?? st.bssid ?? st.leftBSSID
            guard from != ap else { return }
            addRoam(Roam(time: time, station: sta, from: from, to: ap, kind: .reassociation, reason: nil, status: nil, startedAt: time), slot: s)
        case .associationResponse, .reassociationResponse:
            guard let sta = h.addr1, let ap = h.addr2, let status = body.u16le(at: 2) else { return }
            guard let s = stationTable.find(sta) ?? station(sta) else { return }
            let p = stationTable[s].pending
            if p >= 0, roams[p].to == ap, roams[p].status == nil || roams[p].kind == .fastTransition {
                roams[p].status = status
                if status == 0 { roams[p].gapNs = time - roams[p].startedAt }
                if status == 0 || roams[p].kind != .fastTransition { stationTable[s].pending = -1 }
            }
            if status == 0 {
                stationTable[s].bssid = ap
                stationTable[s].leftBSSID = nil
            }
        case .authentication:
            // algorithm 2, transaction sequence 2, status 2
            guard let alg = body.u16le(at: 0), let seq = body.u16le(at: 2), let status = body.u16le(at: 4) else { return }
            guard alg == 2 else { return }  // fast BSS transition
            if seq == 1, let sta = h.addr2, let ap = h.addr1, let s = station(sta) {
                let st = stationTable[s]
                if st.pending >= 0, roams[st.pending].to == ap, roams[st.pending].kind == .fastTransition { return }
                let from = st.bssid ?? st.leftBSSID
                guard from != ap else { return }
                addRoam(Roam(time: time, station: sta, from: from, to: ap, kind: .fastTransition, reason: nil, status: nil, startedAt: time), slot: s)
            } else if seq == 2, status != 0, let sta = h.addr1, let ap = h.addr2, let s = stationTable.find(sta) {
                let p = stationTable[s].pending
                if p >= 0, roams[p].to == ap {
                    roams[p].status = status
                    stationTable[s].pending = -1
                }
            }
        case .deauthentication, .disassociation:
            let reason = h.protected ? nil : body.u16le(at: 0)
            guard h.protected || reason != nil, let a1 = h.addr1, let a2 = h.addr2, let b = h.addr3 else { return }
            // Sent by the AP (addr2 is the BSSID) to a station, or by the station to its AP.
            let (sta, ap) = a2 == b ? (a1, a2) : (a2, a1)
            guard !sta.isGroup, let s = station(sta) else { return }
            stationTable[s].bssid = nil
            stationTable[s].leftBSSID = ap
            stationTable[s].leftSubtype = sub.rawValue
            stationTable[s].leftReason = reason
            stationTable[s].leftTime = time
        case .action:
            // WNM (category 10): 6 BTM query, 7 BTM request, 8 BTM response (status at +2).
            if h.protected {
                btm.protectedActions += 1
                return
            }
            guard body.count >= 2, body[0] == 10 else { return }
            switch body[1] {
            case 6: btm.queries += 1
            case 7: btm.requests += 1
            case 8:
                btm.responses += 1
                if let status = body.u8(at: 3) {
                    if status == 0 { btm.accepted += 1 } else { btm.rejected += 1 }
                }
            default: break
            }
        default:
            break
        }
    }

    @inline(__always)
    mutating func elements(_ b: UnsafeRawBufferPointer) -> ElementSummary {
        let e = ElementSummary.parse(b)
        if e.malformed { malformedElements += 1 }
        if let load = e.bssLoad { utilizationValuesSeen[Int(load.utilization >> 6)] |= 1 << UInt64(load.utilization & 63) }
        return e
    }

    mutating func station(_ mac: MACAddress) -> Int? {
        guard !mac.isGroup else { return nil }
        return stationTable.slot(mac, make: { Station() })
    }

    mutating func addRoam(_ r: Roam, slot: Int) {
        guard roams.count < options.roamingEventCapacity else {
            roamsDropped += 1
            return
        }
        stationTable[slot].pending = roams.count
        roams.append(r)
    }
}
