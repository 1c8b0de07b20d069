import Foundation
import PushdiagCore

/// The walk's interface over rtnetlink, on its own socket and thread: subscribed to link and
/// address changes first, then the start-up state dumped (so nothing falls between the two),
/// then each change as the kernel announces it. Live (recorded to DIR/rtnetlink.pcap when the
/// walk records) or from such a recording, through the same code. heartbeat's `LinkFollower`
/// keeps the changes as walk does; the exporter takes each as it comes (`onChange`).
public final class WalkInterfaceWatch: @unchecked Sendable {
    let transport: NetlinkTransport
    let lock = NSLock()
    private var tracker: InterfaceTracker
    /// Why following stopped early (netlink failed), when it did (read from any thread).
    public var failure: String? { lock.withLock { failed } }
    private var failed: String?
    public let done = DispatchSemaphore(value: 0)

    /// Each change as it is seen, on the watch's thread; with it the watch keeps none (a process
    /// that runs for days). Set before `start`.
    public var onChange: ((WalkInterfaceChange) -> Void)?

    public init(transport: NetlinkTransport, ifindex: UInt32) throws(NetlinkError) {
        self.transport = transport
        tracker = InterfaceTracker(ifindex: Int32(bitPattern: ifindex))
        for g in [RTNetlink.groupLink, RTNetlink.groupIPv4Address, RTNetlink.groupIPv6Address] { try transport.join(group: g) }
        for request in [RTNetlink.linkDumpRequest(sequence: 0), RTNetlink.addressDumpRequest(sequence: 0)] {
            try apply(transport.exchange(request, dump: true), baseline: true)
        }
    }

    func apply(_ buffers: [[UInt8]], baseline: Bool) throws(NetlinkError) {
        let t = transport.lastReceived
        for buf in buffers {
            let malformed: NetlinkError? = buf.withUnsafeBytes { b in
                do throws(NetlinkError) {
                    try Netlink.forEachMessage(b) { m in lock.withLock { tracker.apply(m, timeNs: t, baseline: baseline) } }
                    return nil
                } catch { return error }
            }
            if let malformed { throw malformed }
        }
        if let onChange, !baseline {
            for c in lock.withLock({ tracker.takeChanges() }) { onChange(c) }
        }
    }

    private var ended = false
    /// The walk is over: `run` returns.
    public func end() { lock.withLock { ended = true } }

    /// Follows the changes until `end()` (live) or the end of the recording (replay).
    func run() {
        do {
            while !lock.withLock({ ended }) {
                guard let buf = try transport.nextEvent(timeoutMs: 200) else {
                    if transport.isReplay { break }
                    continue
                }
                try apply([buf], baseline: false)
            }
        } catch {
            lock.withLock { failed = "rtnetlink: \(error)" }
        }
    }

    /// Runs `run` on its own thread.
    public func start() {
        Thread { [self] in
            run()
            done.signal()
        }.start()
    }

    public var changes: [WalkInterfaceChange] { lock.withLock { tracker.changes } }
    var addresses: Set<String> { lock.withLock { tracker.addresses } }
}
