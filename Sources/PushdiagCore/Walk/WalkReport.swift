/// `pushdiag walk`'s answer: the push connection's fate, each move of the link joined with it
/// and graded, the samples and places, and findings with one status (Nagios-style exit code).
/// The JSON contract (snake_case keys) is documented in the man page.
public struct WalkReport: Codable, Sendable, Equatable {
    public var interface: String
    public var server: String
    public var `protocol`: String
    public var started: String
    public var durationSeconds: Double
    /// The worst finding; OK, WARNING, CRITICAL or UNKNOWN in the JSON.
    @NagiosSeverity public var status: Severity
    /// Ended by a signal before --duration.
    public var interrupted: Bool
    public var connection: WalkConnectionReport
    public var roams: [WalkRoamReport]
    public var samples: [WalkSampleReport]
    public var locations: [WalkPlaceReport]
    /// The interface's carrier and address changes (rtnetlink); null when not followed.
    @Nullable public var interfaceChanges: [WalkInterfaceChangeReport]?
    public var findings: [Finding]
    /// What could not be measured, and why.
    public var notes: [String]
    /// Through the iPhone's eyes (`IPhoneLens`): the offset added to the laptop's signals, the
    /// roams an iPhone would have made, where it (or the laptop) would cling below the trigger,
    /// where the SSID had no BSS at the trigger, and coverage for roaming per place.
    public var signalOffsetDb: Double
    public var predictedRoams: [PredictedRoam]
    public var stickyZones: [StickyZone]
    public var coverageHoles: [CoverageHole]
    public var coverage: [WalkPlaceCoverage]
    /// Every heartbeat lost or slower than the run's p95 by the `stall_margin` row, with what
    /// overlapped it on the link (`StallAnalysis`), and the summary.
    public var stalls: [Stall]
    public var stallSummary: StallSummary
}

/// A severity that encodes as the Monitoring Plugins spell it (OK, WARNING, CRITICAL, UNKNOWN),
/// where a report's JSON has always said it so.
@propertyWrapper
public struct NagiosSeverity: Codable, Sendable, Equatable {
    public var wrappedValue: Severity
    public init(wrappedValue: Severity) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let s = Severity(rawValue: text.lowercased()), s.nagiosName == text else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not OK, WARNING, CRITICAL or UNKNOWN: \(text)")
        }
        wrappedValue = s
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue.nagiosName)
    }
}

public struct WalkConnectionReport: Codable, Sendable, Equatable {
    public var heartbeatsSent: Int
    public var heartbeatsAnswered: Int
    public var heartbeatsLost: Int
    public var reconnects: Int
    /// The connection was lost for good (the reconnect schedule ran out), or never opened.
    public var lost: Bool
    @Nullable public var rttMs: RTTSummary?
    /// The Network-framework-like states, as they happened.
    public var states: [ConnectionState]
    /// Why the connection could not be opened at the start.
    @Nullable public var error: String?
}

public struct WalkInterfaceChangeReport: Codable, Sendable, Equatable {
    public var time: String
    public var change: WalkInterfaceChange.Kind
    @Nullable public var address: String?
    public var location: String
}

/// A sample as the report gives it: its link reading (the JSON's keys beside the report's own,
/// `report.signalDbm` in code) and what the report adds.
@dynamicMemberLookup
public struct WalkSampleReport: Codable, Sendable, Equatable {
    public var time: String
    public var link: WalkLinkReading
    /// Retries per frame sent since the previous sample, in percent (null: not reported, or
    /// nothing sent).
    @Nullable public var retriesPct: Double?
    /// The round trip of the last heartbeat answered since the previous sample.
    @Nullable public var rttMs: Double?
    public var location: String

    public subscript<T>(dynamicMember path: KeyPath<WalkLinkReading, T>) -> T { link[keyPath: path] }
}

/// The link's keys and the report's in one JSON object, as a sample has always been written.
extension WalkSampleReport {
    enum CodingKeys: String, CodingKey { case time, retriesPct, rttMs, location }

    public init(from decoder: any Decoder) throws {
        link = try WalkLinkReading(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decode(String.self, forKey: .time)
        _retriesPct = try c.decode(Nullable<Double>.self, forKey: .retriesPct)
        _rttMs = try c.decode(Nullable<Double>.self, forKey: .rttMs)
        location = try c.decode(String.self, forKey: .location)
    }

    public func encode(to encoder: any Encoder) throws {
        try link.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(time, forKey: .time)
        try c.encode(_retriesPct, forKey: .retriesPct)
        try c.encode(_rttMs, forKey: .rttMs)
        try c.encode(location, forKey: .location)
    }
}

extension WalkReport {
    /// Decides a walk from its timeline.
    public static func assemble(
        _ t: WalkTimeline, thresholds w: WalkThresholds = WalkThresholds(), retry: Thresholds = Thresholds(), lens: IPhoneLens = IPhoneLens()
    ) -> WalkReport {
        // Every sample and event carries the place it happened in.
        var samples = t.samples
        for i in samples.indices { samples[i].location = WalkAnalysis.place(at: samples[i].timeNs, t.marks) }
        let roams = WalkAnalysis.roams(
            t.changes, heartbeats: t.heartbeats, reconnects: t.reconnects, places: t.marks, endNs: t.endNs, interface: t.interfaceChanges ?? [], t: w)
        let places = WalkAnalysis.places(samples: samples, heartbeats: t.heartbeats, roams: roams, marks: t.marks)
        var findings: [Finding] = []
        if let failure = t.failure {
            findings.append(
                Finding(
                    check: .pushConnection, severity: .critical, subject: t.server, value: nil, threshold: nil, unit: "", source: "heartbeat",
                    message: "the push connection could not be opened: \(failure)"))
        }
        let lost = t.failure != nil || t.reconnects.last.map { !$0.succeeded } ?? false
        if t.failure == nil, lost {
            findings.append(
                Finding(
                    check: .pushConnection, severity: .critical, subject: t.server, value: Double(t.reconnects.count), threshold: nil, unit: "reconnects",
                    source: "heartbeat", message: "push \(ReconnectAttempt.scheduleRanOut())"))
        }
        for r in roams where r.grade != .ok {
            // The gap as measured (null when not reported) and the limit the reason names, when
            // the gap is above one (a move graded for its SSID or its connection passed none).
            let passed = r.linkGapLimitMs.flatMap { limit in r.linkGapMs.flatMap { $0 > limit ? limit : nil } }
            findings.append(
                Finding(
                    check: .roam, severity: r.grade, subject: "\(r.fromBssid?.description ?? "?") → \(r.toBssid?.description ?? "none")",
                    value: r.linkGapMs, threshold: passed, unit: .ms, source: "nl80211",
                    message: "\(r.time)\(r.location.isEmpty ? "" : " at \(r.location)"): \(r.reason)"))
        }
        let completed = t.activity?.completedScans ?? []
        findings += WalkAnalysis.signalFindings(samples, scans: t.scans, t: w, staleAfterMs: lens.staleAfterMs, completed: completed)
        for p in places {
            // Graded as every retransmission finding is (`RangeGraded`); plain limits always name one.
            guard let pct = p.retriesPct, let (severity, passed) = retry.grade(pct, .retransmission), let limit = passed else { continue }
            let frames = WalkAnalysis.retryCounts(samples.filter { $0.location == p.name }).packets
            guard retry.judgesRetries(over: frames) else { continue }
            findings.append(
                Finding(
                    check: .retries, severity: severity, subject: p.name.isEmpty ? "walk" : p.name, value: pct, threshold: limit, unit: .percent,
                    source: RetransmissionSource.stationRetries.rawValue,
                    message:
                        "\(NumberText.format(pct))% of \(NumberText.count(frames, "frame")) to the AP were retransmitted (the limit: \(NumberText.format(limit))%; Apple's guidance: no more than \(NumberText.format(ThresholdRow.retransmission.critical!))%)"
                ))
        }
        if let why = t.linkFailure {
            // What was measured stands; the walk is incomplete (critical still outranks it).
            findings.append(
                Finding(
                    check: .link, severity: .unknown, subject: t.interface, value: nil, threshold: nil, unit: "", source: "nl80211",
                    message: "the link could not be followed to the end: \(why)"))
        }
        let seen = lens.apply(samples: samples, scans: t.scans, heartbeats: t.heartbeats, marks: t.marks, completed: t.activity?.completedScans ?? [])
        let stalls = Self.stalls(t)
        let worst = findings.map(\.severity).max() ?? .ok
        let answered = t.heartbeats.filter { $0.rttMs != nil }
        return WalkReport(
            interface: t.interface, server: t.server, protocol: t.proto, started: Timestamp.rfc3339(nanoseconds: t.startNs),
            durationSeconds: Kept.seconds(ns: t.endNs - t.startNs), status: worst,
            interrupted: t.interrupted,
            connection: WalkConnectionReport(
                heartbeatsSent: t.heartbeats.count, heartbeatsAnswered: answered.count, heartbeatsLost: t.heartbeats.count - answered.count,
                reconnects: t.reconnects.count, lost: lost, rttMs: RTTSummary.of(answered.compactMap(\.rttMs)), states: t.states, error: t.failure),
            roams: roams, samples: sampleReports(samples, heartbeats: t.heartbeats), locations: places,
            interfaceChanges: t.interfaceChanges.map { changes in
                changes.map {
                    WalkInterfaceChangeReport(
                        time: Timestamp.rfc3339(nanoseconds: $0.timeNs), change: $0.change, address: $0.address,
                        location: WalkAnalysis.place(at: $0.timeNs, t.marks))
                }
            }, findings: findings,
            notes: t.notes
                + (t.interfaceChanges == nil ? ["carrier and address changes were not followed (a recording without its rtnetlink part)"] : []) + seen.notes,
            signalOffsetDb: lens.signalOffsetDb, predictedRoams: seen.roams, stickyZones: seen.sticky, coverageHoles: seen.holes,
            coverage: lens.coverage(
                samples: samples, scans: t.scans, heartbeats: t.heartbeats, places: places.map(\.name), completed: t.activity?.completedScans ?? []),
            stalls: stalls.stalls,
            stallSummary: stalls.summary)
    }

    /// The walk's bad heartbeats joined with the link's nl80211 activities and rtnetlink's changes.
    static func stalls(_ t: WalkTimeline) -> StallReport {
        var log = t.activity ?? LinkActivityLog(ifindex: 0)
        for c in t.interfaceChanges ?? [] { log.add(c) }
        return StallAnalysis.explain(
            heartbeats: t.heartbeats.map { StallAnalysis.Heartbeat(sentNs: $0.sentNs, rttMs: $0.rttMs) }, timeoutMs: t.heartbeatTimeoutMs,
            activities: log.finished(at: t.endNs), scansSeen: log.scansStarted, scansRequested: log.scansRequested)
    }

    static func sampleReports(_ samples: [WalkSample], heartbeats: [WalkHeartbeat]) -> [WalkSampleReport] {
        var previous = Int64.min
        return samples.map { s in
            defer { previous = s.timeNs }
            let rtt = heartbeats.last { h in h.rttMs != nil && h.answeredNs.map { $0 > previous && $0 <= s.timeNs } == true }?.rttMs
            return WalkSampleReport(
                time: Timestamp.rfc3339(nanoseconds: s.timeNs), link: s.link, retriesPct: s.retriesPercent, rttMs: rtt.map(Kept.ms), location: s.location)
        }
    }
}
