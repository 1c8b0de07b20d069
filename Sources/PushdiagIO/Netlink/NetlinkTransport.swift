import PushdiagCore

/// Where nl80211 and rtnetlink messages come from: the kernel (live) or a recording (replay).
/// Both hand the same raw bytes to the same decoders.
public protocol NetlinkTransport: AnyObject {
    /// Sends a request and returns every reply buffer up to and including the one that ends it
    /// (NLMSG_DONE for a dump, the acknowledgement or error otherwise).
    func exchange(_ request: [UInt8], dump: Bool) throws(NetlinkError) -> [[UInt8]]
    /// The next multicast buffer, nil when none arrives within `timeoutMs` or a replay ran out.
    func nextEvent(timeoutMs: Int32) throws(NetlinkError) -> [UInt8]?
    func join(group: UInt32) throws(NetlinkError)
    /// Nanoseconds since the epoch: now, or the time the recording says.
    var now: Int64 { get }
    /// When the last buffer was received, as written to a recording (or read from one): the
    /// time of a sample or an event, the same live and in a replay.
    var lastReceived: Int64 { get }
    /// A replay has no more records.
    var exhausted: Bool { get }
    var isReplay: Bool { get }
    var netlinkProtocol: UInt16 { get }
    /// Events received while a request's replies were awaited, not yet taken by `nextEvent`.
    var hasPendingEvents: Bool { get }
}

extension NetlinkTransport {
    /// A replay keeps its events in the recording's order: none wait aside.
    public var hasPendingEvents: Bool { false }
}

/// The kernel, through a libnl socket; every buffer sent or received is given to `recorder`.
public final class LiveNetlink: NetlinkTransport {
    let socket: NetlinkSocket
    let recorder: NetlinkRecorder?
    var sequence: UInt32
    var pendingEvents: [(time: Int64, bytes: [UInt8])] = []
    public private(set) var lastReceived: Int64 = 0
    public let isReplay = false
    public var exhausted: Bool { false }
    public var netlinkProtocol: UInt16 { socket.netlinkProtocol }
    public var hasPendingEvents: Bool { !pendingEvents.isEmpty }
    /// How long to wait for the kernel's reply before giving up.
    public var replyTimeoutMs: Int32 = 5000

    public init(protocol proto: UInt16, recorder: NetlinkRecorder? = nil) throws(NetlinkError) {
        socket = try NetlinkSocket(protocol: proto)
        self.recorder = recorder
        sequence = UInt32(truncatingIfNeeded: WallClock.nanoseconds() / 1_000_000) | 1
    }

    public var now: Int64 { WallClock.nanoseconds() }

    public func join(group: UInt32) throws(NetlinkError) { try socket.join(group: group) }

    public func exchange(_ request: [UInt8], dump: Bool) throws(NetlinkError) -> [[UInt8]] {
        sequence &+= 1
        var message = request
        // Stamp our sequence number and port id into the header.
        for i in 0..<4 { message[8 + i] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(i))) }
        let port = socket.portID
        for i in 0..<4 { message[12 + i] = UInt8(truncatingIfNeeded: port >> (8 * UInt32(i))) }
        recorder?.record(message, outgoing: true, protocol: netlinkProtocol, time: now)
        try socket.send(message)
        var replies: [[UInt8]] = []
        while true {
            guard let buf = try socket.receive(timeoutMs: replyTimeoutMs) else {
                throw .io("the kernel did not answer a netlink request within \(replyTimeoutMs) ms")
            }
            let t = now
            recorder?.record(buf, outgoing: false, protocol: netlinkProtocol, time: t)
            let (ours, finished, _) = buf.withUnsafeBytes { Netlink.replyProgress($0, sequence: sequence, port: nil, dump: dump) }
            if ours {
                lastReceived = t
                replies.append(buf)
                if finished { return replies }
            } else {
                pendingEvents.append((t, buf))
            }
        }
    }

    public func nextEvent(timeoutMs: Int32) throws(NetlinkError) -> [UInt8]? {
        if !pendingEvents.isEmpty {
            let e = pendingEvents.removeFirst()
            lastReceived = e.time
            return e.bytes
        }
        guard let buf = try socket.receive(timeoutMs: timeoutMs) else { return nil }
        let t = now
        recorder?.record(buf, outgoing: false, protocol: netlinkProtocol, time: t)
        lastReceived = t
        return buf
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// Where a command's netlink comes from: a recording to replay, or the kernel (recorded to a
/// file when asked). For nl80211 (`Netlink.protocolGeneric`) and rtnetlink alike.
public enum NetlinkSource {
    /// Runs `body` on the transport; a recording is kept when `body` succeeds and discarded when
    /// it throws, so a failed run does not replace an earlier recording.
    public static func with<T>(protocol proto: UInt16, record: String?, replay: String?, _ body: (NetlinkTransport) throws -> T) throws -> T {
        let (transport, recorder) = try open(protocol: proto, record: record, replay: replay)
        let result: T
        do {
            result = try body(transport)
        } catch {
            recorder?.discard()
            throw error
        }
        do throws(CaptureError) { try recorder?.close() } catch { throw NetlinkError.io("cannot write the recording: \(error)") }
        return result
    }

    public static func open(protocol proto: UInt16, record: String?, replay: String?) throws(NetlinkError) -> (NetlinkTransport, NetlinkRecorder?) {
        if let replay { return (try ReplayNetlink(path: replay, protocol: proto), nil) }
        var recorder: NetlinkRecorder?
        if let record {
            do { recorder = try NetlinkRecorder(path: record) } catch { throw .io(error.description) }
        }
        return (try LiveNetlink(protocol: proto, recorder: recorder), recorder)
    }
}
