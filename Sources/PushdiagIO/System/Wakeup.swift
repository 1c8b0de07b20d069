private import CEpoll
import PushdiagCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Something a thread waits for instead of polling a flag: an eventfd(2) that `ring` makes
/// readable. `ring` is one write(2), so a signal handler may call it; a waiter blocks in
/// poll(2) until it rings or its time is up.
///
/// Two uses: a latch (`StopEvent`: rung once, never drained, every waiter wakes) and a counter a
/// consumer drains with `take` (a reload request, a place mark).
public final class Wakeup: Sendable {
    let descriptor: Descriptor

    /// Fails only when the process has no descriptors left; the wait then falls back to its time.
    public init() {
        descriptor = Descriptor(CEpoll_eventfd())
    }

    /// Makes the descriptor readable (async-signal-safe).
    public func ring() {
        var one: UInt64 = 1
        _ = write(descriptor.rawValue, &one, MemoryLayout<UInt64>.size)
    }

    /// True when it rang since the last `take`; makes it unreadable again.
    public func take() -> Bool {
        var count: UInt64 = 0
        return read(descriptor.rawValue, &count, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size && count > 0
    }

    /// Waits until it has rung (true) or `ms` passed (false; nil waits without end). A signal
    /// that cuts the wait short returns false, as a timeout does: the caller looks at its flags.
    @discardableResult
    public func wait(ms: Double?) -> Bool {
        Self.wait(any: [self], ms: ms) != nil
    }

    /// Waits for the first of `wakeups` to ring: its index, or nil on timeout or a signal.
    public static func wait(any wakeups: [Wakeup], ms: Double?) -> Int? {
        var fds = wakeups.map { pollfd(fd: $0.descriptor.rawValue, events: Int16(POLLIN), revents: 0) }
        var timeout = ms.map(Clock.pollTimeout(ms:)) ?? -1
        // Without an eventfd (no descriptors left) poll(2) skips it: a second at most, then the caller's flags.
        if fds.contains(where: { $0.fd < 0 }) { timeout = timeout < 0 ? 1000 : min(timeout, 1000) }
        guard case .success(let n) = Syscall.poll(&fds, timeoutMs: timeout), n > 0 else { return nil }
        return fds.firstIndex { $0.revents & Int16(POLLIN) != 0 }
    }
}

/// A stop request that waits can see: `request` sets it for good and wakes every thread that
/// `sleep`s on it (a signal handler may call `request`).
public final class StopEvent: Sendable {
    let flag = Atomic<Bool>(false)
    public let wakeup = Wakeup()

    /// The process's own: the command line's SIGINT and SIGTERM handler requests it, and
    /// `Clock.sleep` wakes on it whatever its caller's `stop` looks at.
    public static let process = StopEvent()

    public init() {}

    /// Sets the request (async-signal-safe); true when it was set already.
    @discardableResult
    public func request() -> Bool {
        let was = flag.exchange(true, ordering: .sequentiallyConsistent)
        if !was { wakeup.ring() }
        return was
    }

    public var isRequested: Bool { flag.load(ordering: .sequentiallyConsistent) }

    /// Waits `ms`, or less when a stop is requested: true when the whole time passed.
    @discardableResult
    public func sleep(ms: Double) -> Bool {
        let until = Clock.ms() + ms
        while !isRequested {
            let left = until - Clock.ms()
            if left <= 0 { return true }
            wakeup.wait(ms: left)
        }
        return false
    }

    /// Waits until it is set, at most `ms` (a signal does not cut the wait short): true when set.
    @discardableResult
    public func wait(ms: Double) -> Bool { !sleep(ms: ms) }
}
