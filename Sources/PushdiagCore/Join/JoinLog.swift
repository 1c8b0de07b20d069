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

        public var setup: JoinCycleSetup { JoinCycleSetup(resolvesName: resolvesName, tls: tls, hello: hello) }

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

        public init(cycle: Int, from: Int64, to: Int64) {
            (self.cycle, self.from, self.to) = (cycle, from, to)
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
        let times: ClosedRange<Int64> = 0...4_000_000_000_000_000_000
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !raw.isEmpty {
            let place = "\(file):\(i + 1)"
            guard let line = try? d.decode(Line.self, from: Data(raw.utf8)) else {
                return .failure(JoinLogError("\(place): not a line of a join recording"))
            }
            // Times a run can have: from 1970 to 2096, a window forwards (so no arithmetic on them
            // overflows).
            if let t = line.t ?? line.window?.from,
                !times.contains(t) || !times.contains(line.window?.to ?? t) || (line.window.map { $0.from > $0.to } ?? false)
            {
                return .failure(JoinLogError("\(place): a time outside 1970-2096 or a window that ends before it begins"))
            }
            if let h = line.header {
                guard ((h.apIdleRungs ?? []) + [h.pathIdleTimeoutS ?? 1]).allSatisfy({ (0.001...1e7).contains($0) }) else {
                    return .failure(JoinLogError("\(place): an idle time that is not between 1 ms and 10^7 s"))
                }
                header = h
            } else if let w = line.window {
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

        init?(_ k: JoinEvent.Kind, time: Int64) {
            t = time
            switch k {
            case .cycleStart(let how): (event, text) = ("cycle_start", how)
            case .cycleEnd: event = "cycle_end"
            case .silenceStart(let idle): (event, seconds) = ("silence_start", idle)
            case .silenceEnd: event = "silence_end"
            case .rungEnd: event = "rung_end"
            case .stationCounters(let tx): (event, count) = ("station_counters", Int64(tx))
            case .pushAgain(let why): (event, text) = ("push_again", why)
            case .stepFailed(let s, let why): (event, step, text) = ("step_failed", s, why)
            case .notVisible(let s, let why): (event, step, text) = ("not_visible", s, why)
            case .push(let m):
                event = "push"
                switch m {
                case .resolveStarted(let name): (milestone, text) = ("resolve_started", name)
                case .resolved(let a): (milestone, address) = ("resolved", a)
                case .tcpStarted(let a): (milestone, address) = ("tcp_started", a)
                case .tcpConnected: milestone = "tcp_connected"
                case .tlsDone: milestone = "tls_done"
                case .helloDone: milestone = "hello_done"
                case .heartbeatSent: milestone = "heartbeat_sent"
                case .heartbeatAnswered: milestone = "heartbeat_answered"
                }
            default: return nil
            }
        }

        /// The event this line stands for (nil when it is none this version knows).
        var kind: JoinEvent.Kind? {
            switch (event, milestone) {
            case ("cycle_start", _): return text.map { .cycleStart($0) }
            case ("cycle_end", _): return .cycleEnd
            case ("silence_start", _): return seconds.flatMap { $0.isFinite && $0 >= 0 ? .silenceStart(idleS: $0) : nil }
            case ("silence_end", _): return .silenceEnd
            case ("rung_end", _): return .rungEnd
            case ("station_counters", _): return count.flatMap(UInt32.init(exactly:)).map { .stationCounters(txPackets: $0) }
            case ("push_again", _): return text.map { .pushAgain($0) }
            case ("step_failed", _): return step.flatMap { s in text.map { .stepFailed(s, $0) } }
            case ("not_visible", _): return step.flatMap { s in text.map { .notVisible(s, $0) } }
            case ("push", "resolve_started"): return text.map { .push(.resolveStarted($0)) }
            case ("push", "resolved"): return address.map { .push(.resolved($0)) }
            case ("push", "tcp_started"): return address.map { .push(.tcpStarted($0)) }
            case ("push", "tcp_connected"): return .push(.tcpConnected)
            case ("push", "tls_done"): return .push(.tlsDone)
            case ("push", "hello_done"): return .push(.helloDone)
            case ("push", "heartbeat_sent"): return .push(.heartbeatSent)
            case ("push", "heartbeat_answered"): return .push(.heartbeatAnswered)
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
