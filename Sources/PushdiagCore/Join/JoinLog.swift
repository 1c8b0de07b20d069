import Foundation

/// `pushdiag join --record DIR` writes what no recording of the kernel or the wire holds to
/// DIR/join.jsonl: the run's header, pushdiag's own events (where each cycle starts and ends, its
/// push session's milestones, a push made again, what failed or could not be seen) and each
/// cycle's window. The rest comes from DIR/nl80211.pcap, DIR/rtnetlink.pcap and DIR/packets.pcap,
/// decoded on replay by the same functions as live (`JoinEvent.Kind.nl80211`, `.rtnetlink`,
/// `.packet`). One JSON object a line:
///
///     {"header":{"interface":"wlan2","ifindex":4,"server":"push.lab:3000","mode":"wpa_supplicant",...}}
///     {"t":1795674186404759000,"event":"push","milestone":"resolve_started","text":"push.lab"}
///     {"window":{"cycle":1,"from":1795674186100000000,"to":1795674187900000000}}
public enum JoinLog {
    public struct Header: Codable, Equatable, Sendable {
        public var interface: String
        public var ifindex: UInt32
        public var server: String
        public var mode: String
        public var resolvesName: Bool
        public var tls: Bool
        public var hello: Bool
        public var notes: [String]
        /// The station's own address, whose frames end an `--find-ap-idle` silence (absent in
        /// recordings made before it).
        public var station: MACAddress?
        /// `--find-ap-idle`: its rungs (seconds) and the path's idle timeout (`--idle-timeout`).
        public var apIdleRungs: [Double]?
        public var pathIdleTimeoutS: Double?

        public init(
            interface: String, ifindex: UInt32, server: String, mode: String, setup: JoinCycleSetup, notes: [String], station: MACAddress? = nil,
            apIdleRungs: [Double]? = nil, pathIdleTimeoutS: Double? = nil
        ) {
            self.station = station
            self.apIdleRungs = apIdleRungs
            self.pathIdleTimeoutS = pathIdleTimeoutS
            self.interface = interface
            self.ifindex = ifindex
            self.server = server
            self.mode = mode
            (resolvesName, tls, hello) = (setup.resolvesName, setup.tls, setup.hello)
            self.notes = notes
        }

        public var setup: JoinCycleSetup { JoinCycleSetup(resolvesName: resolvesName, tls: tls, hello: hello, station: station) }

        enum CodingKeys: String, CodingKey {
            case interface, ifindex, server, mode, tls, hello, notes, station
            case resolvesName = "resolves_name"
            case apIdleRungs = "ap_idle_rungs"
            case pathIdleTimeoutS = "path_idle_timeout_s"
        }
    }

    /// The events of one cycle: from its preparation (before the kick) to its end.
    public struct Window: Codable, Equatable, Sendable {
        public var cycle: Int
        public var from: Int64
        public var to: Int64
        /// The station's address during the cycle (a manager may give each connection a random
        /// one): its DHCP exchange is that address's. Absent in recordings made before; the
        /// header's then.
        public var station: MACAddress?

        public init(cycle: Int, from: Int64, to: Int64, station: MACAddress? = nil) {
            (self.cycle, self.from, self.to, self.station) = (cycle, from, to, station)
        }

        /// `setup` with this cycle's station address, when the window has one.
        public func setup(_ setup: JoinCycleSetup) -> JoinCycleSetup {
            var s = setup
            s.station = station ?? setup.station
            return s
        }
    }

    /// The kinds pushdiag itself adds (the others are decoded from the recordings).
    public static func isOwn(_ k: JoinEvent.Kind) -> Bool { Line(k, time: 0) != nil }

    /// The file's text: the header, the own events of `events` and the windows.
    public static func encode(header: Header, events: [JoinEvent], windows: [Window]) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [Line] = [Line(header: header)]
        lines += events.compactMap { Line($0.kind, time: $0.timeNs) }
        lines += windows.map { Line(window: $0) }
        return lines.map { String(decoding: (try? e.encode($0)) ?? Data(), as: UTF8.self) }.joined(separator: "\n") + "\n"
    }

    /// The header, the events and the windows, or the first line that is not one (named by
    /// `file` and its number).
    public static func decode(_ text: String, file: String) -> Result<(Header, [JoinEvent], [Window]), JoinLogError> {
        var header: Header?
        var events: [JoinEvent] = []
        var windows: [Window] = []
        let d = JSONDecoder()
        let times = Recorded.times
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !raw.isEmpty {
            let place = "\(file):\(i + 1)"
            guard let line = try? d.decode(Line.self, from: Data(raw.utf8)) else {
                return .failure(JoinLogError("\(place): not a line of a join recording"))
            }
            // One thing a line: a header, a window or an event (a line that is two was read as
            // the first and the rest passed over unchecked).
            guard [line.header != nil, line.window != nil, line.t != nil || line.event != nil].filter({ $0 }).count <= 1 else {
                return .failure(JoinLogError("\(place): a line that is more than one of a header, a window and an event"))
            }
            // Times a run can have: from 1970 to 2096, a window forwards (so no arithmetic on them
            // overflows).
            let stamps = [line.t, line.window?.from, line.window?.to].compactMap { $0 }
            if !stamps.allSatisfy(times.contains) || (line.window.map { $0.from > $0.to } ?? false) {
                return .failure(JoinLogError("\(place): a time outside 1970-2096 or a window that ends before it begins"))
            }
            if let h = line.header {
                guard header == nil else { return .failure(JoinLogError("\(place): a second header line")) }
                guard ((h.apIdleRungs ?? []) + [h.pathIdleTimeoutS ?? 1]).allSatisfy({ (0.001...1e7).contains($0) }) else {
                    return .failure(JoinLogError("\(place): an idle time that is not between 1 ms and 10^7 s"))
                }
                var printable = h
                (printable.interface, printable.server, printable.mode) = (
                    PrintableText.escape(h.interface), PrintableText.escape(h.server), PrintableText.escape(h.mode)
                )
                header = printable
            } else if let w = line.window {
                guard !windows.contains(where: { $0.cycle == w.cycle }) else {
                    return .failure(JoinLogError("\(place): a second window for cycle \(w.cycle)"))
                }
                windows.append(w)
            } else if let t = line.t, let k = line.kind {
                events.append(JoinEvent(t, k))
            } else {
                return .failure(JoinLogError("\(place): an event this version does not know (\(line.event ?? "no event"))"))
            }
        }
        guard let header else { return .failure(JoinLogError("\(file): no header line: not a join recording")) }
        return .success((header, events, windows))
    }

    /// One line: a header, a window or an event of pushdiag's own.
    struct Line: Codable {
        var header: Header?
        var window: Window?
        var t: Int64?
        var event: String?
        var milestone: String?
        var step: JoinStep?
        var text: String?
        var address: IPAddress?
        var seconds: Double?
        var count: Int64?

        init(header: Header) { self.header = header }
        init(window: Window) { self.window = window }

        /// The names a line gives its events and a push's milestones (`event`, `milestone`): kept
        /// as text in the line, so that one this version does not know is told by name.
        enum Name: String {
            case cycleStart = "cycle_start", cycleEnd = "cycle_end", silenceStart = "silence_start", silenceEnd = "silence_end"
            case rungEnd = "rung_end", stationCounters = "station_counters", pushAgain = "push_again", stepFailed = "step_failed"
            case notVisible = "not_visible", push
        }
        enum Milestone: String {
            case resolveStarted = "resolve_started", resolved, tcpStarted = "tcp_started", tcpConnected = "tcp_connected", tlsDone = "tls_done"
            case helloDone = "hello_done", heartbeatSent = "heartbeat_sent", heartbeatAnswered = "heartbeat_answered"
        }

        init?(_ k: JoinEvent.Kind, time: Int64) {
            t = time
            let name: Name
            var mark: Milestone?
            switch k {
            case .cycleStart(let how): (name, text) = (.cycleStart, how)
            case .cycleEnd: name = .cycleEnd
            case .silenceStart(let idle): (name, seconds) = (.silenceStart, idle)
            case .silenceEnd: name = .silenceEnd
            case .rungEnd: name = .rungEnd
            case .stationCounters(let tx): (name, count) = (.stationCounters, Int64(tx))
            case .pushAgain(let why): (name, text) = (.pushAgain, why)
            case .stepFailed(let s, let why): (name, step, text) = (.stepFailed, s, why)
            case .notVisible(let s, let why): (name, step, text) = (.notVisible, s, why)
            case .push(let m):
                name = .push
                switch m {
                case .resolveStarted(let host): (mark, text) = (.resolveStarted, host)
                case .resolved(let a): (mark, address) = (.resolved, a)
                case .tcpStarted(let a): (mark, address) = (.tcpStarted, a)
                case .tcpConnected: mark = .tcpConnected
                case .tlsDone: mark = .tlsDone
                case .helloDone: mark = .helloDone
                case .heartbeatSent: mark = .heartbeatSent
                case .heartbeatAnswered: mark = .heartbeatAnswered
                }
            default: return nil
            }
            (event, milestone) = (name.rawValue, mark?.rawValue)
        }

        /// The event this line stands for (nil when it is none this version knows).
        var kind: JoinEvent.Kind? {
            switch (event.flatMap(Name.init), milestone.flatMap(Milestone.init)) {
            case (.cycleStart, _): return text.map { .cycleStart($0) }
            case (.cycleEnd, _): return .cycleEnd
            case (.silenceStart, _): return seconds.flatMap { $0.isFinite && $0 >= 0 ? .silenceStart(idleS: $0) : nil }
            case (.silenceEnd, _): return .silenceEnd
            case (.rungEnd, _): return .rungEnd
            case (.stationCounters, _): return count.flatMap(UInt32.init(exactly:)).map { .stationCounters(txPackets: $0) }
            case (.pushAgain, _): return text.map { .pushAgain($0) }
            case (.stepFailed, _): return step.flatMap { s in text.map { .stepFailed(s, $0) } }
            case (.notVisible, _): return step.flatMap { s in text.map { .notVisible(s, $0) } }
            case (.push, .resolveStarted): return text.map { .push(.resolveStarted($0)) }
            case (.push, .resolved): return address.map { .push(.resolved($0)) }
            case (.push, .tcpStarted): return address.map { .push(.tcpStarted($0)) }
            case (.push, .tcpConnected): return .push(.tcpConnected)
            case (.push, .tlsDone): return .push(.tlsDone)
            case (.push, .helloDone): return .push(.helloDone)
            case (.push, .heartbeatSent): return .push(.heartbeatSent)
            case (.push, .heartbeatAnswered): return .push(.heartbeatAnswered)
            default: return nil
            }
        }
    }
}

/// A join recording that cannot be read: one line naming the file and the line.
public struct JoinLogError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
