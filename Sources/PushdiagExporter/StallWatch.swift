import PushdiagCore
import PushdiagIO
import Synchronization

/// The exporter's stalls, shared by its threads: each interface follower hands in its nl80211
/// events and its rtnetlink changes, each held session its heartbeats as they end (`StallCounter`: the last 1000 answered
/// ones' p95 stands for the run's), and a stall counts in the session's
/// `pushdiag_stalls_total{cause}`. Every interface followed is this machine's: a scan on any of
/// them is its own.
final class StallWatch: Sendable {
    let counter = Mutex(StallCounter())

    func add(_ e: NL80211.Event, at timeNs: Int64, ifindex: UInt32) { counter.withLock { $0.add(e, at: timeNs, ifindex: ifindex) } }
    func add(_ c: WalkInterfaceChange, ifindex: UInt32) { counter.withLock { $0.add(c, ifindex: ifindex) } }
    /// The scans of `ifindex` whose results the event follower saw lately (the iPhone lens's evidence).
    func completedScans(ifindex: UInt32) -> [CompletedScan] { counter.withLock { $0.completedScans(ifindex: ifindex) } }

    /// The heartbeat sent at `sentNs` has just ended: its cause when it is a stall.
    func judge(sentNs: Int64, rttMs: Double?, timeoutMs: Double) -> StallCause? {
        counter.withLock { $0.judge(sentNs: sentNs, rttMs: rttMs, timeoutMs: timeoutMs, nowNs: WallClock.nanoseconds()) }
    }
}
