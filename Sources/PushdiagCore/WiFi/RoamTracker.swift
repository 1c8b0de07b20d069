/// Turns nl80211 connection events into what a field engineer wants from `pushdiag watch`:
/// connects, disconnects (by the AP or local, with reason) and roams with the time spent
/// without connectivity.
///
/// A roam is NL80211_CMD_ROAM (full-MAC drivers), or a disconnect followed within `window` by a
/// connect to another BSSID of the same SSID (mac80211 drivers, where wpa_supplicant roams by
/// disconnecting, authenticating and associating again). A connect to another SSID is reported
/// as a connect with `previous_ssid`.
public struct WatchEvent: Codable, Sendable, Equatable {
    /// What happened: the JSON's `event`.
    public enum Kind: String, Codable, Sendable {
        case connect, disconnect, roam
    }

    public var time: String
    public var event: Kind
    public var interface: String
    @Nullable public var ssid: String?
    @Nullable public var bssid: MACAddress?
    @Nullable public var fromBssid: MACAddress?
    @Nullable public var previousSsid: String?
    @Nullable public var reasonCode: Int?
    @Nullable public var statusCode: Int?
    @Nullable public var byAp: Bool?
    @Nullable public var gapMs: Double?
    /// A roam completed by 802.11r fast transition: from the authentication algorithm (FT, 2)
    /// when the kernel reports the authentication, else from a Fast BSS Transition element in the
    /// reassociation request; null when neither is known. False for a fast transition that
    /// failed and fell back (see `fastTransitionFailure`).
    @Nullable public var fastTransition: Bool?
    /// The move began as a fast transition (an FT authentication or reassociation), whether or
    /// not it completed; null when not known.
    @Nullable public var fastTransitionAttempt: Bool?
    /// Why a fast transition did not complete, and what followed; null when none failed.
    @Nullable public var fastTransitionFailure: FastTransitionFailure?
    /// Nanoseconds since the epoch (not in the JSON).
    public var timeNs: Int64 { _timeNs }
    private var _timeNs: Int64 = 0

    enum CodingKeys: String, CodingKey {
        case time, event, interface, ssid, bssid, fromBssid, previousSsid, reasonCode, statusCode, byAp, gapMs, fastTransition
        case fastTransitionAttempt, fastTransitionFailure
    }

    public init(
        timeNs: Int64, event: Kind, interface: String, ssid: String? = nil, bssid: MACAddress? = nil, fromBssid: MACAddress? = nil,
        previousSsid: String? = nil, reasonCode: Int? = nil, statusCode: Int? = nil, byAp: Bool? = nil, gapMs: Double? = nil,
        fastTransition: Bool? = nil, fastTransitionAttempt: Bool? = nil, fastTransitionFailure: FastTransitionFailure? = nil
    ) {
        time = Timestamp.rfc3339(nanoseconds: timeNs)
        self.event = event
        self.interface = interface
        self.ssid = ssid
        self.bssid = bssid
        self.fromBssid = fromBssid
        self.previousSsid = previousSsid
        self.reasonCode = reasonCode
        self.statusCode = statusCode
        self.byAp = byAp
        // To the microsecond, as the summary's longest and mean and the walk's report keep gaps.
        // A gap that ends before it starts (a recording whose times went back) measured nothing.
        self.gapMs = gapMs.flatMap { $0 >= 0 ? Kept.ms($0) : nil }
        self.fastTransition = fastTransition
        self.fastTransitionAttempt = fastTransitionAttempt
        self.fastTransitionFailure = fastTransitionFailure
        _timeNs = timeNs
    }
}

/// A fast transition (802.11r) that did not complete: the stage it failed at, the code the AP
/// or the station gave, and what the station did instead.
public struct FastTransitionFailure: Codable, Sendable, Equatable {
    public enum Stage: String, Codable, Sendable, CaseIterable {
        /// The target AP refused the FT authentication (`status_code`).
        case authentication
        /// The target AP refused the reassociation (`status_code`).
        case reassociation
        /// Reassociated, but the keys never held: the link was dropped (`reason_code`, `by_ap`)
        /// before the port was usable.
        case keys
    }

    /// How the station joined after it (IEEE 802.11 authentication algorithm numbers).
    public enum Fallback: String, Codable, Sendable {
        case open, sharedKey = "shared_key", fastTransition = "fast_transition", sae, fils

        public init?(algorithm: UInt16) {
            switch AuthenticationAlgorithm(rawValue: algorithm) {
            case .open: self = .open
            case .sharedKey: self = .sharedKey
            case .fastTransition: self = .fastTransition
            case .sae: self = .sae
            case .fils, .filsPFS, .filsPublicKey: self = .fils
            case .pasn, nil: return nil
            }
        }
    }

    public var stage: Stage
    /// The AP the fast transition went to: the one that refused it, or whose keys never held
    /// (the move's `bssid` is where the station joined afterwards, which may be another).
    @Nullable public var targetBssid: MACAddress? = nil
    @Nullable public var statusCode: Int? = nil
    @Nullable public var reasonCode: Int? = nil
    @Nullable public var byAp: Bool? = nil
    /// The authentication of the fresh association that followed; null when the kernel did not
    /// report one.
    @Nullable public var fallback: Fallback? = nil
}

public struct WatchSummary: Codable, Sendable, Equatable {
    /// Always "summary", so a JSON Lines reader tells it from the events.
    public var event = "summary"
    public var durationSeconds: Double
    public var connects: Int
    public var disconnects: Int
    public var roams: Int
    public var roamsPerHour: Double
    @Nullable public var longestGapMs: Double?
    @Nullable public var meanGapMs: Double?
    /// Failed 802.11r fast transitions reported (on a roam, or on the connect that ended a
    /// longer outage), as the exporter counts them.
    public var fastTransitionFailures: Int
}

public struct RoamTracker {
    public var windowNs: Int64
    /// A fast transition that reassociated without a disconnect is held this long (at most the
    /// window) before it is reported: a drop within it means its keys never held, and the move
    /// is reported once, as a failed fast transition, when the station has joined again.
    public var settleNs: Int64
    /// Interface name, BSSID and SSID as last known, per ifindex.
    struct State {
        var bssid: MACAddress?
        var ssid: String?
        var disconnectedAt: Int64?
        var disconnectedFrom: MACAddress?
        var disconnectedSSID: String?
        /// The algorithm of the last authentication, and with whom.
        var authentication: (bssid: MACAddress?, algorithm: UInt16)?
        /// A fast transition under way, or reassociated and held until it settles.
        var attempt: Attempt?
    }

    /// A move that began as a fast transition: where from (what the station had before it
    /// began), when it left, and what went wrong so far.
    struct Attempt {
        var startNs: Int64
        var fromBssid: MACAddress?
        var fromSSID: String?
        /// When the reassociation completed, and with whom (a held move).
        var reassociatedNs: Int64?
        var toBssid: MACAddress?
        var failure: FastTransitionFailure?
    }

    var states: [UInt32: State] = [:]
    public private(set) var connects = 0
    public private(set) var disconnects = 0
    public private(set) var roams = 0
    public private(set) var fastTransitionFailures = 0
    public private(set) var longestGapNs: Int64?
    var gapSumNs: Int64 = 0
    var gapCount = 0
    public private(set) var first: Int64?
    public private(set) var last: Int64?

    /// How long after a disconnect a connect elsewhere is a roam (`--roam-window`, the exporter).
    public static let defaultWindowSeconds: Double = 10

    public init(windowSeconds: Double = defaultWindowSeconds, settleSeconds: Double = 2) {
        windowNs = Int64(windowSeconds * 1e9)
        settleNs = min(windowNs, Int64(settleSeconds * 1e9))
    }

    /// Feeds one nl80211 event. `name(ifindex)` and `ssid(ifindex, bssid)` look up what the
    /// event does not carry (from GET_INTERFACE / the scan cache, live or recorded).
    public mutating func handle(_ e: NL80211.Event, time: Int64, name: (UInt32) -> String, ssid: (UInt32, MACAddress?) -> String?) -> [WatchEvent] {
        counted(events(for: e, time: time, name: name, ssid: ssid))
    }

    /// What watch reports is what it counts: the failed fast transitions among `out`.
    mutating func counted(_ out: [WatchEvent]) -> [WatchEvent] {
        fastTransitionFailures += out.count { $0.fastTransitionFailure != nil }
        return out
    }

    mutating func events(for e: NL80211.Event, time: Int64, name: (UInt32) -> String, ssid: (UInt32, MACAddress?) -> String?) -> [WatchEvent] {
        if first == nil { first = time }
        last = time
        var out = settled(now: time, name: name)  // counted with the rest, by handle
        switch e {
        case .authenticate(let ifindex?, let bssid, let algorithm?, let status, _):
            var st = states[ifindex] ?? State()
            if AuthenticationAlgorithm.fastTransition.matches(algorithm) {
                if st.attempt == nil || st.attempt?.reassociatedNs != nil && st.attempt?.failure == nil {
                    // Leaving the AP the station is on, or the one it just left to come here.
                    let recent = st.bssid == nil ? st.disconnectedAt.flatMap { time - $0 <= windowNs ? $0 : nil } : nil
                    st.attempt = Attempt(
                        startNs: recent ?? time, fromBssid: st.bssid ?? (recent != nil ? st.disconnectedFrom : nil),
                        fromSSID: st.bssid != nil ? st.ssid : st.disconnectedSSID)
                }
                if let status, status != 0, st.attempt?.failure == nil {
                    st.attempt?.failure = FastTransitionFailure(stage: .authentication, targetBssid: bssid, statusCode: Int(status))
                }
            }
            st.authentication = (bssid, algorithm)
            states[ifindex] = st
        case .connect(let ifindex?, let bssid, let status, _, let ftElement):
            var st = states[ifindex] ?? State()
            let ft = Self.fastTransition(st.authentication, bssid: bssid, element: ftElement)
            guard status == 0 || status == nil else {
                // A failed connection attempt: nothing changes, but say so (and a refused
                // reassociation is where a fast transition failed).
                if st.attempt != nil, st.attempt?.failure == nil, AuthenticationAlgorithm.fastTransition.matches(st.authentication?.algorithm) {
                    st.attempt?.failure = FastTransitionFailure(stage: .reassociation, targetBssid: bssid, statusCode: status.map(Int.init))
                    states[ifindex] = st
                }
                out.append(WatchEvent(timeNs: time, event: .connect, interface: name(ifindex), bssid: bssid, statusCode: status.map(Int.init)))
                return out
            }
            let newSSID = ssid(ifindex, bssid)
            defer {
                st.bssid = bssid
                st.ssid = newSSID ?? st.disconnectedSSID ?? st.ssid
                st.disconnectedAt = nil
                st.authentication = nil
                states[ifindex] = st
            }
            // The fresh association after a fast transition that failed. Not a fast transition,
            // even when the station joined by another one (back to the AP it left, whose keys it
            // holds): that is the fallback.
            var failed: FastTransitionFailure?
            if let a = st.attempt, var failure = a.failure, a.fromBssid != nil,
                newSSID == a.fromSSID || newSSID == nil || a.fromSSID == nil
            {
                failure.fallback = st.authentication.flatMap { auth in auth.bssid == nil || auth.bssid == bssid ? .init(algorithm: auth.algorithm) : nil }
                failed = failure
            }
            if let a = st.attempt, let failure = failed, time - a.startNs <= windowNs {
                // Within the window: one move, from the AP before the attempt.
                st.attempt = nil
                let gap = time - a.startNs
                noteRoam(gap)
                out.append(
                    WatchEvent(
                        timeNs: time, event: .roam, interface: name(ifindex), ssid: newSSID ?? a.fromSSID, bssid: bssid, fromBssid: a.fromBssid,
                        statusCode: 0, gapMs: Double(gap) / 1e6, fastTransition: false, fastTransitionAttempt: true, fastTransitionFailure: failure))
                return out
            }
            if ft == true, st.disconnectedAt == nil, let from = st.bssid, from != bssid {
                // A reassociation by fast transition without a disconnect: held until it settles.
                var a = st.attempt ?? Attempt(startNs: time, fromBssid: from, fromSSID: st.ssid)
                a.reassociatedNs = time
                a.toBssid = bssid
                st.attempt = a
                return out
            }
            // Past the window, a failed fast transition here is one kept because the outage began
            // with it (flush): not a roam, whose window runs from that disconnect too, but the
            // connect that ends the outage carries it.
            let attempted = st.attempt != nil || ft == true ? true : ft
            st.attempt = nil
            if let at = st.disconnectedAt, time - at <= windowNs, let from = st.disconnectedFrom, from != bssid,
                newSSID == st.disconnectedSSID || newSSID == nil || st.disconnectedSSID == nil
            {
                let gap = time - at
                noteRoam(gap)
                out.append(
                    WatchEvent(
                        timeNs: time, event: .roam, interface: name(ifindex), ssid: newSSID ?? st.disconnectedSSID, bssid: bssid, fromBssid: from,
                        statusCode: 0, gapMs: Double(gap) / 1e6, fastTransition: ft, fastTransitionAttempt: attempted))
                return out
            }
            connects += 1
            let previous = st.disconnectedSSID.flatMap { $0 != newSSID ? $0 : nil }
            out.append(
                WatchEvent(
                    timeNs: time, event: .connect, interface: name(ifindex), ssid: newSSID, bssid: bssid, previousSsid: previous, statusCode: 0,
                    gapMs: st.disconnectedAt.map { Double(time - $0) / 1e6 }, fastTransition: failed != nil ? false : ft,
                    fastTransitionAttempt: failed != nil ? true : nil, fastTransitionFailure: failed))
        case .roam(let ifindex?, let bssid, let ftElement):
            var st = states[ifindex] ?? State()
            let from = st.bssid
            let ft = Self.fastTransition(st.authentication, bssid: bssid, element: ftElement)
            st.authentication = nil
            st.attempt = nil
            let newSSID = ssid(ifindex, bssid)
            st.bssid = bssid
            st.ssid = newSSID ?? st.ssid
            states[ifindex] = st
            noteRoam(0)
            out.append(
                WatchEvent(
                    timeNs: time, event: .roam, interface: name(ifindex), ssid: st.ssid, bssid: bssid, fromBssid: from, gapMs: 0, fastTransition: ft,
                    fastTransitionAttempt: ft))
        case .disconnect(let ifindex?, let reason, let byAP):
            var st = states[ifindex] ?? State()
            disconnects += 1
            if let a = st.attempt, let r = a.reassociatedNs, a.failure == nil, time - r <= settleNs {
                // Reassociated, then dropped: the keys never held.
                st.attempt?.failure = FastTransitionFailure(stage: .keys, targetBssid: a.toBssid, reasonCode: reason.map(Int.init), byAp: byAP)
            }
            out.append(
                WatchEvent(
                    timeNs: time, event: .disconnect, interface: name(ifindex), ssid: st.ssid, bssid: st.bssid, reasonCode: reason.map(Int.init), byAp: byAP))
            // A second disconnect while already disconnected keeps the first: the gap runs from
            // the moment the link was lost, and the move from the BSS it was lost on.
            if st.bssid != nil || st.disconnectedAt == nil {
                st.disconnectedAt = time
                st.disconnectedFrom = st.bssid
                st.disconnectedSSID = st.ssid
            }
            st.bssid = nil
            states[ifindex] = st
        default:
            break
        }
        return out
    }

    /// The moves that have settled by `now`: a fast transition held past `settleNs` without a
    /// drop is a completed one; an attempt with no fresh association within the window is
    /// forgotten (its disconnect was reported) or, when it had reassociated, reported as the
    /// failed move it was; a refused one that began with the link down is kept for the connect
    /// that ends that outage. `now` = `Int64.max` at the end.
    public mutating func flush(now: Int64, name: (UInt32) -> String) -> [WatchEvent] { counted(settled(now: now, name: name)) }

    mutating func settled(now: Int64, name: (UInt32) -> String) -> [WatchEvent] {
        var out: [WatchEvent] = []
        for ifindex in states.keys.sorted() {
            guard let a = states[ifindex]?.attempt else { continue }
            // `now` may be Int64.max (the end): the times' distance from it saturates.
            if let r = a.reassociatedNs, a.failure == nil, now.subtractingSaturated(r) > settleNs {
                states[ifindex]?.attempt = nil
                noteRoam(r - a.startNs)
                out.append(
                    WatchEvent(
                        timeNs: r, event: .roam, interface: name(ifindex), ssid: states[ifindex]?.ssid ?? a.fromSSID, bssid: a.toBssid,
                        fromBssid: a.fromBssid, statusCode: 0, gapMs: Double(r - a.startNs) / 1e6, fastTransition: true, fastTransitionAttempt: true))
            } else if now.subtractingSaturated(a.startNs) > windowNs {
                // A refused attempt that began with the link down (it left the AP for it) waits
                // for the rejoin that ends that outage, however late; one made while the station
                // kept its AP does not become a later drop's.
                if a.reassociatedNs == nil, a.failure != nil, a.fromBssid != nil, let st = states[ifindex], st.bssid == nil,
                    let down = st.disconnectedAt, a.startNs >= down
                {
                    continue
                }
                states[ifindex]?.attempt = nil
                if let r = a.reassociatedNs, let failure = a.failure {
                    // Reassociated but failed: the link's gap is not known (the event says null).
                    noteRoam(nil)
                    out.append(
                        WatchEvent(
                            timeNs: r, event: .roam, interface: name(ifindex), ssid: a.fromSSID, bssid: a.toBssid, fromBssid: a.fromBssid, statusCode: 0,
                            gapMs: nil, fastTransition: false, fastTransitionAttempt: true, fastTransitionFailure: failure))
                }
            }
        }
        return out
    }

    /// 802.11r or not: the authentication with the new AP says it (algorithm 2 is FT); without
    /// one (full-MAC drivers), the request's elements do; nil when neither is known.
    static func fastTransition(_ auth: (bssid: MACAddress?, algorithm: UInt16)?, bssid: MACAddress?, element: Bool?) -> Bool? {
        if let auth, auth.bssid == nil || auth.bssid == bssid { return AuthenticationAlgorithm.fastTransition.matches(auth.algorithm) }
        return element
    }

    /// What is known before any event (the interface is already connected when watching starts).
    public mutating func seed(ifindex: UInt32, bssid: MACAddress?, ssid: String?) {
        states[ifindex] = State(bssid: bssid, ssid: ssid)
    }

    /// A roam, and its gap where one was measured (the summary's longest and mean gap are of
    /// the gaps the events report, nothing else: not one that ends before it starts, which a
    /// recording whose times go back gives).
    mutating func noteRoam(_ gap: Int64?) {
        roams += 1
        guard let gap, gap >= 0 else { return }
        longestGapNs = max(longestGapNs ?? 0, gap)
        gapSumNs = gapSumNs.addingSaturated(gap)
        gapCount += 1
    }

    public func summary(start: Int64, end: Int64) -> WatchSummary {
        let duration = max(Double(end - start) / 1e9, 0)
        return WatchSummary(
            event: "summary", durationSeconds: Kept.seconds(duration), connects: connects, disconnects: disconnects, roams: roams,
            roamsPerHour: duration > 0 ? NumberText.rounded(Double(roams) * 3600 / duration) : 0,
            longestGapMs: longestGapNs.map { Kept.ms(ns: $0) },
            meanGapMs: gapCount > 0 ? Kept.ms(Double(gapSumNs) / Double(gapCount) / 1e6) : nil,
            fastTransitionFailures: fastTransitionFailures)
    }
}
