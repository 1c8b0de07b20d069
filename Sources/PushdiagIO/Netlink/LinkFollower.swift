import Foundation
import PushdiagCore

/// nl80211's events of one Wi-Fi interface, read on a thread of their own into a
/// `LinkActivityLog`: the scans, channel switches, radar events, roams and disconnects that
/// `heartbeat --interface` joins its bad heartbeats with (`StallAnalysis.explain`), and the
/// interface's carrier and address changes over rtnetlink (`WalkInterfaceWatch`, on a thread of
/// its own), as walk follows both. walk's `WalkLink` and the exporter's `InterfaceFollower` feed
/// the same log from their own loops.
public final class LinkFollower: @unchecked Sendable {
    let watcher: RoamWatcher
    /// The interface over rtnetlink; nil when its socket could not be had (`note` says why).
    let rtnetlink: WalkInterfaceWatch?
    /// What could not be followed, in words.
    public let note: String?
    /// Why rtnetlink stopped being followed before the end, when it did.
    public var changesFailure: String? { rtnetlink?.failure }
    let lock = NSLock()
    var log: LinkActivityLog
    var stopped = false
    var started = false
    let done = DispatchSemaphore(value: 0)

    /// Subscribes to nl80211's events for `interface`; throws when it is no Wi-Fi interface.
    public init(interface: String) throws {
        let transport = try LiveNetlink(protocol: Netlink.protocolGeneric)
        watcher = try RoamWatcher(client: try NL80211Client(transport: transport), transport: transport, interface: interface, roamWindowSeconds: 5)
        guard let ifindex = watcher.only else { throw WiFiError.noSuchInterface(interface) }
        log = LinkActivityLog(ifindex: ifindex)
        do {
            rtnetlink = try WalkInterfaceWatch(transport: try LiveNetlink(protocol: Netlink.protocolRoute), ifindex: ifindex)
            note = nil
        } catch {
            rtnetlink = nil
            note = "carrier and address changes cannot be followed: \(error)"
        }
        watcher.onEvent = { [unowned self] time, e in lock.withLock { log.add(e, at: time) } }
    }

    /// Reads the events until `finish`.
    public func start() {
        lock.withLock { started = true }
        rtnetlink?.start()
        let me = self
        Thread {
            while !me.lock.withLock({ me.stopped }) {
                do { _ = try me.watcher.next(timeoutMs: 100) } catch { Clock.sleep(ms: 100, stop: { me.lock.withLock { me.stopped } }) }
            }
            me.done.signal()
        }.start()
    }

    /// Stops reading (once; at once if it never started); the log as it stands. A scan still
    /// open is ended by `LinkActivityLog.finished(at:)`.
    public func finish() -> LinkActivityLog {
        let wait = lock.withLock {
            defer { stopped = true }
            return started && !stopped
        }
        if wait {
            done.wait()
            // rtnetlink's changes join the log as walk's do when its report is assembled.
            if let i = rtnetlink {
                i.end()
                i.done.wait()
                let changes = i.changes
                lock.withLock { for c in changes { log.add(c) } }
            }
        }
        return lock.withLock { log }
    }
}
