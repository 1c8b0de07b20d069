/// What happened to each station on the air, and when (issue #30): its frames and retries, its
/// power-save dozes and how it woke, its silences and what surrounded them, the steering and
/// ejections it and its AP exchanged, and every roam labelled by how it authenticated.
///
/// `CaptureAnalyzer` calls `frame` for every valid 802.11 frame and `management` for every
/// management frame whose header is whole (protected ones only of the robust kinds, counted by
/// their addresses alone). Memory is bounded by the number of stations and BSSs (the tables'
/// capacities, with a count of what was refused) and per station by `Options`' caps.
///
/// A station is an address that sends frames to an AP: data frames To DS, PS-Polls, and
/// authentication, (re)association, deauthentication, disassociation and action frames sent to
/// the BSSID (their address 2 is not the BSSID), or one the AP answers, ejects or steers.
/// Probe requests do not make a station (phones probe with random addresses).
public struct StationAnalysis {
    public struct Options: Sendable {
        /// A gap longer than this with no frame from a station is a silence (`--silence`).
        public var silenceNs: Int64 = 10_000_000_000
        public var stationCapacity = 65_536
        public var silencesPerStation = 64
        public var roamsPerStation = 64
        /// Hours of steering kept per BSS (a week).
        public var hoursPerBSS = 168
        /// BSSs whose TIM bitmaps are followed (16 KiB each).
        public var timTrackers = 1024
        /// A station that left one BSS and associates with another within this window has roamed.
        public var roamWindowNs: Int64 = 30_000_000_000
        /// How long after a roam's successful response EAP frames make it an 802.1X roam.
        public var eapWindowNs: Int64 = 10_000_000_000
        /// The link-gap limits a roam is graded by, the walk's (`--ft-gap-*`, `--roam-gap-*`).
        public var roamLimits = WalkThresholds()
        public init() {}
    }

    struct Leave {
        var time: Int64
        var disassociation: Bool
        var byAP: Bool
        /// Nil for a protected frame (802.11w): its reason is encrypted.
        var reason: UInt16?
        var bssid: MACAddress
    }

    struct Silence {
        var start: Int64
        var durationNs: Int64
        var before: SilenceEdge
        var after: SilenceEdge
    }

    struct Roam {
        var time: Int64
        var from: MACAddress?
        var to: MACAddress
        var type: RoamType
        var startedAt: Int64
        var status: UInt16?
        var gapNs: Int64?
        var answeredAt: Int64?
    }

    /// Steering and ejection counts, per AP and per station: the report's counters themselves
    /// (`counts`; its tables by reason and status stay empty here), and those tables keyed by
    /// number until `steeringReport` writes them.
    struct Steering {
        var counts = SteeringReport()
        var btmResponsesByStatus = CodeCounts<UInt8>()
        var deauthByReason = CodeCounts<UInt16>()
        var disassocByReason = CodeCounts<UInt16>()

        mutating func merge(_ o: Steering) {
            counts.addCounters(o.counts)
            btmResponsesByStatus.merge(o.btmResponsesByStatus)
            deauthByReason.merge(o.deauthByReason)
            disassocByReason.merge(o.disassocByReason)
        }
    }

    struct Station {
        var bssid: MACAddress?
        var frames = 0
        var retries = 0
        var powerSaveFrames = 0
        var listenInterval: UInt16?
        var aid: UInt16?
        /// The AP that gave the AID: a doze on another BSS (a roam whose response the capture
        /// missed) does not read the TIM at it.
        var aidBSSID: MACAddress?
        /// Its AP's last successful (re)association response: news of where it is, even in a
        /// file with no frame of its own (`merge`).
        var associatedAt: Int64 = .min
        var lastFrame: Int64 = .min
        var lastFramePM = false
        // Power save.
        var dozing = false
        var dozeStart: Int64 = 0
        var dozeBSSID: MACAddress?
        var dozes = 0
        var dozeTotalNs: Int64 = 0
        var dozeLongestNs: Int64 = 0
        var wokeByPSPoll = 0
        var wokeByPMClear = 0
        var wokeByTrigger = 0
        var wokeByOther = 0
        var framesWhileDozing = 0
        var dozesBuffered = 0
        var dozesNotBuffered = 0
        var dozesTIMUnknown = 0
        // Silences and what surrounds them.
        var leave: Leave?
        var silences: [Silence] = []
        var silencesDropped = 0
        // Steering, authentication, roams.
        var steering = Steering()
        var authAlgorithms = CodeCounts<UInt16>()
        var authAlgorithm: UInt16 = .max
        var authTo: MACAddress?
        var authTime: Int64 = 0
        var ftActionTarget: MACAddress?
        var ftActionTime: Int64 = 0
        var roams: [Roam] = []
        var roamsDropped = 0
        var pendingRoam = -1
    }

    struct BSS {
        var beaconInterval: UInt16?
        var dtimPeriod: UInt8?
        var lastTIMBeacon: Int64 = .min
        /// Index into `timLastSet`, or -1.
        var tracker = -1
        /// Its TIMs set AIDs but no tracker was left for it (`Options.timTrackers`): whether a
        /// doze on it was buffered is not known.
        var trackerRefused = false
        var steering = Steering()
        /// Per hour since the epoch.
        var hours: [Int64: Steering] = [:]
        var hoursDropped = 0
    }

    public let options: Options
    var stations: MACTable<Station>
    var bsses: MACTable<BSS>
    /// Per followed BSS, per AID (0–2007): when a beacon last set its bit in the TIM.
    var timLastSet: [[Int64]] = []
    public internal(set) var untrackedStations = 0
    public internal(set) var untrackedTIMs = 0

    public init(options: Options = Options(), bssCapacity: Int = 16_384) {
        self.options = options
        stations = MACTable(capacity: options.stationCapacity)
        bsses = MACTable(capacity: bssCapacity)
    }

    // MARK: - Every frame

    /// One valid 802.11 frame (protocol version 0).
    @inline(__always)
    public mutating func frame(_ h: Dot11Header, time t: Int64) {
        switch h.type {
        case .data:
            switch h.flags & 0x03 {
            case 0x01: fromStation(h, bssid: h.addr1, time: t)
            case 0x02: toStation(h, time: t)
            default: break
            }
        case .control:
            if h.subtype == 10 { fromStation(h, bssid: h.addr1, time: t) }  // PS-Poll
        case .management:
            switch h.subtype {
            case 0, 2, 10, 11, 12, 13:
                guard let a1 = h.addr1, let a2 = h.addr2, let a3 = h.addr3 else { return }
                if a2 != a3, a1 == a3 {
                    fromStation(h, bssid: a3, time: t)
                } else if a2 == a3 {
                    toStation(h, time: t)
                }
            case 1, 3:
                toStation(h, time: t)
            default: break
            }
        case .extensionFrame: break
        }
    }

    /// A frame the station sent: counts, silences, dozes.
    @inline(__always)
    mutating func fromStation(_ h: Dot11Header, bssid: MACAddress?, time t: Int64) {
        guard let sta = h.addr2, !sta.isGroup, let bssid else { return }
        guard let i = stations.slot(sta, make: { Station() }) else {
            untrackedStations += 1
            return
        }
        let pm = h.flags & 0x10 != 0
        stations[i].frames += 1
        if h.retry { stations[i].retries += 1 }
        if pm { stations[i].powerSaveFrames += 1 }
        let last = stations[i].lastFrame
        if last != .min, t - last > options.silenceNs {
            silence(i, start: last, end: t, after: edgeAfter(h, station: i, bssid: bssid))
        }
        if stations[i].dozing, !(h.retry && pm) {
            let wake: WakeKind =
                h.type == .control ? .psPoll : !pm ? .pmClear : h.type == .data && h.subtype & 0x08 != 0 ? .uapsdTrigger : .other
            endDoze(i, at: t, wake: wake)
        }
        if pm, !stations[i].dozing {
            stations[i].dozing = true
            stations[i].dozeStart = t
            stations[i].dozeBSSID = bssid
        }
        stations[i].lastFrame = t
        stations[i].lastFramePM = pm
        if h.type != .management { stations[i].bssid = bssid }
        if h.type == .data, !h.protected, stations[i].pendingRoam >= 0 { eap(h, station: i, time: t) }
    }

    /// A frame an AP sent to a station: counted while the station dozes; EAP after a roam.
    @inline(__always)
    mutating func toStation(_ h: Dot11Header, time t: Int64) {
        guard let sta = h.addr1, !sta.isGroup, let i = stations.find(sta) else { return }
        if stations[i].dozing { stations[i].framesWhileDozing += 1 }
        if h.type == .data, !h.protected, stations[i].pendingRoam >= 0 { eap(h, station: i, time: t) }
    }

    enum WakeKind { case psPoll, pmClear, uapsdTrigger, other }

    mutating func endDoze(_ i: Int, at t: Int64, wake: WakeKind) {
        let d = max(0, t - stations[i].dozeStart)
        stations[i].dozing = false
        stations[i].dozes += 1
        // Saturating: times that jump back and forth across the years a file may hold would
        // otherwise add up past Int64 (`CaptureFrame.mostNs` bounds each doze, not their sum).
        stations[i].dozeTotalNs = stations[i].dozeTotalNs.addingSaturated(d)
        stations[i].dozeLongestNs = max(stations[i].dozeLongestNs, d)
        switch wake {
        case .psPoll: stations[i].wokeByPSPoll += 1
        case .pmClear: stations[i].wokeByPMClear += 1
        case .uapsdTrigger: stations[i].wokeByTrigger += 1
        case .other: stations[i].wokeByOther += 1
        }
        // Whether a beacon of its BSS set its AID in the TIM meanwhile: known only with the AID
        // that BSS gave it and a beacon's TIM seen during the doze.
        let start = stations[i].dozeStart
        if let aid = stations[i].aid, aid > 0, aid < 2008, let b = stations[i].dozeBSSID, stations[i].aidBSSID == b, let bi = bsses.find(b),
            bsses[bi].lastTIMBeacon >= start,
            !bsses[bi].trackerRefused
        {
            let tr = bsses[bi].tracker
            if tr >= 0, timLastSet[tr][Int(aid)] >= start {
                stations[i].dozesBuffered += 1
            } else {
                stations[i].dozesNotBuffered += 1
            }
        } else {
            stations[i].dozesTIMUnknown += 1
        }
    }

    func edgeAfter(_ h: Dot11Header, station i: Int, bssid: MACAddress) -> SilenceEdge {
        let previous = stations[i].bssid ?? stations[i].leave?.bssid
        if h.type == .management, h.subtype == 0 || h.subtype == 2 || h.subtype == 11 {
            return SilenceEdge(kind: previous != nil && previous != bssid ? .roam : .association, bssid: bssid)
        }
        if h.type != .management, let p = previous, p != bssid { return SilenceEdge(kind: .roam, bssid: bssid) }
        return SilenceEdge(kind: stations[i].lastFramePM ? .woke : .nothing)
    }

    func edgeBefore(_ i: Int, start: Int64) -> SilenceEdge {
        if let l = stations[i].leave, l.time >= start {
            return SilenceEdge(
                kind: l.disassociation ? .disassociation : .deauthentication, by: l.byAP ? .ap : .station, reasonCode: l.reason.map(Int.init), bssid: l.bssid)
        }
        return SilenceEdge(kind: stations[i].lastFramePM ? .dozing : .nothing, bssid: stations[i].lastFramePM ? stations[i].dozeBSSID : nil)
    }

    mutating func silence(_ i: Int, start: Int64, end: Int64, after: SilenceEdge) {
        guard stations[i].silences.count < options.silencesPerStation else {
            stations[i].silencesDropped += 1
            return
        }
        stations[i].silences.append(Silence(start: start, durationNs: end - start, before: edgeBefore(i, start: start), after: after))
    }

    /// EAPOL in a data frame between a station and the AP it roamed to: EAP packets make the roam
    /// an 802.1X one, whose gap runs to the 4-way handshake's message 4 (the station can send
    /// data only once its keys are in, as the walk's gap ends at the keys); until that message is
    /// seen the gap is unknown, not the response's.
    mutating func eap(_ h: Dot11Header, station i: Int, time t: Int64) {
        let p = stations[i].pendingRoam
        guard p < stations[i].roams.count, let answered = stations[i].roams[p].answeredAt, t - answered <= options.eapWindowNs else { return }
        let body = UnsafeRawBufferPointer(rebasing: h.frame[h.headerLength...])
        guard let e = EAPOLFrame.parse(body) else { return }
        switch (e.type, stations[i].roams[p].type) {
        case (0, .open), (0, .pmksaCaching):
            stations[i].roams[p].type = .eap
            stations[i].roams[p].gapNs = nil
        case (3, .eap):
            if case .key(let k)? = EAPOLPacket.parse(body.suffix(from: 8)), k.message == .pairwise(4) {
                stations[i].roams[p].gapNs = t - stations[i].roams[p].startedAt
            }
        default: break
        }
    }

    // MARK: - Management bodies

    /// A management frame (its header whole). A protected one (802.11w: a deauthentication,
    /// disassociation or action frame: `CaptureAnalyzer` passes no other) counts by its
    /// addresses alone, its body encrypted.
    public mutating func management(_ h: Dot11Header, body: UnsafeRawBufferPointer, time t: Int64) {
        guard let sub = h.managementSubtype else { return }
        switch sub {
        case .beacon:
            guard let b = h.addr3, b != .broadcast, let bi = bsses.slot(b, make: { BSS() }) else { return }
            if let interval = body.u16le(at: 8) { bsses[bi].beaconInterval = interval }
            guard body.count >= 12, let tim = TIMElement.find(in: UnsafeRawBufferPointer(rebasing: body[12...])) else { return }
            bsses[bi].dtimPeriod = tim.dtimPeriod
            bsses[bi].lastTIMBeacon = t
            tim.forEachSetAID { aid in
                guard aid < 2008 else { return }
                if bsses[bi].tracker < 0 {
                    guard timLastSet.count < options.timTrackers else {
                        if !bsses[bi].trackerRefused { untrackedTIMs += 1 }
                        bsses[bi].trackerRefused = true
                        return
                    }
                    bsses[bi].tracker = timLastSet.count
                    timLastSet.append([Int64](repeating: .min, count: 2008))
                }
                timLastSet[bsses[bi].tracker][aid] = t
            }
        case .associationRequest, .reassociationRequest:
            guard let sta = h.addr2, let ap = h.addr1, !sta.isGroup, let i = station(sta) else { return }
            if let li = AssociationFields.listenInterval(body) { stations[i].listenInterval = li }
            associationRequest(i, ap: ap, body: body, reassociation: sub == .reassociationRequest, time: t)
        case .associationResponse, .reassociationResponse:
            guard let sta = h.addr1, let ap = h.addr2, !sta.isGroup, let r = AssociationFields.response(body), let i = station(sta) else { return }
            if r.status == 0 {
                if let aid = r.aid { (stations[i].aid, stations[i].aidBSSID) = (aid, ap) }
                stations[i].bssid = ap
                stations[i].associatedAt = t
            }
            let p = stations[i].pendingRoam
            if p >= 0, p < stations[i].roams.count, stations[i].roams[p].to == ap, stations[i].roams[p].status == nil {
                stations[i].roams[p].status = r.status
                if r.status == 0 {
                    stations[i].roams[p].gapNs = t - stations[i].roams[p].startedAt
                    stations[i].roams[p].answeredAt = t
                } else {
                    stations[i].pendingRoam = -1
                }
            }
        case .authentication:
            guard let alg = body.u16le(at: 0), let a1 = h.addr1, let a2 = h.addr2, let a3 = h.addr3, a2 != a3, !a2.isGroup else { return }
            guard let i = station(a2) else { return }
            stations[i].authAlgorithms.add(alg)
            if body.u16le(at: 2) == 1 {
                stations[i].authAlgorithm = alg
                stations[i].authTo = a1
                stations[i].authTime = t
            }
        case .deauthentication, .disassociation:
            let reason = h.protected ? nil : body.u16le(at: 0)
            guard h.protected || reason != nil, let a1 = h.addr1, let a2 = h.addr2, let b = h.addr3 else { return }
            let byAP = a2 == b
            let (sta, ap) = byAP ? (a1, a2) : (a2, a1)
            let disassociation = sub == .disassociation
            func count(_ s: inout Steering) {
                if disassociation {
                    s.disassocByReason.add(reason)
                    if byAP { s.counts.disassocFromAp += 1 } else { s.counts.disassocFromStations += 1 }
                } else {
                    s.deauthByReason.add(reason)
                    if byAP { s.counts.deauthFromAp += 1 } else { s.counts.deauthFromStations += 1 }
                }
            }
            if !ap.isGroup, let bi = bsses.slot(ap, make: { BSS() }) { apSteering(bi, at: t, count) }
            guard !sta.isGroup, let i = station(sta) else { return }
            count(&stations[i].steering)
            stations[i].leave = Leave(time: t, disassociation: disassociation, byAP: byAP, reason: reason, bssid: ap)
            stations[i].bssid = nil
            // Gone from the BSS it dozed on: the doze ends here, not at the station's next frame,
            // perhaps minutes later elsewhere. (A doze this very frame began, the station's own
            // deauthentication sent with PM set, was none.)
            if stations[i].dozing, stations[i].dozeStart == t, !byAP {
                stations[i].dozing = false
            } else if stations[i].dozing, stations[i].dozeBSSID == ap {
                endDoze(i, at: t, wake: .other)
            }
        case .action:
            guard h.protected || body.count >= 2, let a1 = h.addr1, let a2 = h.addr2, let b = h.addr3 else { return }
            let byAP = a2 == b
            let (sta, ap) = byAP ? (a1, a2) : (a2, a1)
            var s = Steering()
            // Robust action frames (BTM, SA Query, FT among them) with their category encrypted.
            switch h.protected ? nil : (body[0], body[1]) {
            case nil: s.counts.protectedActions = 1
            case (10, 6)?: s.counts.btmQueries = 1
            case (10, 7)?:
                s.counts.btmRequests = 1
                if let mode = body.u8(at: 3), mode & 0x04 != 0 { s.counts.btmDisassociationImminent = 1 }
                s.counts.btmCandidates = BTMRequest.parse(body)?.candidates ?? 0
            case (10, 8)?:
                s.counts.btmResponses = 1
                if let status = body.u8(at: 3) { s.btmResponsesByStatus.add(status) }
            case (8, 0)?: s.counts.saQueryRequests = 1
            case (8, 1)?: s.counts.saQueryResponses = 1
            case (6, 1)?:
                // FT Request over the DS: station address 6, target AP address 6.
                guard !byAP, let i = station(sta), let target = body.mac(at: 8) else { return }
                stations[i].ftActionTarget = target
                stations[i].ftActionTime = t
                return
            default: return
            }
            if !ap.isGroup, let bi = bsses.slot(ap, make: { BSS() }) { apSteering(bi, at: t) { $0.merge(s) } }
            if !sta.isGroup, let i = station(sta) { stations[i].steering.merge(s) }
        default:
            break
        }
    }

    /// Counts a steering frame for an AP, in all and in its hour.
    mutating func apSteering(_ bi: Int, at t: Int64, _ change: (inout Steering) -> Void) {
        change(&bsses[bi].steering)
        let hour = t >= 0 ? t / 3_600_000_000_000 : (t + 1) / 3_600_000_000_000 - 1
        if bsses[bi].hours[hour] != nil || bsses[bi].hours.count < options.hoursPerBSS {
            change(&bsses[bi].hours[hour, default: Steering()])
        } else {
            bsses[bi].hoursDropped += 1
        }
    }

    mutating func station(_ mac: MACAddress) -> Int? {
        guard !mac.isGroup else { return nil }
        guard let i = stations.slot(mac, make: { Station() }) else {
            untrackedStations += 1
            return nil
        }
        return i
    }

    /// A (re)association request: a roam when the station comes from another BSS (the request's
    /// current AP, the BSS it was in, or the one it left within the roam window), labelled by how
    /// it authenticates to the new one.
    mutating func associationRequest(_ i: Int, ap: MACAddress, body: UnsafeRawBufferPointer, reassociation: Bool, time t: Int64) {
        let st = stations[i]
        let p = st.pendingRoam
        if p >= 0, p < st.roams.count, st.roams[p].to == ap, st.roams[p].status == nil { return }  // a retransmission
        let current = reassociation ? body.mac(at: 4).flatMap { $0.rawValue == 0 ? nil : $0 } : nil
        let left = st.leave.flatMap { t - $0.time <= options.roamWindowNs ? $0 : nil }
        guard let from = current ?? st.bssid ?? left?.bssid, from != ap else {
            stations[i].pendingRoam = -1
            return
        }
        let e = AssociationFields.requestElements(body, reassociation: reassociation).map(ElementSummary.parse)
        let recentAuth = st.authTo == ap && t - st.authTime <= options.roamWindowNs
        let type: RoamType
        var start = t
        if recentAuth, AuthenticationAlgorithm.fastTransition.matches(st.authAlgorithm) {
            type = .ftOverTheAir
            start = st.authTime
        } else if e?.fastTransitionElement == true || (st.ftActionTarget == ap && t - st.ftActionTime <= options.roamWindowNs) {
            type = .ftOverTheDS
            if st.ftActionTarget == ap { start = st.ftActionTime }
        } else if recentAuth, AuthenticationAlgorithm.sae.matches(st.authAlgorithm) {
            type = .sae
            start = st.authTime
        } else if (e?.rsnPMKIDCount ?? 0) > 0 {
            type = .pmksaCaching
            if recentAuth { start = st.authTime }
        } else {
            type = .open
            if recentAuth { start = st.authTime }
        }
        if let l = left, l.bssid == from, st.bssid == nil { start = min(start, l.time) }
        guard st.roams.count < options.roamsPerStation else {
            stations[i].roamsDropped += 1
            stations[i].pendingRoam = -1
            return
        }
        stations[i].pendingRoam = st.roams.count
        stations[i].roams.append(Roam(time: t, from: from, to: ap, type: type, startedAt: start))
    }

    // MARK: - Several files

    /// Adds another file's stations and BSSs (the total of several files). State in flight (a
    /// doze, a roam awaiting its response) is not carried across files; where a station is (its
    /// BSS, or the one it left and how) is the later file's.
    public mutating func merge(_ o: StationAnalysis) {
        untrackedStations += o.untrackedStations
        untrackedTIMs += o.untrackedTIMs
        for k in 0..<o.stations.count {
            let x = o.stations[k]
            guard let j = stations.slot(o.stations.keys[k], make: { Station() }) else {
                untrackedStations += 1
                continue
            }
            var s = stations[j]
            // The later file's view of where it is: its BSS, or none once it left (and how it left:
            // a silence after it names the deauthentication; merging dropped it). Its news is its
            // own last frame, its leaving, or its AP's answer to its association.
            if max(x.lastFrame, x.leave?.time ?? .min, x.associatedAt) >= max(s.lastFrame, s.leave?.time ?? .min, s.associatedAt) {
                if x.bssid != nil || x.leave != nil { s.bssid = x.bssid }
                s.leave = x.leave ?? s.leave
            }
            // The AID of the later association, whichever file was given first.
            if x.aid != nil, x.associatedAt >= s.associatedAt { (s.aid, s.aidBSSID) = (x.aid, x.aidBSSID) }
            s.associatedAt = max(s.associatedAt, x.associatedAt)
            s.frames += x.frames
            s.retries += x.retries
            s.powerSaveFrames += x.powerSaveFrames
            s.listenInterval = x.listenInterval ?? s.listenInterval
            s.dozes += x.dozes
            s.dozeTotalNs = s.dozeTotalNs.addingSaturated(x.dozeTotalNs)
            s.dozeLongestNs = max(s.dozeLongestNs, x.dozeLongestNs)
            s.wokeByPSPoll += x.wokeByPSPoll
            s.wokeByPMClear += x.wokeByPMClear
            s.wokeByTrigger += x.wokeByTrigger
            s.wokeByOther += x.wokeByOther
            s.framesWhileDozing += x.framesWhileDozing
            s.dozesBuffered += x.dozesBuffered
            s.dozesNotBuffered += x.dozesNotBuffered
            s.dozesTIMUnknown += x.dozesTIMUnknown
            let room = max(0, options.silencesPerStation - s.silences.count)
            s.silences += x.silences.prefix(room)
            s.silencesDropped += x.silencesDropped + max(0, x.silences.count - room)
            let roamRoom = max(0, options.roamsPerStation - s.roams.count)
            s.roams += x.roams.prefix(roamRoom)
            s.roamsDropped += x.roamsDropped + max(0, x.roams.count - roamRoom)
            s.pendingRoam = -1
            s.steering.merge(x.steering)
            s.authAlgorithms.merge(x.authAlgorithms)
            if x.lastFrame > s.lastFrame {
                s.lastFrame = x.lastFrame
                s.lastFramePM = x.lastFramePM
                s.dozing = x.dozing
                s.dozeStart = x.dozeStart
                s.dozeBSSID = x.dozeBSSID
            }
            stations[j] = s
            // A doze the earlier file ended in, on the BSS the later file has it leave: over at
            // the leaving, as one file would have it.
            if s.dozing, let l = s.leave, l.time >= s.dozeStart, s.dozeBSSID == l.bssid, l.time > s.lastFrame {
                endDoze(j, at: l.time, wake: .other)
            }
        }
        for k in 0..<o.bsses.count {
            let x = o.bsses[k]
            guard let j = bsses.slot(o.bsses.keys[k], make: { BSS() }) else { continue }
            bsses[j].beaconInterval = x.beaconInterval ?? bsses[j].beaconInterval
            bsses[j].dtimPeriod = x.dtimPeriod ?? bsses[j].dtimPeriod
            bsses[j].steering.merge(x.steering)
            for (hour, h) in x.hours {
                if bsses[j].hours[hour] != nil || bsses[j].hours.count < options.hoursPerBSS {
                    bsses[j].hours[hour, default: Steering()].merge(h)
                } else {
                    bsses[j].hoursDropped += 1
                }
            }
            bsses[j].hoursDropped += x.hoursDropped
        }
    }
}
