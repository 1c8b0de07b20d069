private import CEpoll
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// epoll(7), level-triggered: which of many descriptors are ready, at a cost that grows with how
/// many are ready rather than with how many are watched (poll(2) walks them all on every wake,
/// which at 10,000 connections is most of a loop's time). Owns its epoll descriptor; a
/// descriptor closed elsewhere leaves the set by itself.
public final class EventPoll {
    /// What a descriptor is watched for, or what it reported.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `EPOLLIN`
        public static let readable = Events(rawValue: CEpoll_IN())
        /// `EPOLLOUT`
        public static let writable = Events(rawValue: CEpoll_OUT())
        /// `EPOLLERR`, reported whether asked or not.
        public static let error = Events(rawValue: CEpoll_ERR())
        /// `EPOLLHUP`, reported whether asked or not.
        public static let hangup = Events(rawValue: CEpoll_HUP())
    }

    let descriptor: Descriptor
    private var readyFDs: [Int32]
    private var readyEvents: [UInt32]

    /// At most `batch` (≤ 1024) descriptors are reported per `wait`; the rest come on the next.
    public init(batch: Int = 1024) throws(ConnectionFailure) {
        let fd = CEpoll_create()
        guard fd >= 0 else { throw .io("cannot create an epoll instance", errno: .current) }
        descriptor = Descriptor(fd)
        let n = max(1, min(1024, batch))
        readyFDs = [Int32](repeating: -1, count: n)
        readyEvents = [UInt32](repeating: 0, count: n)
    }

    /// Starts watching `fd` (`EPOLL_CTL_ADD`).
    public func add(_ fd: Int32, _ events: Events) -> Result<Void, Errno> { control(CEpoll_CTL_ADD(), fd, events) }

    /// Changes what `fd` is watched for (`EPOLL_CTL_MOD`).
    public func modify(_ fd: Int32, _ events: Events) -> Result<Void, Errno> { control(CEpoll_CTL_MOD(), fd, events) }

    /// Stops watching `fd` (`EPOLL_CTL_DEL`); closing it does the same.
    public func remove(_ fd: Int32) { _ = control(CEpoll_CTL_DEL(), fd, []) }

    private func control(_ op: Int32, _ fd: Int32, _ events: Events) -> Result<Void, Errno> {
        CEpoll_ctl(descriptor.rawValue, op, fd, events.rawValue) == 0 ? .success(()) : .failure(.current)
    }

    /// Waits up to `timeoutMs` and calls `body` for each ready descriptor; how many were ready (0
    /// on timeout or when a signal cut the wait short, as `Syscall.poll` has it).
    @discardableResult
    public func wait(timeoutMs: Int32, _ body: (Int32, Events) -> Void) -> Result<Int, Errno> {
        let count = readyFDs.count
        let n = readyFDs.withUnsafeMutableBufferPointer { fds in
            readyEvents.withUnsafeMutableBufferPointer { evs in
                CEpoll_wait(descriptor.rawValue, fds.baseAddress, evs.baseAddress, Int32(count), timeoutMs)
            }
        }
        if n < 0 {
            let e = Errno.current
            return e == .interrupted ? .success(0) : .failure(e)
        }
        for i in 0..<Int(n) { body(readyFDs[i], Events(rawValue: readyEvents[i])) }
        return .success(Int(n))
    }
}

/// Deadlines for many connections at once: a binary min-heap of (time, owner), so a loop finds
/// what is due without walking every connection. An entry whose owner has moved on is the
/// owner's to ignore (lazy deletion: compare a serial number or the deadline it holds).
public struct DeadlineHeap {
    public struct Entry: Sendable {
        public var at: Double
        public var owner: Int
        public var serial: UInt64
    }

    private var items: [Entry] = []
    public init() {}

    public var isEmpty: Bool { items.isEmpty }
    public var count: Int { items.count }
    /// The earliest deadline, if any.
    public var earliest: Double? { items.first?.at }

    public mutating func push(at: Double, owner: Int, serial: UInt64 = 0) {
        items.append(Entry(at: at, owner: owner, serial: serial))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].at < items[parent].at else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    /// Removes and returns the earliest entry when it is due by `now`.
    public mutating func popDue(_ now: Double) -> Entry? {
        guard let first = items.first, first.at <= now else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < items.count && items[l].at < items[m].at { m = l }
                if r < items.count && items[r].at < items[m].at { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return first
    }
}
