import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The two clocks pushdiag reads: the wall clock for timestamps people see, the monotonic clock
/// for every interval and deadline (it does not jump when NTP steps the time).
public enum WallClock {
    /// Set by `anchor()`: the wall clock minus the monotonic clock at that moment.
    static let anchorOffset = Atomic<Int64>(0)

    /// Wall-clock nanoseconds since the epoch (`CLOCK_REALTIME`); after `anchor()`, the wall
    /// clock at the anchor plus the monotonic time since, so that every timestamp of a run
    /// (netlink records, heartbeats, places) is on one clock that NTP cannot step.
    public static func nanoseconds() -> Int64 {
        let offset = anchorOffset.load(ordering: .relaxed)
        return offset != 0 ? read(CLOCK_MONOTONIC) + offset : read(CLOCK_REALTIME)
    }

    /// Puts `nanoseconds()` on the monotonic clock from now on (the walk does this at start).
    public static func anchor() {
        anchorOffset.store(read(CLOCK_REALTIME) - read(CLOCK_MONOTONIC), ordering: .relaxed)
    }

    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public static func monotonicNanoseconds() -> Int64 { read(CLOCK_MONOTONIC) }

    static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Monotonic milliseconds, for deadlines.
public enum Clock {
    public static func ms() -> Double { Double(WallClock.monotonicNanoseconds()) / 1e6 }

    /// Milliseconds left until `deadline`, clamped for `poll(2)`.
    public static func pollTimeout(until deadline: Double) -> Int32 { pollTimeout(ms: deadline - ms()) }

    /// `ms` as poll(2), epoll_wait(2) and a socket's timeouts take it: whole milliseconds rounded
    /// up (a wait is never cut short), 0 for a time already past, at most Int32.max.
    public static func pollTimeout(ms: Double) -> Int32 { Int32(max(0, min(Double(Int32.max), ms.rounded(.up)))) }

    /// Sleeps `ms`, returning early when `stop` says so; true when the whole time passed. A paced
    /// interval that must notice a stop: the process's stop request (SIGINT, SIGTERM) wakes it at
    /// once; a `stop` that looks at anything else is seen within 100 ms.
    @discardableResult
    public static func sleep(ms: Double, stop: () -> Bool) -> Bool {
        let until = Clock.ms() + ms
        let process = StopEvent.process
        while !stop() {
            let left = until - Clock.ms()
            if left <= 0 { return true }
            // Once the process's request is set its wakeup stays readable: the steps then keep time.
            if process.isRequested { usleep(UInt32(min(left, 100) * 1000)) } else { process.wakeup.wait(ms: min(left, 100)) }
        }
        return false
    }
}
