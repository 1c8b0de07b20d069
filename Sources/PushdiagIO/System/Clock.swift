#if canImport(Glibc)
    import Glibc
#endif

/// The two clocks pushdiag reads: the wall clock for timestamps people see, the monotonic clock
/// for every interval and deadline (it does not jump when NTP steps the time).
public enum WallClock {
    /// Wall-clock nanoseconds since the epoch (`CLOCK_REALTIME`).
    public static func nanoseconds() -> Int64 { read(CLOCK_REALTIME) }

    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public static func monotonicNanoseconds() -> Int64 { read(CLOCK_MONOTONIC) }

    static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

/// Monotonic milliseconds, for deadlines.
enum Clock {
    static func ms() -> Double { Double(WallClock.monotonicNanoseconds()) / 1e6 }

    /// Milliseconds left until `deadline`, clamped for `poll(2)`.
    static func pollTimeout(until deadline: Double) -> Int32 {
        Int32(max(0, min(Double(Int32.max), (deadline - ms()).rounded(.up))))
    }
}
