/// Joins bad heartbeats with what the link did while they were in flight, and finds stalls that
/// repeat. Pure: the heartbeats and the link's activities in, the report out.
public enum StallAnalysis {
    /// A heartbeat: when it was sent and its round trip (nil: lost after the timeout).
    public struct Heartbeat: Sendable, Equatable {
        public var sentNs: Int64
        public var rttMs: Double?
        public init(sentNs: Int64, rttMs: Double?) {
            self.sentNs = sentNs
            self.rttMs = rttMs
        }
    }

    /// Stalls of a cause repeat when at least this many come back one period apart.
    public static let minimumRepeats = 3
    /// How far a gap may stray from the period and still count: 5% of it, at least 1 s (a
    /// supplicant's scan timer fires on whole seconds, and a heartbeat only shows a stall at its
    /// own interval).
    public static func tolerance(periodNs: Int64) -> Int64 { max(1_000_000_000, periodNs / 20) }

    /// The stalls of a run: lost heartbeats (in flight over their `timeoutMs`) and those slower
    /// than the run's p95 by more than `marginMs`, each with the first cause of
    /// `StallCause.allCases` among the activities that overlapped it.
    public static func explain(
        heartbeats: [Heartbeat], timeoutMs: Double, activities: [LinkActivity], scansSeen: Int, scansRequested: Int = 0,
        marginMs: Double = ThresholdRow.stallMargin.warning
    ) -> StallReport {
        let p95 = RTTSummary.of(heartbeats.compactMap(\.rttMs))?.p95
        var stalls: [Stall] = []
        // Each stall's time and the activity (or run of heartbeats) it belongs to, for repeats.
        var occurrences: [StallCause: [(key: Int, timeNs: Int64)]] = [:]
        var fromRequested = 0
        var previousBad = false
        var run = 0
        for (n, h) in heartbeats.enumerated() {
            let bad = stalled(rttMs: h.rttMs, p95: p95, marginMs: marginMs)
            defer { previousBad = bad }
            guard bad else { continue }
            let end = endNs(sentNs: h.sentNs, rttMs: h.rttMs, timeoutMs: timeoutMs)
            let best = winner(from: h.sentNs, to: end, in: activities)
            let cause = best.map { activities[$0].cause } ?? .noneSeen
            if let best, activities[best].requestedHere { fromRequested += 1 }
            stalls.append(
                Stall(
                    time: Timestamp.rfc3339(nanoseconds: h.sentNs), rttMs: h.rttMs.map(Kept.ms), lost: h.rttMs == nil,
                    cause: cause, detail: best.map { activities[$0].detail }))
            if best == nil && !previousBad { run = n }
            // An activity is one occurrence however many heartbeats it spoiled; so is a run of
            // bad heartbeats nothing explains.
            let key = best ?? -1 - run
            if occurrences[cause]?.last?.key != key { occurrences[cause, default: []].append((key, best.map { activities[$0].startNs } ?? h.sentNs)) }
        }
        let periodic = StallCause.allCases.compactMap { c in occurrences[c].flatMap { repeating(c, $0.map(\.timeNs)) } }
        let counts = StallCause.allCases.map { c in StallCauseCount(cause: c, count: stalls.filter { $0.cause == c }.count) }
        let own = stalls.filter { $0.cause.isOwn }.count
        return StallReport(
            stalls: stalls,
            summary: StallSummary(
                heartbeats: heartbeats.count, bad: stalls.count, lost: stalls.filter(\.lost).count, p95Ms: p95, marginMs: marginMs,
                slowerThanMs: p95.map { Kept.ms($0 + marginMs) }, byCause: counts, periodic: periodic,
                ownShare: stalls.isEmpty ? nil : Kept.ratio(Double(own) / Double(stalls.count)), scansSeen: scansSeen,
                scansRequested: scansRequested, fromRequestedScans: fromRequested))
    }

    /// The rule, live (`StallCounter`, over its window) and after the fact (over the whole run):
    /// a heartbeat stalled when it was lost, or answered slower than the round trips' p95 by
    /// more than the margin (none while there is no p95).
    public static func stalled(rttMs: Double?, p95: Double?, marginMs: Double) -> Bool {
        rttMs.map { r in p95.map { r > $0 + marginMs } ?? false } ?? true
    }

    /// When a heartbeat sent at `sentNs` ended: its answer, else its timeout.
    public static func endNs(sentNs: Int64, rttMs: Double?, timeoutMs: Double) -> Int64 { sentNs + Int64((rttMs ?? timeoutMs) * 1e6) }

    /// The activity that explains a heartbeat in flight over [`from`, `to`): of those that
    /// overlapped it, the first cause of `StallCause.allCases` (the earliest such); nil when none.
    public static func winner(from: Int64, to: Int64, in activities: [LinkActivity]) -> Int? {
        let rank = { (i: Int) in StallCause.allCases.firstIndex(of: activities[i].cause)! }
        return activities.indices.filter { activities[$0].overlaps(from: from, to: to) }.min { rank($0) < rank($1) }
    }

    /// How many later occurrences a chain's second may be after its first: the period is sought
    /// between near neighbours (up to this many unrelated stalls between two of a repeat), which
    /// keeps the search O(n²) instead of O(n³) on a long walk's hundreds of scans.
    static let periodCandidates = 8

    /// The longest chain of at least `minimumRepeats` times, each one period after the last
    /// (within the tolerance of the chain's first gap); nil when none.
    static func repeating(_ cause: StallCause, _ times: [Int64]) -> PeriodicStall? {
        let t = times.sorted()
        guard t.count >= minimumRepeats else { return nil }
        var best: [Int64] = []
        for i in t.indices {
            for j in (i + 1)..<min(t.count, i + 1 + periodCandidates) {
                let period = t[j] - t[i]
                guard period > 0 else { continue }
                var chain = [t[i], t[j]]
                var k = j + 1
                while k < t.count {
                    let gap = t[k] - chain.last!
                    if abs(gap - period) <= tolerance(periodNs: period) {
                        chain.append(t[k])
                    } else if gap > period + tolerance(periodNs: period) {
                        break
                    }
                    k += 1
                }
                if chain.count > best.count { best = chain }
            }
        }
        guard best.count >= minimumRepeats else { return nil }
        let period = Double(best.last! - best.first!) / Double(best.count - 1) / 1e9
        return PeriodicStall(
            cause: cause, periodSeconds: NumberText.rounded(period, places: 10), occurrences: best.count,
            first: Timestamp.rfc3339(nanoseconds: best.first!), last: Timestamp.rfc3339(nanoseconds: best.last!))
    }
}
