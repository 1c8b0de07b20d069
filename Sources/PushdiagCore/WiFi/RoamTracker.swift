/// Turns nl80211 connection events into what a field engineer wants from `pushdiag watch`:
/// connects, disconnects (by the AP or local, with reason) and roams with the time spent
/// without connectivity.
///
/// A roam is NL80211_CMD_ROAM (full-MAC drivers), or a disconnect followed within `window` by a
/// connect to another BSSID of the same SSID (mac80211 drivers, where wpa_supplicant roams by
/// disconnecting, authenticating and associating again). A connect to another SSID is reported
/// as a connect with `previous_ssid`.
public struct WatchEvent: Codable, Sendable, Equatable {
    public var time: String
    /// `connect`, `disconnect` or `roam`.
    public var event: String
    public var interface: String
    @Nullable public var ssid: String?
    @Nullable public var bssid: MACAddress?
    @Nullable public var fromBssid: MACAddress?
    @Nullable public var previousSsid: String?
    @Nullable public var reasonCode: Int?
    @Nullable public var statusCode: Int?
    @Nullable public var byAp: Bool?
    @Nullable public var gapMs: Double?
    /// A roam by 802.11r fast transition: from the authentication algorithm (FT, 2) when the
    /// kernel reports the authentication, else from a Fast BSS Transition element in the
    /// reassociation request; null when neither is known.
    @Nullable public var fastTransition: Bool?
    /// Nanoseconds since the epoch (not in the JSON).
    public var timeNs: Int64 { _timeNs }
    private var _timeNs: Int64 = 0

    enum CodingKeys: String, CodingKey {
        case time, event, interface, ssid, bssid, fromBssid, previousSsid, reasonCode, statusCode, byAp, gapMs, fastTransition
    }

    public init(
        timeNs: Int64, event: String, interface: String, ssid: String? = nil, bssid: MACAddress? = nil, fromBssid: MACAddress? = nil,
        previousSsid: String? = nil, reasonCode: Int? = nil, statusCode: Int? = nil, byAp: Bool? = nil, gapMs: Double? = nil,
        fastTransition: Bool? = nil
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
        self.gapMs = gapMs
        self.fastTransition = fastTransition
        _timeNs = timeNs
    }
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
}

public struct RoamTracker {
    public var windowNs: Int64
    /// Interface name, BSSID and SSID as last known, per ifindex.
    struct State {
        var bssid: MACAddress?
        var ssid: String?
        var disconnectedAt: Int64?
        var disconnectedFrom: MACAddress?
        var disconnectedSSID: String?
        /// The algorithm of the last authentication, and with whom.
        var authentication: (bssid: MACAddress?, algorithm: UInt16)?
    }

    var states: [UInt32: State] = [:]
    public private(set) var connects = 0
    public private(set) var disconnects = 0
    public private(set) var roams = 0
    public private(set) var longestGapNs: Int64?
    var gapSumNs: Int64 = 0
    var gapCount = 0
    public private(set) var first: Int64?
    public private(set) var last: Int64?

    public init(windowSeconds: Double = 10) { windowNs = Int64(windowSeconds * 1e9) }

    /// Feeds one nl80211 event. `name(ifindex)` and `ssid(ifindex, bssid)` look up what the
    /// event does not carry (from GET_INTERFACE / the scan cache, live or recorded).
    public mutating func handle(_ e: NL80211.Event, time: Int64, name: (UInt32) -> String, ssid: (UInt32, MACAddress?) -> String?) -> [WatchEvent] {
        if first == nil { first = time }
        last = time
        switch e {
        case .authenticate(let ifindex?, let bssid, let algorithm?):
            states[ifindex, default: State()].authentication = (bssid, algorithm)
            return []
        case .connect(let ifindex?, let bssid, let status, _, let ftElement):
            var st = states[ifindex] ?? State()
            let ft = Self.fastTransition(st.authentication, bssid: bssid, element: ftElement)
            guard status == 0 || status == nil else {
                // A failed connection attempt: nothing changes, but say so.
                return [WatchEvent(timeNs: time, event: "connect", interface: name(ifindex), bssid: bssid, statusCode: status.map(Int.init))]
            }
            let newSSID = ssid(ifindex, bssid)
            defer {
                st.bssid = bssid
                st.ssid = newSSID ?? st.disconnectedSSID
                st.disconnectedAt = nil
                st.authentication = nil
                states[ifindex] = st
            }
            if let at = st.disconnectedAt, time - at <= windowNs, let from = st.disconnectedFrom, from != bssid,
                newSSID == st.disconnectedSSID || newSSID == nil || st.disconnectedSSID == nil
            {
                let gap = time - at
                noteRoam(gap)
                return [
                    WatchEvent(
                        timeNs: time, event: "roam", interface: name(ifindex), ssid: newSSID ?? st.disconnectedSSID, bssid: bssid, fromBssid: from,
                        statusCode: 0, gapMs: Double(gap) / 1e6, fastTransition: ft)
                ]
            }
            connects += 1
            let previous = st.disconnectedSSID.flatMap { $0 != newSSID ? $0 : nil }
            return [
                WatchEvent(
                    timeNs: time, event: "connect", interface: name(ifindex), ssid: newSSID, bssid: bssid, previousSsid: previous, statusCode: 0,
                    gapMs: st.disconnectedAt.map { Double(time - $0) / 1e6 }, fastTransition: ft)
            ]
        case .roam(let ifindex?, let bssid, let ftElement):
            var st = states[ifindex] ?? State()
            let from = st.bssid
            let ft = Self.fastTransition(st.authentication, bssid: bssid, element: ftElement)
            st.authentication = nil
            let newSSID = ssid(ifindex, bssid)
            st.bssid = bssid
            st.ssid = newSSID ?? st.ssid
            states[ifindex] = st
            noteRoam(0)
            return [
                WatchEvent(timeNs: time, event: "roam", interface: name(ifindex), ssid: st.ssid, bssid: bssid, fromBssid: from, gapMs: 0, fastTransition: ft)
            ]
        case .disconnect(let ifindex?, let reason, let byAP):
            var st = states[ifindex] ?? State()
            disconnects += 1
            let ev = WatchEvent(
                timeNs: time, event: "disconnect", interface: name(ifindex), ssid: st.ssid, bssid: st.bssid,
                reasonCode: reason.map(Int.init), byAp: byAP)
            st.disconnectedAt = time
            st.disconnectedFrom = st.bssid
            st.disconnectedSSID = st.ssid
            st.bssid = nil
            states[ifindex] = st
            return [ev]
        default:
            return []
        }
    }

    /// 802.11r or not: the authentication with the new AP says it (algorithm 2 is FT); without
    /// one (full-MAC drivers), the request's elements do; nil when neither is known.
    static func fastTransition(_ auth: (bssid: MACAddress?, algorithm: UInt16)?, bssid: MACAddress?, element: Bool?) -> Bool? {
        if let auth, auth.bssid == nil || auth.bssid == bssid { return auth.algorithm == 2 }
        return element
    }

    /// What is known before any event (the interface is already connected when watching starts).
    public mutating func seed(ifindex: UInt32, bssid: MACAddress?, ssid: String?) {
        states[ifindex] = State(bssid: bssid, ssid: ssid)
    }

    mutating func noteRoam(_ gap: Int64) {
        roams += 1
        longestGapNs = max(longestGapNs ?? 0, gap)
        gapSumNs += gap
        gapCount += 1
    }

    public func summary(start: Int64, end: Int64) -> WatchSummary {
        let duration = max(Double(end - start) / 1e9, 0)
        return WatchSummary(
            event: "summary", durationSeconds: NumberText.rounded(duration, places: 1000), connects: connects, disconnects: disconnects, roams: roams,
            roamsPerHour: duration > 0 ? NumberText.rounded(Double(roams) * 3600 / duration) : 0,
            longestGapMs: longestGapNs.map { NumberText.rounded(Double($0) / 1e6, places: 1000) },
            meanGapMs: gapCount > 0 ? NumberText.rounded(Double(gapSumNs) / Double(gapCount) / 1e6, places: 1000) : nil)
    }
}
