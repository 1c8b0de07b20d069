import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A descriptor this object owns, closed exactly once when the owner goes away (swift-system's
/// `FileDescriptor`, with the ownership made explicit).
public final class Descriptor: Sendable {
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    deinit { _ = Glibc.close(rawValue) }
}

/// The system calls pushdiag's sockets and files make, with `EINTR` handled in one place.
///
/// Calls that do work (`send`, `recv`, `accept`, `fsync`, …) are repeated when a signal
/// interrupts them. Waits (`poll`) are not: SIGINT and SIGTERM are installed without
/// `SA_RESTART` so that a wait returns early and its caller sees the stop request; such a wait
/// reports no events, as a timeout would, and the caller recomputes what is left of its deadline.
enum Syscall {
    /// Runs `body` until it does not fail with `EINTR`: its result, or the `errno` it failed with.
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ body: () -> T) -> Result<T, Errno> {
        while true {
            let rc = body()
            if rc >= 0 { return .success(rc) }
            let e = Errno.current
            if e != .interrupted { return .failure(e) }
        }
    }

    /// `poll(2)` on `fds`: how many have events; 0 on timeout or when a signal arrived.
    static func poll(_ fds: inout [pollfd], timeoutMs: Int32) -> Result<Int, Errno> {
        let n = fds.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
        if n >= 0 { return .success(Int(n)) }
        let e = Errno.current
        return e == .interrupted ? .success(0) : .failure(e)
    }

    /// `poll(2)` on one descriptor: the events that came, 0 on timeout or a signal.
    static func poll(_ fd: Int32, events: Int16, timeoutMs: Int32) -> Result<Int16, Errno> {
        var fds = [pollfd(fd: fd, events: events, revents: 0)]
        return poll(&fds, timeoutMs: timeoutMs).map { _ in fds[0].revents }
    }

    /// An integer socket option.
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// `SO_ERROR`: how a non-blocking connect ended.
    static func pendingError(_ fd: Int32) -> Errno? {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 else { return Errno.current }
        return err == 0 ? nil : Errno(err)
    }
}
