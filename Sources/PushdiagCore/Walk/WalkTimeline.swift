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

    public init(interface: String, server: String, proto: String, startNs: Int64) {
        self.interface = interface
        self.server = server
        self.proto = proto
        self.startNs = startNs
        endNs = startNs
    }
}

/// One line of a walk's heartbeat log (`--record DIR` writes `DIR/push.jsonl`; `--replay DIR`
/// reads it back): what the push connection and the engineer did, as JSON Lines.
public struct WalkLogLine: Codable, Sendable, Equatable {
    /// start, heartbeat, reconnect, state, place, failure or end.
    public var kind: String
    public var timeNs: Int64
    public var rttMs: Double?
    public var ms: Double?
    public var attempts: Int?
    public var succeeded: Bool?
    public var state: String?
    public var reason: String?
    /// start: the interface, server and protocol; place: the place's name.
    public var name: String?
    public var server: String?
    public var proto: String?
    public var interrupted: Bool?
    /// start: the Wi-Fi driver's sysfs name, when known (a replay judges the counters by it).
    public var driver: String?

    public init(kind: String, timeNs: Int64) {
        self.kind = kind
        self.timeNs = timeNs
    }

    public static func heartbeat(_ h: WalkHeartbeat) -> WalkLogLine {
        var l = WalkLogLine(kind: "heartbeat", timeNs: h.sentNs)
        l.rttMs = h.rttMs
        return l
    }

    public static func reconnect(_ r: WalkReconnect) -> WalkLogLine {
        var l = WalkLogLine(kind: "reconnect", timeNs: r.timeNs)
        l.ms = r.ms
        l.attempts = r.attempts
        l.succeeded = r.succeeded
        return l
    }

    public static func state(_ s: ConnectionState, atNs t: Int64) -> WalkLogLine {
        var l = WalkLogLine(kind: "state", timeNs: t)
        l.state = s.state.rawValue
        l.reason = s.reason
        return l
    }

    public static func place(_ p: WalkPlaceMark) -> WalkLogLine {
        var l = WalkLogLine(kind: "place", timeNs: p.timeNs)
        l.name = p.name
        return l
    }

    /// Applies this line to a timeline (the replay's way back from the log).
    public func apply(to t: inout WalkTimeline) {
        switch kind {
        case "start":
            t.startNs = timeNs
            if let name { t.interface = name }
            if let server { t.server = server }
            if let proto { t.proto = proto }
        case "heartbeat": t.heartbeats.append(WalkHeartbeat(sentNs: timeNs, rttMs: rttMs))
        case "reconnect": t.reconnects.append(WalkReconnect(timeNs: timeNs, ms: ms ?? 0, attempts: attempts ?? 0, succeeded: succeeded ?? false))
        case "state":
            // A state not of ConnectionPhase is not one this tool wrote: left out.
            if let s = state.flatMap(ConnectionPhase.init) { t.states.append(ConnectionState(timeNs: timeNs, state: s, reason: reason)) }
        case "place": t.marks.append(WalkPlaceMark(timeNs: timeNs, name: name ?? ""))
        case "failure": t.failure = reason
        case "end":
            t.endNs = timeNs
            t.interrupted = interrupted ?? false
        default: break
        }
    }
}
