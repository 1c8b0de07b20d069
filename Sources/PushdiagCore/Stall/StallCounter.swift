/// Stalls one heartbeat at a time, for a process that runs for days (the exporter): the p95 of
/// the last `window` answered heartbeats stands for the run's, the link's activities are kept for
/// `keepNs`, and each heartbeat is judged when it has ended, by the rules of
/// `StallAnalysis.explain` (the same margin, spans and order of causes).
public struct StallCounter: Sendable {
    /// Answered round trips the p95 is taken over.
    public static let window = 1000
    /// Activities older than this (by their end) are forgotten: longer than any heartbeat's timeout.
    public static let keepNs: Int64 = 600_000_000_000
    var rtts: [Double] = []
    var next = 0
    var logs: [UInt32: LinkActivityLog] = [:]
    public let marginMs: Double

    public init(marginMs: Double = ThresholdRow.stallMargin.warning) { self.marginMs = marginMs }

    /// One nl80211 event of the interface `ifindex` (a watcher follows one each). What ended
    /// `keepNs` before it is forgotten here too: an exporter that follows an interface and holds
    /// no session judges nothing, and kept every scan it saw.
    public mutating func add(_ e: NL80211.Event, at timeNs: Int64, ifindex: UInt32) {
        logs[ifindex, default: LinkActivityLog(ifindex: ifindex)].add(e, at: timeNs)
        logs[ifindex]?.forget(endedBefore: timeNs - Self.keepNs)
    }

    /// One rtnetlink change (carrier, address) of the interface `ifindex`.
    public mutating func add(_ c: WalkInterfaceChange, ifindex: UInt32) {
        logs[ifindex, default: LinkActivityLog(ifindex: ifindex)].add(c)
        logs[ifindex]?.forget(endedBefore: c.timeNs - Self.keepNs)
    }

    /// The scans of `ifindex` whose results came, at most `keepNs` old by the last event.
    public func completedScans(ifindex: UInt32) -> [CompletedScan] { logs[ifindex]?.completedScans ?? [] }

    /// The cause of a heartbeat sent at `sentNs` that has just ended (answered after `rttMs`, or
    /// lost after `timeoutMs`) when it is a stall; nil when it is not.
    public mutating func judge(sentNs: Int64, rttMs: Double?, timeoutMs: Double, nowNs: Int64) -> StallCause? {
        if let r = rttMs {
            if rtts.count < Self.window { rtts.append(r) } else { rtts[next] = r }
            next = (next + 1) % Self.window
            guard StallAnalysis.stalled(rttMs: r, p95: RTTSummary.of(rtts)?.p95, marginMs: marginMs) else { return nil }
        }
        for k in Array(logs.keys) { logs[k]?.forget(endedBefore: nowNs - Self.keepNs) }
        let activities = logs.keys.sorted().flatMap { logs[$0]!.finished(at: nowNs) }
        let end = StallAnalysis.endNs(sentNs: sentNs, rttMs: rttMs, timeoutMs: timeoutMs)
        return StallAnalysis.winner(from: sentNs, to: end, in: activities).map { activities[$0].cause } ?? .noneSeen
    }
}
