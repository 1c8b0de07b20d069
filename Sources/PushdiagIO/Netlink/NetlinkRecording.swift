private import CPcap
import PushdiagCore

/// Writes every netlink buffer sent and received as a LINKTYPE_NETLINK pcap (the format nlmon
/// produces, which tshark decodes), to PATH.tmp-PID, flushed record by record; `close` renames
/// it into place, `discard` removes it. A command that fails (nl80211 unavailable, say) leaves
/// an existing recording at PATH as it was.
public final class NetlinkRecorder {
    let writer: PcapWriter
    public init(path: String) throws(CaptureError) {
        writer = try PcapWriter(path: path, linkType: CPcap_DLT_NETLINK(), atomic: true)
    }

    /// Forgets the recording: the file at PATH stays as it was.
    public func discard() { writer.discard() }

    public func record(_ bytes: [UInt8], outgoing: Bool, protocol proto: UInt16, time: Int64) {
        writer.write(timestampNs: time, bytes: NetlinkRecord.header(outgoing: outgoing, netlinkProtocol: proto) + bytes)
        writer.flush()
    }

    public func close() throws(CaptureError) { try writer.close() }
}

/// Replays a LINKTYPE_NETLINK recording: requests are answered with the replies recorded for the
/// same request, multicast messages come back as events, with the recorded times.
///
/// Works on pushdiag's own recordings and on `tcpdump -i nlmon0` captures, which hold every
/// process's netlink traffic: a request is matched to the next recorded request of the same
/// netlink type and command, and its replies by that request's sequence number and port.
public final class ReplayNetlink: NetlinkTransport {
    struct Record {
        var time: Int64
        var outgoing: Bool
        var bytes: [UInt8]
        /// Position in the file (1-based, every record counted).
        var index: Int
        var consumed = false
        /// Received without being asked: sequence number 0 (nl80211's notifications), or the
        /// sequence number and port of a request this file does not hold (rtnetlink announces a
        /// change another process made with that process's request's numbers).
        var isEvent = false
    }

    let path: String
    let file: PcapFile
    /// Records are read as the replay needs them and dropped once both the request and the event
    /// cursors are past them, so a long recording replays in flat memory.
    var requests: [Record] = []
    var incoming: [Record] = []
    var eventCursor = 0  // file index of the next record the event search looks at
    var fileIndex = 0
    var eof = false
    /// (sequence, port) of every request read so far.
    var requestKeys: Set<UInt64> = []
    public let netlinkProtocol: UInt16
    public let isReplay = true
    public private(set) var now: Int64 = 0
    public var lastReceived: Int64 { now }
    /// The port the recorded command used (learnt from its first request).
    var recordingPort: UInt32?
    /// The last event handed out, to drop the copies nlmon records when a multicast message is
    /// delivered to several sockets.
    var lastEvent: (time: Int64, bytes: [UInt8])?
    /// Set when the file ended inside a record or held garbage; the records before stand.
    public private(set) var readError: String?

    public init(path: String, protocol proto: UInt16) throws(NetlinkError) {
        self.path = path
        netlinkProtocol = proto
        do { file = try PcapFile(path: path) } catch { throw .replay(error.description) }
        guard file.linkType == CPcap_DLT_NETLINK() else {
            throw .replay("cannot replay \(path): link type \(file.linkType) (\(PcapFile.linkTypeName(file.linkType))), not a netlink recording (NETLINK, 253)")
        }
        if readOne(), let first = requests.first ?? incoming.first { now = first.time }
    }

    /// Reads one more record of our protocol into the queues; false at the end (or an error).
    @discardableResult
    func readOne() -> Bool {
        while !eof {
            fileIndex += 1
            let rec: CaptureRecord?
            do { rec = try file.next(frame: fileIndex) } catch {
                readError = error.description
                eof = true
                return false
            }
            guard let rec else {
                eof = true
                return false
            }
            guard let p = NetlinkRecord.parse(rec.bytes) else {
                readError = "\(path): record \(fileIndex) is not a netlink record (no ARPHRD_NETLINK cooked header)"
                eof = true
                return false
            }
            guard p.netlinkProtocol == netlinkProtocol else { continue }
            // Direction from the message itself: requests carry NLM_F_REQUEST. (The cooked
            // header's packet type cannot tell: nlmon marks every record outgoing.)
            let request = p.messages.count >= 16 && p.messages.u16le(at: 6)! & Netlink.flagRequest != 0
            var r = Record(time: rec.timestampNs, outgoing: request, bytes: Array(p.messages), index: fileIndex)
            if p.messages.count >= 16 {
                let sequence = p.messages.u32le(at: 8)!
                let key = UInt64(sequence) << 32 | UInt64(p.messages.u32le(at: 12)!)
                if request { requestKeys.insert(key) } else { r.isEvent = sequence == 0 || !requestKeys.contains(key) }
            }
            if request { requests.append(r) } else { incoming.append(r) }
            return true
        }
        return false
    }

    /// Drops what neither cursor can reach again.
    func trim() {
        let low = min(eventCursor, requests.first?.index ?? Int.max)
        var n = 0
        while n < incoming.count, incoming[n].consumed || incoming[n].index < low { n += 1 }
        if n > 64 || n == incoming.count { incoming.removeFirst(n) }
    }

    public var exhausted: Bool { eof && incoming.allSatisfy { $0.consumed || $0.index < eventCursor } }

    /// How many requests of this generic-netlink command the recording holds (a replay asks the
    /// same number, e.g. one survey dump per sample). Reads the file separately.
    public func recordedRequests(command: UInt8) -> Int {
        guard let other = try? ReplayNetlink(path: path, protocol: netlinkProtocol) else { return 0 }
        while other.readOne() {}
        return other.requests.filter { $0.bytes.count > 16 && $0.bytes[16] == command && Self.key($0.bytes)?.0 != GenericNetlink.controlID }.count
    }

    public func join(group: UInt32) throws(NetlinkError) {}

    /// (type, command) of the first message of a buffer.
    static func key(_ bytes: [UInt8]) -> (UInt16, UInt8?, UInt16, UInt32, UInt32)? {
        bytes.withUnsafeBytes { b -> (UInt16, UInt8?, UInt16, UInt32, UInt32)? in
            guard b.count >= 16 else { return nil }
            return (b.u16le(at: 4)!, b.u8(at: 16), b.u16le(at: 6)!, b.u32le(at: 8)!, b.u32le(at: 12)!)
        }
    }

    /// "an NL80211_CMD_GET_INTERFACE request" (without the article: "NL80211_CMD_GET_INTERFACE request").
    static func describe(_ type: UInt16, _ command: UInt8?, article: Bool = true) -> String {
        let a = article ? "a " : ""
        if type == GenericNetlink.controlID { return a + "generic netlink family look-up" }
        if let c = command, let n = NL80211.Command(rawValue: c) { return (article ? "an " : "") + "\(n.kernelName) request" }
        return "request type \(type) command \(command.map(String.init) ?? "?")"
    }

    public func exchange(_ request: [UInt8], dump: Bool) throws(NetlinkError) -> [[UInt8]] {
        guard let want = Self.key(request) else { throw .replay("empty request") }
        // The next recorded request of the same type and command. Once the first request is
        // matched, only requests from the same port count, and they must come in the order the
        // command makes them: a recording made with other options says so instead of giving
        // numbers that belong to another question.
        var matched: Record?
        while matched == nil {
            if requests.isEmpty && !readOne() { break }
            guard !requests.isEmpty else { continue }
            let r = requests.removeFirst()
            guard let k = Self.key(r.bytes) else { continue }
            let samePort = recordingPort == nil || k.4 == recordingPort
            if samePort, k.0 == want.0, k.1 == want.1, (k.2 & Netlink.flagDump == Netlink.flagDump) == dump {
                if recordingPort == nil, k.4 != 0 { recordingPort = k.4 }
                matched = r
            } else if recordingPort != nil, samePort {
                throw .replay(
                    "\(path): record \(r.index) is \(Self.describe(k.0, k.1)), but the command now asks for \(Self.describe(want.0, want.1)): replay with the interface and options used when recording"
                )
            }
        }
        guard let req = matched, let k = Self.key(req.bytes) else {
            throw .replay("\(path): the recording has no more \(Self.describe(want.0, want.1, article: false))s to replay\(readError.map { " (\($0))" } ?? "")")
        }
        now = req.time
        var replies: [[UInt8]] = []
        var i = 0
        while true {
            if i >= incoming.count {
                guard readOne() else { break }
                continue
            }
            let r = incoming[i]
            if r.index > req.index, !r.consumed {
                // Replies carry the request's sequence number and are addressed to its port
                // (captures of other tools may record port 0, filled in by the kernel).
                let (ours, finished, _) = r.bytes.withUnsafeBytes { Netlink.replyProgress($0, sequence: k.3, port: k.4, dump: dump) }
                if ours {
                    incoming[i].consumed = true
                    replies.append(r.bytes)
                    now = r.time
                    if finished {
                        trim()
                        return replies
                    }
                }
            }
            i += 1
        }
        throw .replay("\(path): the recording ends before the reply to record \(req.index) is complete\(readError.map { " (\($0))" } ?? "")")
    }

    /// What comes next in the file: a request the command made, or an event it received. A
    /// command that interleaves requests and events (the walk samples between events) follows
    /// the recording's order with this, and asks the same questions in the same order.
    public enum Next: Equatable { case request, event, end }

    public func peekNext() -> Next {
        while true {
            let event = incoming.first { r in !r.consumed && r.index >= eventCursor && r.isEvent }
            let request = requests.first
            if let event, let request { return event.index < request.index ? .event : .request }
            if eof { return event != nil ? .event : request != nil ? .request : .end }
            readOne()
        }
    }

    public func nextEvent(timeoutMs: Int32) throws(NetlinkError) -> [UInt8]? {
        var i = incoming.firstIndex { $0.index >= eventCursor } ?? incoming.count
        while true {
            if i >= incoming.count {
                guard readOne() else { return nil }
                continue
            }
            let r = incoming[i]
            i += 1
            eventCursor = r.index + 1
            guard !r.consumed, r.isEvent else { continue }
            incoming[i - 1].consumed = true
            if let last = lastEvent, last.bytes == r.bytes, r.time - last.time < 1_000_000 { continue }
            lastEvent = (r.time, r.bytes)
            now = r.time
            trim()
            return r.bytes
        }
    }
}
