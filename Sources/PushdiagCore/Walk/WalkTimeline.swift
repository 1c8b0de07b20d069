import Foundation

/// What a walk collected, on one clock (nanoseconds since the epoch, taken from the monotonic
/// clock anchored once at the start): the link's samples and moves, the push connection's
/// heartbeats, reconnects and states, the places. The IO side fills it, live or from a
/// recording; `WalkReport.assemble` decides.
public struct WalkTimeline: Sendable {
    public var interface: String
    public var server: String
    public var proto: String
    public var startNs: Int64
    public var endNs: Int64
    public var samples: [WalkSample] = []
    /// Every read of the kernel's scan cache, in time order (the iPhone lens's candidates).
    public var scans: [WalkScan] = []
    public var changes: [WalkLinkChange] = []
    public var heartbeats: [WalkHeartbeat] = []
    public var reconnects: [WalkReconnect] = []
    public var states: [ConnectionState] = []
    public var marks: [WalkPlaceMark] = []
    /// The interface's carrier and address changes (rtnetlink); nil when they were not followed
    /// (a recording made without them).
    public var interfaceChanges: [WalkInterfaceChange]?
    /// The walk was ended by a signal (not by --duration or the end of a replay).
    public var interrupted = false
    /// The push connection could not be opened at the start (no heartbeats were possible).
    public var failure: String?
    /// Why the link part stopped early (the interface went away), when it did.
    public var linkFailure: String?
    /// What the driver does not report, in words.
    public var notes: [String] = []
    /// The link's scans, channel switches, radar events, roams, disconnects (nl80211) paired
    /// into spans, for the stalls; rtnetlink's changes join them when the report is assembled.
    public var activity: LinkActivityLog?
    /// How long a heartbeat waited for its answer (a lost one was in flight this long).
    public var heartbeatTimeoutMs: Double = HeartbeatOptions.defaultTimeoutMs
    /// `--scan-every`: pushdiag asked for a scan this often (nil: the system's own scans only).
    public var scanEverySeconds: Double?

    public init(interface: String, server: String, proto: String, startNs: Int64) {
        self.interface = interface
        self.server = server
        self.proto = proto
        self.startNs = startNs
        endNs = startNs
    }
}

/// What the push connection and the engineer did during a walk, as it happened: the walk's
/// live path keeps these typed from the push thread to the timeline; the push log
/// (`push.jsonl`) is their encoding (`WalkLogLine`).
public enum WalkLogEvent: Sendable, Equatable {
    /// The walk began: the interface, the push server and protocol, the Wi-Fi driver's sysfs
    /// name when known (a replay judges the counters by it).
    /// Also the heartbeat timeout and `--scan-every` (nil in logs written before them), and
    /// whether the walk read the scan cache after each scan's results (`WalkLink`; nil in logs
    /// written before it did, whose replays then read as those walks read).
    case start(
        timeNs: Int64, interface: String, server: String?, proto: String?, driver: String?, timeoutMs: Double? = nil, scanEverySeconds: Double? = nil,
        scanReadsAfterResults: Bool? = nil)
    case heartbeat(WalkHeartbeat)
    case reconnect(WalkReconnect)
    case state(timeNs: Int64, ConnectionState)
    case place(WalkPlaceMark)
    /// The push connection could not be opened or failed for good.
    case failure(timeNs: Int64, reason: String)
    case end(timeNs: Int64, interrupted: Bool)
}

extension WalkLogEvent {
    /// When it happened (a heartbeat: when it was sent).
    public var timeNs: Int64 {
        switch self {
        case .start(let t, _, _, _, _, _, _, _), .state(let t, _), .failure(let t, _), .end(let t, _): return t
        case .heartbeat(let h): return h.sentNs
        case .reconnect(let r): return r.timeNs
        case .place(let p): return p.timeNs
        }
    }
}

extension WalkTimeline {
    /// A push log without its `end` line (the walk killed, the machine down): the walk ends at
    /// the last thing recorded, its log's last line or the link's last sample, as interrupted,
    /// and a note says so. (Without it the walk would end at the epoch: a negative duration.)
    public mutating func endUnended(log: [WalkLogEvent], lastSampleNs: Int64?) {
        guard !log.contains(where: { if case .end = $0 { true } else { false } }) else { return }
        endNs = max(log.map(\.timeNs).max() ?? startNs, lastSampleNs ?? .min, startNs)
        interrupted = true
        notes.append("the push log has no end line (the walk was stopped without writing one): the walk ends at its last line or sample")
    }

    /// Applies one event (live or read back from a push log).
    public mutating func apply(_ e: WalkLogEvent) {
        switch e {
        case .start(let time, let interface, let server, let proto, _, let timeout, let scanEvery, _):
            startNs = time
            if let timeout { heartbeatTimeoutMs = timeout }
            scanEverySeconds = scanEvery
            self.interface = PrintableText.escape(interface)
            if let server { self.server = PrintableText.escape(server) }
            if let proto { self.proto = PrintableText.escape(proto) }
        case .heartbeat(let h): heartbeats.append(h)
        case .reconnect(let r): reconnects.append(r)
        case .state(_, let s): states.append(s)
        case .place(let p): marks.append(p)
        case .failure(_, let reason): failure = reason
        case .end(let time, let interrupted):
            endNs = time
            self.interrupted = interrupted
        }
    }
}

/// One line of a walk's heartbeat log (`--record DIR` writes `DIR/push.jsonl`; `--replay DIR`
/// reads it back): a `WalkLogEvent` as JSON Lines.
public struct WalkLogLine: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case start, heartbeat, reconnect, state, place, failure, end
    }

    public var kind: Kind
    public var timeNs: Int64
    public var rttMs: Double?
    public var ms: Double?
    public var attempts: Int?
    public var succeeded: Bool?
    public var state: String?
    public var reason: String?
    /// start: the interface; place: the place's name.
    public var name: String?
    public var server: String?
    public var proto: String?
    public var interrupted: Bool?
    /// start: the Wi-Fi driver's sysfs name, when known.
    public var driver: String?
    /// start: how long a heartbeat waited for its answer (`HeartbeatOptions.heartbeatWaitMs`:
    /// --timeout, or tcp's --connect-timeout; before 2026-11-29 --timeout for tcp too, so an
    /// older tcp recording replays with that window) and `--scan-every` (a replay asks for the
    /// scans the walk asked for).
    public var timeoutMs: Double?
    public var scanEveryS: Double?
    /// start: the scan cache was read after each scan's results (`WalkLink`: every walk since
    /// 2026-11-29, before then `--scan-every` walks only).
    public var scanReadsAfterResults: Bool?

    public init(kind: Kind, timeNs: Int64) {
        self.kind = kind
        self.timeNs = timeNs
    }

    /// Why this line, read from a recording, holds a number no walk writes (`Recorded`): a time
    /// outside 1970-2096, a round trip, reconnect time or wait that is not from 0 to 24 days, a
    /// scan interval that is not from 0 to 10^7 s; nil for a line a walk could have written.
    public var problem: String? {
        if !Recorded.times.contains(timeNs) { return "time_ns \(timeNs) is outside 1970-2096" }
        if let p = Recorded.durationProblem(rttMs, "rtt_ms") ?? Recorded.durationProblem(ms, "ms") ?? Recorded.durationProblem(timeoutMs, "timeout_ms") {
            return p
        }
        if let s = scanEveryS, !(0...1e7).contains(s) { return "scan_every_s \(s) is not from 0 to 10^7 s" }
        if let n = attempts, n < 0 { return "attempts \(n) is negative" }
        return nil
    }

    /// The line that encodes `e`.
    public init(_ e: WalkLogEvent) {
        switch e {
        case .start(let time, let interface, let server, let proto, let driver, let timeout, let scanEvery, let afterResults):
            self.init(kind: .start, timeNs: time)
            name = interface
            self.server = server
            self.proto = proto
            self.driver = driver
            timeoutMs = timeout
            scanEveryS = scanEvery
            scanReadsAfterResults = afterResults
        case .heartbeat(let h):
            self.init(kind: .heartbeat, timeNs: h.sentNs)
            rttMs = h.rttMs
        case .reconnect(let r):
            self.init(kind: .reconnect, timeNs: r.timeNs)
            ms = r.ms
            attempts = r.attempts
            succeeded = r.succeeded
        case .state(let time, let s):
            self.init(kind: .state, timeNs: time)
            state = s.state.rawValue
            reason = s.reason
        case .place(let p):
            self.init(kind: .place, timeNs: p.timeNs)
            name = p.name
        case .failure(let time, let why):
            self.init(kind: .failure, timeNs: time)
            reason = why
        case .end(let time, let interrupted):
            self.init(kind: .end, timeNs: time)
            self.interrupted = interrupted
        }
    }

    /// A push log's lines (`file` names it in the error): each a line of JSON that a walk writes,
    /// with numbers a walk writes (`problem`), the first the walk's start. The first line that is
    /// not one stops the reading, named by its number (as a text editor counts, blank lines
    /// passed over).
    public static func decode(_ text: String, file: String) throws(RecordingError) -> [WalkLogLine] {
        var lines: [WalkLogLine] = []
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            guard let line = try? decoder.decode(WalkLogLine.self, from: Data(raw.utf8)) else {
                throw RecordingError("\(file): line \(i + 1) is not a walk log line")
            }
            // Numbers no walk writes (a file edited or made elsewhere) would overflow the analysis.
            if let problem = line.problem { throw RecordingError("\(file): line \(i + 1): \(problem)") }
            lines.append(line)
        }
        guard let start = lines.first, start.kind == .start, start.name != nil else {
            throw RecordingError("\(file): not a walk log (its first line is not the walk's start)")
        }
        return lines
    }

    /// The event this line encodes (fields a line leaves out take their neutral value, as a log
    /// written before they existed has it); nil for a state that is not a `ConnectionPhase`,
    /// which this tool never wrote.
    public var event: WalkLogEvent? {
        switch kind {
        case .start:
            return .start(
                timeNs: timeNs, interface: name ?? "", server: server, proto: proto, driver: driver, timeoutMs: timeoutMs, scanEverySeconds: scanEveryS,
                scanReadsAfterResults: scanReadsAfterResults)
        case .heartbeat: return .heartbeat(WalkHeartbeat(sentNs: timeNs, rttMs: rttMs))
        case .reconnect: return .reconnect(WalkReconnect(timeNs: timeNs, ms: ms ?? 0, attempts: attempts ?? 0, succeeded: succeeded ?? false))
        case .state:
            guard let phase = state.flatMap(ConnectionPhase.init(rawValue:)) else { return nil }
            return .state(timeNs: timeNs, ConnectionState(timeNs: timeNs, state: phase, reason: reason))
        case .place: return .place(WalkPlaceMark(timeNs: timeNs, name: name ?? ""))
        case .failure: return .failure(timeNs: timeNs, reason: reason ?? "")
        case .end: return .end(timeNs: timeNs, interrupted: interrupted ?? false)
        }
    }
}
