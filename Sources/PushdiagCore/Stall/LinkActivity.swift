/// Something this machine's link did over a span of time (an instant when `startNs == endNs`),
/// from nl80211's events and rtnetlink's changes: what a bad heartbeat is joined with.
public struct LinkActivity: Sendable, Equatable {
    public var startNs: Int64
    public var endNs: Int64
    public var cause: StallCause
    /// In words: what the kernel said (a BSSID, a frequency, a reason code, the scan's length).
    public var detail: String
    /// A scan pushdiag itself asked for (`walk --scan-every`).
    public var requestedHere = false

    public init(startNs: Int64, endNs: Int64, cause: StallCause, detail: String, requestedHere: Bool = false) {
        self.startNs = startNs
        self.endNs = max(startNs, endNs)
        self.cause = cause
        self.detail = detail
        self.requestedHere = requestedHere
    }

    /// Whether a heartbeat in flight over [`from`, `to`) overlapped this: spans are half-open,
    /// so a heartbeat answered exactly when a scan starts, or sent exactly when it ended, did not;
    /// an instant counts when it falls within [`from`, `to`).
    public func overlaps(from: Int64, to: Int64) -> Bool {
        startNs == endNs ? startNs >= from && startNs < to : startNs < to && endNs > from
    }
}

/// A scan that completed on the interface: when its results came and the channels it covered
/// (empty when the event did not say).
public struct CompletedScan: Sendable, Equatable {
    public var timeNs: Int64
    public var frequenciesMhz: [Int]

    public init(timeNs: Int64, frequenciesMhz: [Int]) {
        self.timeNs = timeNs
        self.frequenciesMhz = frequenciesMhz
    }
}

/// Builds the link's activities from the events of one interface as they come, live or replayed
/// alike: nl80211's events (the one mapping from `NL80211.Event`, here) and rtnetlink's carrier
/// and address changes. Spans are paired: TRIGGER_SCAN with NEW_SCAN_RESULTS or SCAN_ABORTED,
/// CH_SWITCH_STARTED_NOTIFY with CH_SWITCH_NOTIFY, DISCONNECT with the next CONNECT or ROAM,
/// carrier down with carrier up.
public struct LinkActivityLog: Sendable {
    public let ifindex: UInt32
    public private(set) var activities: [LinkActivity] = []
    /// TRIGGER_SCAN events seen on the interface (whoever asked).
    public private(set) var scansStarted = 0
    /// Scans pushdiag asked for.
    public private(set) var scansRequested = 0
    var scanStart: (timeNs: Int64, ours: Bool)?
    var switchStart: (timeNs: Int64, beacons: UInt32?)?
    var disconnected: (timeNs: Int64, detail: String)?
    var carrierDown: Int64?
    /// Every scan whose results came (NEW_SCAN_RESULTS), with the channels it covered: where a
    /// scan looked, whether it heard anything there or not (the iPhone lens's evidence).
    public private(set) var completedScans: [CompletedScan] = []
    /// The times at which pushdiag itself asked for a scan (`walk --scan-every`).
    var ownRequests: [Int64] = []

    /// A scan with no end seen is taken to last this long at most: a full scan of 2.4 and 5 GHz
    /// (passive on DFS channels, about 110 ms each) stays well under it.
    public static let unfinishedScanNs: Int64 = 10_000_000_000

    public init(ifindex: UInt32) { self.ifindex = ifindex }

    /// pushdiag asked the kernel for a scan at `timeNs` (the next TRIGGER_SCAN is its own).
    public mutating func requestedScan(at timeNs: Int64) {
        ownRequests.append(timeNs)
        scansRequested += 1
    }

    /// One nl80211 event at `timeNs` (events of other interfaces are ignored).
    public mutating func add(_ e: NL80211.Event, at timeNs: Int64) {
        switch e {
        case .other(let cmd, let i) where i == ifindex:
            switch NL80211.Command(rawValue: cmd) {
            case .triggerScan?:
                scansStarted += 1
                endScan(at: timeNs, how: "no end seen before the next")
                let ours = ownRequests.contains { $0 <= timeNs && timeNs - $0 < 1_000_000_000 }
                ownRequests.removeAll { $0 <= timeNs }
                scanStart = (timeNs, ours)
            case .scanAborted?: endScan(at: timeNs, how: "aborted")
            default: break
            }
        case .newScanResults(let i, let frequencies) where i == ifindex:
            endScan(at: timeNs, how: nil)
            completedScans.append(CompletedScan(timeNs: timeNs, frequenciesMhz: frequencies.map(Int.init)))
        case .channelSwitch(let i, let freq, let started, let beacons) where i == ifindex:
            let to = freq.map { "to \($0) MHz" } ?? "to an unnamed channel"
            if started {
                switchStart = (timeNs, beacons)
            } else {
                let from = switchStart?.timeNs ?? timeNs
                let announced = switchStart?.beacons.map { ", announced \($0) beacons ahead" } ?? ""
                activities.append(LinkActivity(startNs: from, endNs: timeNs, cause: .channelSwitch, detail: "the BSS switched \(to)\(announced)"))
                switchStart = nil
            }
        case .radar(let i, let freq, let event) where i == ifindex:
            let names = ["radar detected", "CAC finished", "CAC aborted", "non-occupancy period over", "pre-CAC expired", "CAC started"]
            let what = event.flatMap { Int(exactly: $0) }.flatMap { $0 < names.count ? names[$0] : nil } ?? "radar event \(event.map(String.init) ?? "?")"
            activities.append(LinkActivity(startNs: timeNs, endNs: timeNs, cause: .radar, detail: what + (freq.map { " on \($0) MHz" } ?? "")))
        case .disconnect(let i, let reason, let byAP) where i == ifindex:
            guard disconnected == nil else { return }
            disconnected = (timeNs, "disconnected \(byAP ? "by the AP" : "locally")" + (reason.map { ", reason \($0)" } ?? ""))
        case .connect(let i, let bssid, let status, _, _) where i == ifindex:
            guard status ?? 0 == 0 else { return }
            let to = bssid.map { "\($0)" } ?? "an unnamed BSS"
            if let d = disconnected {
                activities.append(LinkActivity(startNs: d.timeNs, endNs: timeNs, cause: .disconnect, detail: "\(d.detail); connected to \(to) again"))
                disconnected = nil
            } else {
                // A supplicant doing its own SME reports a roam as a CONNECT.
                activities.append(LinkActivity(startNs: timeNs, endNs: timeNs, cause: .roam, detail: "connected to \(to)"))
            }
        case .roam(let i, let bssid, let ft) where i == ifindex:
            let to = bssid.map { "\($0)" } ?? "an unnamed BSS"
            activities.append(LinkActivity(startNs: timeNs, endNs: timeNs, cause: .roam, detail: "roamed to \(to)\(ft == true ? " (802.11r)" : "")"))
        default: break
        }
    }

    /// One rtnetlink change of the interface.
    public mutating func add(_ c: WalkInterfaceChange) {
        switch c.change {
        case .carrierDown: if carrierDown == nil { carrierDown = c.timeNs }
        case .carrierUp:
            activities.append(LinkActivity(startNs: carrierDown ?? c.timeNs, endNs: c.timeNs, cause: .linkChange, detail: "carrier down, then up"))
            carrierDown = nil
        case .addressAdded, .addressRemoved, .interfaceRemoved:
            activities.append(LinkActivity(startNs: c.timeNs, endNs: c.timeNs, cause: .linkChange, detail: c.change.words + (c.address.map { " \($0)" } ?? "")))
        }
    }

    /// Forgets the activities that ended before `timeNs` (a resident process keeps a window).
    public mutating func forget(endedBefore timeNs: Int64) {
        activities.removeAll { $0.endNs < timeNs }
        completedScans.removeAll { $0.timeNs < timeNs }
    }

    /// The spans still open at `endNs` (the run's end) closed there, and every activity in time order.
    public func finished(at endNs: Int64) -> [LinkActivity] {
        var copy = self
        if let s = copy.scanStart {
            copy.activities.append(
                LinkActivity(
                    startNs: s.timeNs, endNs: min(endNs, s.timeNs + Self.unfinishedScanNs), cause: .ownScan,
                    detail: "\(s.ours ? "pushdiag's" : "a") scan with no end seen", requestedHere: s.ours))
        }
        if let d = copy.disconnected {
            copy.activities.append(LinkActivity(startNs: d.timeNs, endNs: max(endNs, d.timeNs), cause: .disconnect, detail: d.detail + "; not connected again"))
        }
        if let c = copy.carrierDown {
            copy.activities.append(LinkActivity(startNs: c, endNs: max(endNs, c), cause: .linkChange, detail: "carrier down"))
        }
        return copy.activities.sorted { ($0.startNs, $0.endNs) < ($1.startNs, $1.endNs) }
    }

    mutating func endScan(at timeNs: Int64, how: String?) {
        guard let s = scanStart else { return }
        let ms = NumberText.format(NumberText.rounded(Double(timeNs - s.timeNs) / 1e6, places: 1))
        let who = s.ours ? "pushdiag's scan (--scan-every)" : "a scan (the kernel does not say which process asked)"
        activities.append(
            LinkActivity(startNs: s.timeNs, endNs: timeNs, cause: .ownScan, detail: "\(who) of \(ms) ms" + (how.map { ", \($0)" } ?? ""), requestedHere: s.ours)
        )
        scanStart = nil
    }
}
