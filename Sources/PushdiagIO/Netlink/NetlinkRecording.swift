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
/// process's netlink traffic (iw, ip, wpa_supplicant, hostapd): a request is matched by meaning
/// (`NetlinkRequestMeaning`: family, command, dump, the interface, radio, MAC or destination
/// asked about) to the first such request recorded and not yet replayed, whoever made it, and
/// its replies by that request's sequence number and port. Asking about another interface or
/// host than the recording did is an error that names both.
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
        /// Received, yet marked sent: nlmon's tap, which records a multicast message once per
        /// socket that gets it.
        var tapped = false
        /// What a request asks (nil for anything else).
        var meaning: NetlinkRequestMeaning?
    }

    /// How many requests no question matched are kept waiting for one.
    static let unmatchedLimit = 4096
    /// How many requests of each meaning the file held so far (up to `seenLimit` meanings), for
    /// an error that says what the recording could have answered.
    var seen: [NetlinkRequestMeaning: Int] = [:]
    static let seenLimit = 1024
    /// Interface names by index, from the interface dumps replayed so far.
    var interfaceNames: [UInt32: String] = [:]
    var wdevNames: [UInt64: String] = [:]
    /// The interface the questions are about (`--interface`, or the one chosen): a dump about
    /// no interface is answered from per-object answers about this one.
    public var interfaceAtHand: NetlinkRequestMeaning.Interface?
    /// When the last request replayed was made.
    var lastRequestTime: Int64 = .min
    /// The nl80211 commands whose dumps were answered from per-object answers, for the note.
    public private(set) var perObjectCommands: [String] = []

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
    /// (sequence, port) of the requests replayed whose answer is complete: a message of theirs
    /// that comes later (the ACK a request with NLM_F_ACK gets after its reply, which a live
    /// client leaves unread) is consumed as it is read, so it holds nothing back (`trim`).
    var answered: Set<UInt64> = []
    /// The ports of the requests replayed: the command's sockets. A request from another port
    /// (wpa_supplicant's, iw's in an nlmon capture) is not one the command will ask (`peekNext`).
    var ownPorts: Set<UInt32> = []
    /// The command listens for events: it joined a multicast group or asked for one. Until then
    /// at most `heldForEventsLimit` records are held for a later event search (`trim`).
    var wantsEvents = false
    /// Records held while the command has asked for no event: past this many, the events among
    /// them go, as they would from a socket that is not read. A command that follows events
    /// subscribes before its first long read, so a replay loses none it would have had; one that
    /// never does (wifi, doctor, route) replays a long recording in flat memory.
    var heldForEventsLimit = 65_536
    public let netlinkProtocol: UInt16
    public let isReplay = true
    public private(set) var now: Int64 = 0
    public var lastReceived: Int64 { now }
    /// The events handed out in the last `tapCopyWindowNs`, to drop the copies nlmon records when
    /// a multicast message is delivered to several sockets. Not only the last one: another
    /// family's message can fall between two copies (lab, 2026-11-26: DISCONNECT, a message of
    /// another genl family, DISCONNECT again, 0.4 ms apart).
    var recentEvents: [(time: Int64, bytes: [UInt8])] = []
    static let tapCopyWindowNs: Int64 = 50_000_000
    /// Set when the file ended inside a record or held garbage; the records before stand.
    public private(set) var readError: String?
    /// The time of the last whole record read from the file (of any protocol): with `readError`,
    /// how far the recording is known.
    public private(set) var lastRecordNs: Int64 = .min

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
            lastRecordNs = rec.timestampNs
            guard p.netlinkProtocol == netlinkProtocol else { continue }
            // Direction from the message itself: requests carry NLM_F_REQUEST. (The cooked
            // header's packet type cannot tell: nlmon marks every record outgoing.)
            let request = p.messages.count >= 16 && p.messages.u16le(at: 6)! & Netlink.flagRequest != 0
            var r = Record(time: rec.timestampNs, outgoing: request, bytes: Array(p.messages), index: fileIndex)
            r.tapped = !request && p.outgoing
            if p.messages.count >= 16 {
                let sequence = p.messages.u32le(at: 8)!
                let key = UInt64(sequence) << 32 | UInt64(p.messages.u32le(at: 12)!)
                if request {
                    requestKeys.insert(key)
                } else {
                    r.isEvent = sequence == 0 || !requestKeys.contains(key)
                    if !r.isEvent, answered.remove(key) != nil { r.consumed = true }
                }
            }
            if request {
                r.meaning = NetlinkRequestMeaning(p.messages, protocol: netlinkProtocol)
                if let m = r.meaning, seen[m] != nil || seen.count < Self.seenLimit { seen[m, default: 0] += 1 }
                requests.append(r)
            } else {
                learnInterfaceNames(r.bytes)
                incoming.append(r)
            }
            return true
        }
        return false
    }

    /// Drops what neither cursor can reach again (`heldForEventsLimit`).
    func trim() {
        let keepEvents = wantsEvents || incoming.count <= heldForEventsLimit
        let low = min(keepEvents ? eventCursor : .max, requests.first?.index ?? Int.max)
        var n = 0
        while n < incoming.count, incoming[n].consumed || incoming[n].index < low { n += 1 }
        if n > 64 || n == incoming.count { incoming.removeFirst(n) }
    }

    public var exhausted: Bool { eof && incoming.allSatisfy { $0.consumed || $0.index < eventCursor } }

    /// How many recorded requests answer each of `requests`, replayed or not (a replay asks as
    /// many, e.g. one survey dump per sample). Reads the file separately.
    public func recordedCounts(of requests: [[UInt8]]) -> [Int] {
        let meanings = requests.map { NetlinkRequestMeaning($0, protocol: netlinkProtocol) }
        var counts = [Int](repeating: 0, count: requests.count)
        guard let other = try? ReplayNetlink(path: path, protocol: netlinkProtocol) else { return counts }
        // Per-object requests are counted once the whole file has named its interfaces.
        var perObject: [NetlinkRequestMeaning: Int] = [:]
        repeat {
            for r in other.requests {
                guard let rm = r.meaning else { continue }
                for (k, m) in meanings.enumerated() where m != nil && rm.answers(m!) { counts[k] += 1 }
                if meanings.contains(where: { $0.map(rm.narrows) == true }), perObject[rm] != nil || perObject.count < Self.seenLimit {
                    perObject[rm, default: 0] += 1
                }
            }
            other.requests.removeAll()
            other.incoming.removeAll()
        } while other.readOne()
        other.interfaceAtHand = interfaceAtHand
        for (k, m) in meanings.enumerated() where counts[k] == 0 {
            guard let m, let at = try? other.interface(for: m, among: Array(perObject.keys)) else { continue }
            counts[k] = perObject.filter { $0.key.answersPerObject(m, at: at, names: other.interfaceNames, wdevNames: other.wdevNames) }.values.reduce(0, +)
        }
        return counts
    }

    public func join(group: UInt32) throws(NetlinkError) { wantsEvents = true }

    /// The sequence number and port of the first message of a buffer: its replies carry them.
    static func sequenceAndPort(_ bytes: [UInt8]) -> (sequence: UInt32, port: UInt32)? {
        bytes.withUnsafeBytes { b in b.count >= 16 ? (b.u32le(at: 8)!, b.u32le(at: 12)!) : nil }
    }

    /// "NL80211_CMD_GET_SCAN dump", "RTM_GETROUTE request", "generic netlink family look-up";
    /// `plural` adds the s.
    static func describe(_ m: NetlinkRequestMeaning, plural: Bool = false) -> String {
        let s = plural ? "s" : ""
        if m.netlinkProtocol == Netlink.protocolGeneric && m.type == GenericNetlink.controlID { return "generic netlink family look-up\(s)" }
        let kind = m.dump ? "dump" : "request"
        if m.netlinkProtocol == Netlink.protocolRoute {
            let names: [UInt16: String] = [
                RTNetlink.getLink: "RTM_GETLINK", RTNetlink.getAddress: "RTM_GETADDR", RTNetlink.getRoute: "RTM_GETROUTE",
                RTNetlink.getNeighbour: "RTM_GETNEIGH",
            ]
            return "\(names[m.type] ?? "rtnetlink type \(m.type)") \(kind)\(s)"
        }
        if let c = m.command, let n = NL80211.Command(rawValue: c) { return "\(n.kernelName) \(kind)\(s)" }
        return "generic netlink type \(m.type) command \(m.command.map(String.init) ?? "?") \(kind)\(s)"
    }

    /// Why no recorded request answers `asked`: the recording was made about another object, it
    /// held fewer, or it never asked this.
    func unanswered(_ asked: NetlinkRequestMeaning) -> String {
        let what = Self.describe(asked, plural: true)
        let about = asked.selectors.isEmpty ? "" : " about \(asked.subject(names: interfaceNames, wdevNames: wdevNames))"
        let damage = readError.map { " (\($0))" } ?? ""
        let held = seen.filter { $0.key.answers(asked) }.values.reduce(0, +)
        if held > 0 {
            return "\(path): the recording has no more \(what)\(about) to replay (it holds \(held))\(damage)"
        }
        let others = Set(seen.keys.filter { $0.sameQuestion(asked) }.map { $0.subject(names: interfaceNames, wdevNames: wdevNames) }).sorted()
        if !others.isEmpty {
            return
                "\(path): the recording holds \(what) about \(others.prefix(3).joined(separator: "; ")), not\(about): replay with the interface, host and options used when recording\(damage)"
        }
        // Per-object answers about other interfaces than the one at hand.
        let perObject = seen.filter { $0.key.narrows(asked) }
        let objects = Set(perObject.keys.compactMap { $0.interface(names: interfaceNames, wdevNames: wdevNames)?.description })
        if let at = interfaceAtHand, !objects.isEmpty {
            let kind = Self.describe(asked).split(separator: " ").first.map(String.init) ?? what
            // The interface at hand among them: its answers were all replayed.
            let mine = perObject.filter { $0.key.interface(names: interfaceNames, wdevNames: wdevNames).map(at.same) == true }.values.reduce(0, +)
            if mine > 0 {
                return "\(path): the recording has no more \(kind) answers about \(at.description) to replay (it holds \(mine))\(damage)"
            }
            return
                "\(path): the recording holds \(kind) answers about \(objects.sorted().prefix(3).joined(separator: "; ")), not about \(at.description): replay with the interface used when recording\(damage)"
        }
        let kinds = Set(seen.keys.map { Self.describe($0, plural: true) }).sorted()
        let holds = kinds.isEmpty ? "no requests" : kinds.prefix(6).joined(separator: ", ") + (kinds.count > 6 ? ", …" : "")
        return
            "\(path): the recording holds no \(what)\(about)\(asked.dump ? " nor requests about one object of them" : "") (it holds \(holds)): record with the same command and options (or run it while nlmon captures)\(damage)"
    }

    public func exchange(_ request: [UInt8], dump: Bool) throws(NetlinkError) -> [[UInt8]] {
        guard let meaning = NetlinkRequestMeaning(request, protocol: netlinkProtocol) else { throw .replay("empty request") }
        // The first recorded request, by any process, that asks the same question about the same
        // object. Others stay queued for later questions.
        var position = 0
        var matched: Record?
        while matched == nil {
            if position >= requests.count {
                guard readOne() else { break }
                continue
            }
            if requests[position].meaning?.answers(meaning) == true {
                matched = requests.remove(at: position)
            } else {
                position += 1
            }
        }
        guard let req = matched else {
            // The whole file is read: it holds no such dump. Per-object answers may stand in.
            if meaning.dump, let answer = try perObjectAnswer(meaning) { return answer }
            throw .replay(unanswered(meaning))
        }
        // Requests nobody asks about (another process's) are forgotten past a bound, with their
        // replies, so an nlmon capture of a busy machine replays in flat memory.
        if requests.count > Self.unmatchedLimit { requests.removeFirst(requests.count - Self.unmatchedLimit) }
        return try replies(to: req, dump: dump, learn: meaning.dump)
    }

    /// The interface `asked` (a dump) is about when it names none: the one at hand, or the only
    /// one the per-object requests `among` are about (nil when they name none).
    func interface(for asked: NetlinkRequestMeaning, among: [NetlinkRequestMeaning]) throws(NetlinkError) -> NetlinkRequestMeaning.Interface? {
        if var at = interfaceAtHand {
            if at.ifindex == nil, let n = at.name { at.ifindex = interfaceNames.first { $0.value == n }?.key }
            if at.name == nil, let i = at.ifindex { at.name = interfaceNames[i] }
            return at
        }
        var distinct: [NetlinkRequestMeaning.Interface] = []
        for m in among where m.narrows(asked) {
            if let i = m.interface(names: interfaceNames, wdevNames: wdevNames), !distinct.contains(where: i.same) { distinct.append(i) }
        }
        guard distinct.count <= 1 else {
            let about = distinct.prefix(4).map(\.description).joined(separator: ", ")
            throw .replay(
                "\(path): the recording answers \(Self.describe(asked, plural: true)) only about one interface each (\(about)): name one with --interface")
        }
        return distinct.first
    }

    /// A dump answered from a recorded request about one object of it (an interface, a peer, a
    /// radio) that is about the interface at hand; nil when the recording holds none. The first
    /// not yet replayed that was asked no earlier than the last request replayed, where there is
    /// one: per-object questions come at their own times (wpa_supplicant asks about its interface
    /// a dozen times while it connects, about its AP once connected), and a sample is made of
    /// answers from one moment where the recording has them.
    func perObjectAnswer(_ asked: NetlinkRequestMeaning) throws(NetlinkError) -> [[UInt8]]? {
        let candidates = requests.compactMap { $0.meaning }.filter { $0.narrows(asked) }
        guard !candidates.isEmpty else { return nil }
        let at = try interface(for: asked, among: candidates)
        let answering = requests.indices.filter {
            requests[$0].meaning?.answersPerObject(asked, at: at, names: interfaceNames, wdevNames: wdevNames) == true
        }
        guard let k = answering.first(where: { requests[$0].time >= lastRequestTime }) ?? answering.first else { return nil }
        let req = requests.remove(at: k)
        if let c = asked.command.flatMap(NL80211.Command.init(rawValue:))?.kernelName, !perObjectCommands.contains(c) { perObjectCommands.append(c) }
        // An object the kernel no longer had (ENOENT: the station left) is one a dump leaves out.
        return try replies(to: req, dump: req.meaning?.dump ?? false, learn: false).filter { buf in
            !buf.withUnsafeBytes { b in
                var failed = false
                try? Netlink.forEachMessage(b) { m in if let c = m.errorCode, c != 0 { failed = true } }
                return failed
            }
        }
    }

    /// The replies recorded to `req`, marked replayed.
    func replies(to req: Record, dump: Bool, learn: Bool) throws(NetlinkError) -> [[UInt8]] {
        guard let k = Self.sequenceAndPort(req.bytes) else { throw .replay("\(path): record \(req.index) is not a whole request") }
        now = req.time
        lastRequestTime = req.time
        ownPorts.insert(k.port)
        var replies: [[UInt8]] = []
        // The replies come after the request: the records before it (kept for the event cursor)
        // are not looked at again, so a long recording does not make each answer slower.
        var i = Self.firstIndex(in: incoming, after: req.index)
        while true {
            if i >= incoming.count {
                guard readOne() else { break }
                continue
            }
            let r = incoming[i]
            if r.index > req.index, !r.consumed {
                // Replies carry the request's sequence number and are addressed to its port
                // (captures of other tools may record port 0, filled in by the kernel).
                let (ours, finished, _) = r.bytes.withUnsafeBytes { Netlink.replyProgress($0, sequence: k.sequence, port: k.port, dump: dump) }
                if ours {
                    incoming[i].consumed = true
                    replies.append(r.bytes)
                    if learn, req.meaning.map(Self.listsInterfaces) == true { learnNames(r.bytes) }
                    now = r.time
                    if finished {
                        // Its ACK is still to come: asked for (NLM_F_ACK), and not a dump's.
                        let acked = !dump && req.bytes.count >= 8 && (UInt16(req.bytes[6]) | UInt16(req.bytes[7]) << 8) & Netlink.flagAck != 0
                        // Read already (a search read ahead): consumed now, no key left behind.
                        let key = UInt64(k.sequence) << 32 | UInt64(k.port)
                        let ahead = incoming[(i + 1)...].firstIndex { a in
                            !a.consumed && !a.isEvent
                                && a.bytes.withUnsafeBytes { Netlink.replyProgress($0, sequence: k.sequence, port: k.port, dump: false).ours }
                        }
                        if acked, let a = ahead {
                            incoming[a].consumed = true
                        } else if acked {
                            if answered.count >= Self.unmatchedLimit { answered.removeAll() }
                            answered.insert(key)
                        }
                        trim()
                        return replies
                    }
                }
            }
            i += 1
        }
        throw .replay("\(path): the recording ends before the reply to record \(req.index) is complete\(readError.map { " (\($0))" } ?? "")")
    }

    /// The position of the first record of `records` (in file order) read after file index
    /// `index`.
    static func firstIndex(in records: [Record], after index: Int) -> Int {
        var (low, high) = (0, records.count)
        while low < high {
            let mid = (low + high) / 2
            if records[mid].index > index { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// An nl80211 interface dump or an rtnetlink link dump: its replies name interfaces.
    static func listsInterfaces(_ m: NetlinkRequestMeaning) -> Bool {
        m.netlinkProtocol == Netlink.protocolGeneric ? m.command == NL80211.Command.getInterface.rawValue : m.type == RTNetlink.getLink
    }

    /// Interface names from any nl80211 interface message the file holds (the reply to
    /// `iw dev IF info`, an interface event), as they are read, so a per-object request by index
    /// is known by name.
    func learnInterfaceNames(_ buf: [UInt8]) {
        guard netlinkProtocol == Netlink.protocolGeneric, buf.count > 16, buf[16] == NL80211.Command.newInterface.rawValue,
            buf.withUnsafeBytes({ $0.u16le(at: 4) }) != GenericNetlink.controlID
        else { return }
        learnNames(buf)
    }

    /// Interface names from an nl80211 interface dump or an rtnetlink link dump.
    func learnNames(_ buf: [UInt8]) {
        buf.withUnsafeBytes { b in
            try? Netlink.forEachMessage(b) { m in
                var index: UInt32?
                var name: String?
                var wdev: UInt64?
                if netlinkProtocol == Netlink.protocolGeneric {
                    Netlink.forEachAttribute(m.genlAttributes) { t, v in
                        if t == NL80211.Attr.ifindex { index = v.nlU32 }
                        if t == NL80211.Attr.ifname { name = v.nlString }
                        if t == NL80211.Attr.wdev { wdev = v.nlU64 }
                    }
                } else if m.type == RTNetlink.newLink, m.payload.count >= 16 {
                    index = m.payload.u32le(at: 4)
                    Netlink.forEachAttribute(m.payload.suffix(from: 16)) { t, v in if t == RTNetlink.iflaIfname { name = v.nlString } }
                }
                if let index, let name, interfaceNames.count < 4096 { interfaceNames[index] = name }
                if let wdev, let name, wdevNames.count < 4096 { wdevNames[wdev] = name }
            }
        }
    }

    /// What comes next in the file: a request the command made, or an event it received. A
    /// command that interleaves requests and events (the walk samples between events) follows
    /// the recording's order with this, and asks the same questions in the same order.
    public enum Next: Equatable { case request, event, end }

    public func peekNext() -> Next {
        wantsEvents = true
        while true {
            let event = incoming.first { r in !r.consumed && r.index >= eventCursor && r.isEvent }
            // Another process's request (in an nlmon capture) is not one the command will ask.
            let request = requests.first { r in ownPorts.isEmpty || Self.sequenceAndPort(r.bytes).map { ownPorts.contains($0.port) } == true }
            if let event, let request { return event.index < request.index ? .event : .request }
            if eof { return event != nil ? .event : request != nil ? .request : .end }
            readOne()
        }
    }

    public func nextEvent(timeoutMs: Int32) throws(NetlinkError) -> [UInt8]? {
        wantsEvents = true
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
            // nlmon's copies of one multicast message follow each other within microseconds (a
            // few milliseconds under emulation); a socket's own recording holds each once.
            recentEvents.removeAll { r.time - $0.time >= Self.tapCopyWindowNs }
            if r.tapped, recentEvents.contains(where: { $0.bytes == r.bytes }) { continue }
            recentEvents.append((r.time, r.bytes))
            now = r.time
            trim()
            return r.bytes
        }
    }
}
