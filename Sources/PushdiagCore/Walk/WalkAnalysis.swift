/// `pushdiag walk` (issue 11), the part a test can feed as values: a link sampled over nl80211,
/// the link's moves (roams, or a disconnect and a connect), the push connection's heartbeats and
/// reconnects, and the places the engineer named, all on one clock (nanoseconds since the
/// epoch) → each move joined with what the push connection saw around it, graded; a summary per
/// place; the iPhone's view of the signal. The IO side collects the timeline; this decides.

/// What the link said at a sample (nl80211's station and interface): the fields a sample and
/// its report (`WalkSampleReport`) share, written once. A new reading of the link is a line here
/// and where `WalkLink` fills it; the report's JSON carries it beside the report's own keys.
public struct WalkLinkReading: Codable, Sendable, Equatable {
    @Nullable public var bssid: MACAddress?
    @Nullable public var ssid: String?
    @Nullable public var freqMhz: Int?
    @Nullable public var signalDbm: Int?
    /// The driver's running average of the signal.
    @Nullable public var signalAverageDbm: Int?
    @Nullable public var txBitrateMbps: Double?
    /// Failed transmissions since the previous sample (nil: the driver keeps none, or this is the
    /// first sample on this AP).
    @Nullable public var txFailed: UInt64?

    /// The signal the walk judges and the lens roams on, as survey and the exporter do
    /// (`NL80211.Station.roamSignal`): the average where the driver keeps one, else the last
    /// frame's.
    public var roamSignalDbm: Int? { signalAverageDbm ?? signalDbm }
}

/// A sample of the link: its reading (`link`, whose fields read as the sample's own:
/// `sample.signalDbm`) and the counters the report turns into a share.
@dynamicMemberLookup
public struct WalkSample: Sendable, Equatable {
    public var timeNs: Int64
    public var link: WalkLinkReading
    /// Retries and frames sent to the AP since the previous sample (nil: the driver keeps none,
    /// or this is the first sample on this AP).
    public var retries: UInt64?
    public var packets: UInt64?
    public var location: String

    public subscript<T>(dynamicMember path: WritableKeyPath<WalkLinkReading, T>) -> T {
        get { link[keyPath: path] }
        set { link[keyPath: path] = newValue }
    }
    public subscript<T>(dynamicMember path: KeyPath<WalkLinkReading, T>) -> T { link[keyPath: path] }

    /// Retries per frame sent since the previous sample, percent; nil when either is not
    /// reported or nothing was sent (the report's column and the live line).
    public var retriesPercent: Double? { retries.flatMap { r in packets.flatMap { NumberText.percent(r, of: $0) } } }

    public init(
        timeNs: Int64, bssid: MACAddress? = nil, ssid: String? = nil, freqMhz: Int? = nil, signalDbm: Int? = nil, txBitrateMbps: Double? = nil,
        retries: UInt64? = nil, packets: UInt64? = nil, location: String = "", signalAverageDbm: Int? = nil,
        txFailed: UInt64? = nil
    ) {
        self.timeNs = timeNs
        link = WalkLinkReading(
            bssid: bssid, ssid: ssid, freqMhz: freqMhz, signalDbm: signalDbm, signalAverageDbm: signalAverageDbm, txBitrateMbps: txBitrateMbps,
            txFailed: txFailed)
        self.retries = retries
        self.packets = packets
        self.location = location
    }
}

/// A move of the link: a roam, or a disconnect followed by a connect.
public struct WalkLinkChange: Sendable, Equatable {
    /// When the link came back (the connect or roam event).
    public var timeNs: Int64
    public var fromBssid: MACAddress?
    public var toBssid: MACAddress?
    public var fromSsid: String?
    public var toSsid: String?
    public var fromFreqMhz: Int?
    public var toFreqMhz: Int?
    /// A completed 802.11r fast transition, from the authentication algorithm or the event; nil
    /// when not known.
    public var fastTransition: Bool?
    /// Disconnect to connect, from nl80211 (0 for a roam event without a gap); for a failed fast
    /// transition, leaving the old AP to the fresh association.
    public var linkGapMs: Double?
    /// The move began as a fast transition; nil when not known.
    public var fastTransitionAttempt: Bool?
    /// Why the fast transition failed and what followed.
    public var fastTransitionFailure: FastTransitionFailure?

    /// The link gap as reports keep it, to the microsecond: what the grade compares and every
    /// report, reason and log line says (each formats this, never `linkGapMs`).
    public var keptLinkGapMs: Double? { linkGapMs.map(Kept.ms) }

    /// The bands before and after, when both frequencies were reported and their bands differ.
    public var bandChange: (from: WiFiBand, to: WiFiBand)? { WiFiBand.change(fromMhz: fromFreqMhz, toMhz: toFreqMhz) }
}

extension WalkLinkChange {
    /// A move as an nl80211 event says it (a roam, or the connect that ends an outage): where
    /// the station went and how, from the event; where it came from as the caller knew it before
    /// the move (the walk keeps the disconnect and the frequencies; the exporter takes the event's).
    public init(_ e: WatchEvent, fromBssid: MACAddress?, fromSsid: String?, toSsid: String?, fromFreqMhz: Int? = nil, toFreqMhz: Int? = nil) {
        self.init(
            timeNs: e.timeNs, fromBssid: fromBssid, toBssid: e.bssid, fromSsid: fromSsid, toSsid: toSsid, fromFreqMhz: fromFreqMhz, toFreqMhz: toFreqMhz,
            fastTransition: e.fastTransition, linkGapMs: e.gapMs, fastTransitionAttempt: e.fastTransitionAttempt,
            fastTransitionFailure: e.fastTransitionFailure)
    }

    /// A disconnect never followed by a connect: a move to nowhere, from `fromFreqMhz`.
    public init(disconnect d: WatchEvent, fromFreqMhz: Int?) {
        self.init(timeNs: d.timeNs, fromBssid: d.bssid, toBssid: nil, fromSsid: d.ssid, toSsid: nil, fromFreqMhz: fromFreqMhz)
    }
}

/// How a move went, as the exporter's `result` label says it: completed by 802.11r, an 802.11r
/// attempt that failed and fell back, or any other roam.
public enum RoamResult: String, CaseIterable, Sendable {
    case fastTransition = "fast_transition"
    case fastTransitionFailed = "fast_transition_failed"
    case other

    public init(_ c: WalkLinkChange) {
        self = c.fastTransitionFailure != nil ? .fastTransitionFailed : c.fastTransition == true ? .fastTransition : .other
    }
}

/// One heartbeat of the held push connection.
public struct WalkHeartbeat: Sendable, Equatable {
    public var sentNs: Int64
    /// Round trip when answered; nil when not answered within the timeout.
    public var rttMs: Double?
    public init(sentNs: Int64, rttMs: Double?) {
        self.sentNs = sentNs
        self.rttMs = rttMs
    }
    var answeredNs: Int64? { rttMs.map { sentNs + Int64($0 * 1e6) } }
}

/// A reconnect of the push connection after a loss: when it ended, how long re-establishing took
/// (from the loss), in how many attempts, and whether it succeeded.
public struct WalkReconnect: Sendable, Equatable {
    public var timeNs: Int64
    public var ms: Double
    public var attempts: Int
    public var succeeded: Bool
    public init(timeNs: Int64, ms: Double, attempts: Int, succeeded: Bool) {
        self.timeNs = timeNs
        self.ms = ms
        self.attempts = attempts
        self.succeeded = succeeded
    }
}

/// Where the engineer said they were from `timeNs` on.
public struct WalkPlaceMark: Sendable, Equatable {
    public var timeNs: Int64
    public var name: String
    /// `name` printable (`PrintableText`: a recording's, or typed).
    public init(timeNs: Int64, name: String) {
        self.timeNs = timeNs
        self.name = PrintableText.escape(name)
    }
}

/// Limits for roams and signal, the walk's rows of `ThresholdRow` as plain numbers.
public struct WalkThresholds: Sendable, Equatable {
    /// Link gap of a fast transition (802.11r) and of any other roam: ok up to the warning.
    public var fastTransitionWarningMs = ThresholdRow.ftGap.warning
    public var fastTransitionCriticalMs = ThresholdRow.ftGap.critical!
    public var roamWarningMs = ThresholdRow.roamGap.warning
    public var roamCriticalMs = ThresholdRow.roamGap.critical!
    /// As given (-67.5 stays -67.5: a sample of -68 dBm is below it); samples are whole dBm.
    public var signalWarningDbm = ThresholdRow.signal.warning
    public var signalCriticalDbm = ThresholdRow.signal.critical!
    /// Sticky client: this long below the critical signal while a BSS of the same SSID is this
    /// much stronger (iOS's margin while passing traffic: a phone there would have moved).
    public var stickySeconds: Double = 5
    public var stickyMarginDb = Int(IOSRoamingRule.marginWithTraffic.value)
    /// An answer later than this is late (a device would feel it): the rtt row's critical limit.
    public var lateMs: Double = ThresholdRow.rtt.critical!
    public init() {}

    /// The signal's critical limit is iOS's roam trigger (as by default): only then is it said
    /// to be where iOS looks for another BSS.
    public var signalCriticalIsIOSTrigger: Bool { signalCriticalDbm == IOSRoamingRule.trigger.value }

    /// The link-gap limits a move is graded by: a fast transition's, or any other move's.
    public func gapLimits(fastTransition: Bool?) -> (warning: Double, critical: Double) {
        fastTransition == true ? (fastTransitionWarningMs, fastTransitionCriticalMs) : (roamWarningMs, roamCriticalMs)
    }

    /// The limit a link gap of `gapMs` is graded against: the critical one when the gap is above
    /// it, else the warning one. Every text of a gap prints it beside this limit.
    public func gapLimit(_ gapMs: Double, fastTransition: Bool?) -> Double {
        let (warning, critical) = gapLimits(fastTransition: fastTransition)
        return Thresholds.gradedAgainst(gapMs, warning: warning, critical: critical)
    }

    /// Limits from `values` (flags over the configuration, by config key) over the defaults; the
    /// problem in words when they contradict each other (`flags`: the keys flags set, named so).
    public static func resolve(_ values: [String: Double], flags: Set<String>? = nil) -> Result<WalkThresholds, SettingsError> {
        if let problem = ThresholdRow.problem(values, in: .walk, flags: flags) { return .failure(problem) }
        var t = WalkThresholds()
        t.fastTransitionWarningMs = values[ThresholdRow.ftGap.key(.warning)] ?? t.fastTransitionWarningMs
        t.fastTransitionCriticalMs = values[ThresholdRow.ftGap.key(.critical)] ?? t.fastTransitionCriticalMs
        t.roamWarningMs = values[ThresholdRow.roamGap.key(.warning)] ?? t.roamWarningMs
        t.roamCriticalMs = values[ThresholdRow.roamGap.key(.critical)] ?? t.roamCriticalMs
        t.signalWarningDbm = values[ThresholdRow.signal.key(.warning)] ?? t.signalWarningDbm
        t.signalCriticalDbm = values[ThresholdRow.signal.key(.critical)] ?? t.signalCriticalDbm
        return .success(t)
    }
}

/// What became of the held push connection across a move.
public enum MoveConnection: String, Codable, Sendable, RawValueDescribed {
    case kept, reconnected, lost
}

public struct WalkRoamReport: Codable, Sendable, Equatable {
    public var time: String
    @Nullable public var fromBssid: MACAddress?
    @Nullable public var toBssid: MACAddress?
    @Nullable public var fromSsid: String?
    @Nullable public var toSsid: String?
    @Nullable public var fromFreqMhz: Int?
    @Nullable public var toFreqMhz: Int?
    public var bandChanged: Bool
    /// A completed fast transition (802.11r).
    @Nullable public var fastTransition: Bool?
    /// The move began as a fast transition, completed or not.
    @Nullable public var fastTransitionAttempt: Bool?
    /// Why the fast transition failed (stage, status or reason code) and the fallback.
    @Nullable public var fastTransitionFailure: FastTransitionFailure?
    @Nullable public var linkGapMs: Double?
    /// The limit the link gap was graded against: the critical one when the gap is above it, else
    /// the warning one (null when no gap was reported).
    @Nullable public var linkGapLimitMs: Double?
    /// Last answered heartbeat before to first answered after.
    @Nullable public var pushGapMs: Double?
    public var heartbeatsLost: Int
    public var heartbeatsLate: Int
    public var connection: MoveConnection
    @Nullable public var reconnectMs: Double?
    @Nullable public var reconnectAttempts: Int?
    /// The interface's address changed across the move (rtnetlink): every TCP connection on the
    /// old address is gone.
    public var addressChanged: Bool
    /// ok, warning or critical.
    public var grade: Severity
    /// Why the grade, in words.
    public var reason: String
    public var location: String

    /// The link gap in ms as the tables print it: beside the limit it was graded against, so a
    /// gap just above a limit never reads as the limit (`NumberText.format(_:beside:)`).
    public var linkGapText: String? {
        linkGapMs.map { gap in linkGapLimitMs.map { NumberText.format(gap, beside: $0) } ?? NumberText.format(gap) }
    }
}

public struct WalkPlaceReport: Codable, Sendable, Equatable {
    public var name: String
    public var samples: Int
    @Nullable public var signalMedianDbm: Double?
    @Nullable public var signalMinDbm: Int?
    @Nullable public var retriesPct: Double?
    @Nullable public var rttP95Ms: Double?
    public var heartbeatsLost: Int
    public var roams: Int
}

public enum WalkAnalysis {
    /// When the loss a reconnect followed began: the first of the unanswered heartbeats sent in a
    /// row before the session gave up (its end minus the time re-establishing took), or that
    /// moment itself when the connection closed with no heartbeat unanswered.
    static func lossStart(_ r: WalkReconnect, _ heartbeats: [WalkHeartbeat]) -> Int64 {
        let gaveUp = r.timeNs - Int64(r.ms * 1e6)
        var start = gaveUp
        for h in heartbeats.filter({ $0.sentNs <= gaveUp }).sorted(by: { $0.sentNs > $1.sentNs }) {
            guard h.rttMs == nil else { break }
            start = h.sentNs
        }
        return start
    }

    /// The place at `t`: the last mark at or before it ("" before the first).
    public static func place(at t: Int64, _ marks: [WalkPlaceMark]) -> String {
        marks.last { $0.timeNs <= t }?.name ?? ""
    }

    /// Each move joined with the push connection around it, and graded.
    public static func roams(
        _ changes: [WalkLinkChange], heartbeats: [WalkHeartbeat], reconnects: [WalkReconnect], places: [WalkPlaceMark],
        endNs: Int64, interface: [WalkInterfaceChange] = [], t: WalkThresholds = WalkThresholds()
    ) -> [WalkRoamReport] {
        let sorted = changes.sorted { $0.timeNs < $1.timeNs }
        let linkDowns = sorted.map { $0.timeNs - Int64(($0.linkGapMs ?? 0) * 1e6) }
        let lossStarts = reconnects.map { lossStart($0, heartbeats) }
        return sorted.enumerated().map { i, c in
            let linkDown = linkDowns[i]
            let nextMove = i + 1 < sorted.count ? sorted[i + 1].timeNs : endNs
            let before = heartbeats.filter { ($0.answeredNs ?? .max) <= linkDown }.map { $0.answeredNs! }.max()
            // The first answer after, before the next move (a later one belongs to that move).
            let after = heartbeats.filter { $0.sentNs >= linkDown && $0.sentNs < nextMove && $0.answeredNs != nil }.map { $0.answeredNs! }.min()
            let pushGap = before.flatMap { b in after.map { Double($0 - b) / 1e6 } }
            // The heartbeats in flight across the move: sent after the last answer before it and
            // before the first answer after it.
            let from = before ?? linkDown
            let to = after ?? nextMove
            let across = heartbeats.filter { $0.sentNs > from && $0.sentNs <= to }
            let lost = across.filter { $0.rttMs == nil }.count
            let late = across.filter { ($0.rttMs ?? 0) > t.lateMs }.count
            // What became of the connection: a reconnect whose loss began after this move's link
            // went down and before the next move's did. The loss began with the first of the
            // unanswered heartbeats that made the session give up (it is found a few heartbeats
            // later, by which time the next move may have ended); a heartbeat sent up to a second
            // before the link went down counts as sent across it.
            let nextLinkDown = i + 1 < sorted.count ? linkDowns[i + 1] : endNs
            let reconnect = reconnects.indices.first {
                lossStarts[$0] >= linkDown - 1_000_000_000 && lossStarts[$0] < nextLinkDown - 1_000_000_000
            }.map { reconnects[$0] }
            let connection: MoveConnection
            switch reconnect {
            case .some(let r) where r.succeeded: connection = .reconnected
            case .some: connection = .lost
            case .none: connection = after != nil || reconnects.allSatisfy({ $0.timeNs < linkDown }) && lost == 0 ? .kept : .lost
            }
            // An address changed from a second before the link went down to the next move.
            let addresses = interface.filter { $0.isAddress && $0.timeNs >= linkDown - 1_000_000_000 && $0.timeNs < nextMove }
            var (grade, why) = Self.grade(c, connection: connection, t: t)
            if !addresses.isEmpty {
                let what = addresses.map { "\($0.change == .addressAdded ? "+" : "-")\($0.address ?? "?")" }.joined(separator: " ")
                grade = max(grade, .warning)
                why.append("the interface's address changed (\(what)): connections on the old one are gone")
            }
            let reason = Self.reason(why)
            return WalkRoamReport(
                time: Timestamp.rfc3339(nanoseconds: c.timeNs), fromBssid: c.fromBssid, toBssid: c.toBssid, fromSsid: c.fromSsid, toSsid: c.toSsid,
                fromFreqMhz: c.fromFreqMhz, toFreqMhz: c.toFreqMhz, bandChanged: c.bandChange != nil, fastTransition: c.fastTransition,
                fastTransitionAttempt: c.fastTransitionAttempt, fastTransitionFailure: c.fastTransitionFailure,
                linkGapMs: c.keptLinkGapMs, linkGapLimitMs: c.keptLinkGapMs.map { t.gapLimit($0, fastTransition: c.fastTransition) },
                pushGapMs: pushGap.map(Kept.ms),
                heartbeatsLost: lost, heartbeatsLate: late, connection: connection,
                reconnectMs: reconnect.map { Kept.ms($0.ms) }, reconnectAttempts: reconnect?.attempts,
                addressChanged: !addresses.isEmpty, grade: grade, reason: reason, location: place(at: c.timeNs, places))
        }
    }

    /// A fast transition is ok up to 80 ms of link gap, a warning up to 150 ms, critical above;
    /// any other roam ok up to 100 ms, a warning up to 300 ms. A change of SSID, or of band on
    /// one SSID, is at least a warning (an iPhone may drop its push provider there); a roam whose
    /// connection was not kept is critical. The reasons are the grade's, each a phrase (none
    /// when the move is within the limits).
    public static func grade(_ c: WalkLinkChange, connection: MoveConnection, t: WalkThresholds) -> (Severity, [String]) {
        var grade = Severity.ok
        var why: [String] = []
        let ft = c.fastTransition == true
        let (warn, crit) = t.gapLimits(fastTransition: c.fastTransition)
        let kind =
            c.fromBssid != nil && c.fromBssid == c.toBssid
            ? "a drop and return to the same AP"
            : c.fastTransitionFailure != nil
                ? "a failed fast transition"
                : ft ? "a fast transition" : c.fastTransition == false ? "a roam without 802.11r" : "a roam not known to be 802.11r"
        if let gap = c.keptLinkGapMs, let said = gapText(c, t: t), let (severity, limit) = Thresholds.grade(gap, warning: warn, critical: crit) {
            grade = severity
            why.append("link gap \(said) ms, above \(NumberText.format(limit)) ms for \(kind)")
        }
        if c.fromSsid != nil, c.toSsid != nil, c.fromSsid != c.toSsid {
            grade = max(grade, .warning)
            why.append("the SSID changed (\(c.fromSsid!) → \(c.toSsid!))")
        } else if let (from, to) = c.bandChange {
            grade = max(grade, .warning)
            why.append("the band changed on one SSID (\(from) → \(to)): iOS has stopped push providers there")
        }
        if let f = c.fastTransitionFailure {
            grade = max(grade, .warning)
            why.append("a fast transition that failed (\(Self.describe(f))) and fell back to \(f.fallback.map(Self.describe) ?? "an association not reported")")
        }
        if connection != .kept {
            grade = .critical
            why.append(connection == .lost ? "the push connection was lost" : "the push connection had to reconnect")
        }
        return (grade, why)
    }

    /// A move's link gap in ms as every text says it: the kept gap, with the decimals that show
    /// it is above the limit it is above (or at or under the warning one).
    public static func gapText(_ c: WalkLinkChange, t: WalkThresholds) -> String? {
        guard let gap = c.keptLinkGapMs else { return nil }
        return NumberText.format(gap, beside: t.gapLimit(gap, fastTransition: c.fastTransition))
    }

    /// A move's reasons as the walk's report and the exporter's log say them: joined by "; ", or
    /// "within the limits" when there are none.
    public static func reason(_ why: [String]) -> String { why.isEmpty ? "within the limits" : why.joined(separator: "; ") }

    /// A fast transition's failure in words: the stage and its code.
    public static func describe(_ f: FastTransitionFailure) -> String {
        let by = f.targetBssid.map { " by \($0)" } ?? ""
        let with = f.targetBssid.map { " with \($0)" } ?? ""
        switch f.stage {
        case .authentication: return "FT authentication refused\(by)" + (f.statusCode.map { ", status \($0)" } ?? "")
        case .reassociation: return "reassociation refused\(by)" + (f.statusCode.map { ", status \($0)" } ?? "")
        case .keys:
            return "the keys\(with) never held: dropped" + (f.reasonCode.map { ", reason \($0)" } ?? "")
                + (f.byAp.map { $0 ? " by the AP" : " by the station" } ?? "")
        }
    }

    /// How the station joined again, in words.
    public static func describe(_ f: FastTransitionFailure.Fallback) -> String {
        switch f {
        case .open: return "a full authentication (open system)"
        case .sharedKey: return "a full authentication (shared key)"
        case .fastTransition: return "another fast transition"
        case .sae: return "a full SAE authentication"
        case .fils: return "a FILS authentication"
        }
    }

    /// One row per place, in the order the places were first seen.
    public static func places(samples: [WalkSample], heartbeats: [WalkHeartbeat], roams: [WalkRoamReport], marks: [WalkPlaceMark]) -> [WalkPlaceReport] {
        var names: [String] = []
        for n in samples.map(\.location) + marks.map(\.name) where !names.contains(n) { names.append(n) }
        return names.map { name in
            let s = samples.filter { $0.location == name }
            let signals = s.compactMap(\.roamSignalDbm).sorted()
            let median = NumberText.median(sorted: signals.map(Double.init))
            let (retries, packets) = retryCounts(s)
            let hb = heartbeats.filter { place(at: $0.sentNs, marks) == name }
            return WalkPlaceReport(
                name: name, samples: s.count, signalMedianDbm: median, signalMinDbm: signals.first,
                retriesPct: NumberText.percent(retries, of: packets),
                rttP95Ms: RTTSummary.of(hb.compactMap(\.rttMs))?.p95, heartbeatsLost: hb.filter { $0.rttMs == nil }.count,
                roams: roams.filter { $0.location == name }.count)
        }
    }

    /// Retries and frames sent over the samples that have both counters: a driver whose retries
    /// are not believed has none, and its packets alone are no ratio (UNKNOWN, not 0%). What a
    /// place's retry share is over, and what its finding counts.
    static func retryCounts(_ samples: [WalkSample]) -> (retries: UInt64, packets: UInt64) {
        let counted = samples.filter { $0.retries != nil && $0.packets != nil }
        return (counted.compactMap(\.retries).reduce(0, +), counted.compactMap(\.packets).reduce(0, +))
    }

    /// The iPhone's view of the signal: samples below the warning and critical levels, and a
    /// sticky client (longer than `stickySeconds` below the critical level while the scan cache's
    /// fresh entries, those at most `staleAfterMs` old, hold a BSS of the same SSID at least
    /// `stickyMarginDb` stronger: `clinging`); `completed`: the scans whose results came.
    public static func signalFindings(
        _ samples: [WalkSample], scans: [WalkScan], t: WalkThresholds = WalkThresholds(), staleAfterMs: Double = IOSRoamingRule.staleAfter.value,
        completed: [CompletedScan] = []
    ) -> [Finding] {
        var out: [Finding] = []
        let weak = samples.filter { Double($0.roamSignalDbm ?? 0) < t.signalWarningDbm }
        if let worst = weak.min(by: { $0.roamSignalDbm! < $1.roamSignalDbm! }) {
            let critical = weak.filter { Double($0.roamSignalDbm!) < t.signalCriticalDbm }.count
            let severity: Severity = critical > 0 ? .critical : .warning
            let limit = critical > 0 ? t.signalCriticalDbm : t.signalWarningDbm
            out.append(
                Finding(
                    check: .signal, severity: severity, subject: worst.location.isEmpty ? "walk" : worst.location, value: Double(worst.roamSignalDbm!),
                    threshold: Double(limit), unit: .dBm, source: SignalSource.station.rawValue,
                    message:
                        "\(weak.count) of \(NumberText.count(samples.count, "sample")) below \(NumberText.format(t.signalWarningDbm)) dBm (\(critical) below \(NumberText.format(t.signalCriticalDbm)) dBm\(t.signalCriticalIsIOSTrigger ? ", where iOS looks for another BSS" : "")); weakest \(worst.roamSignalDbm!) dBm"
                        + (worst.location.isEmpty ? "" : " at \(worst.location)")))
        }
        // Sticky: a run of clinging samples on one AP (a roam starts another); a sample that
        // cannot say neither extends nor ends it.
        var runStart: WalkSample?
        var longest: (WalkSample, WalkSample)?
        for v in IPhoneLens(staleAfterMs: staleAfterMs).views(samples, scans: scans, heartbeats: [], completed: completed) {
            let s = v.sample
            switch clinging(v, t) {
            case .clings:
                if runStart == nil || runStart?.bssid != s.bssid { runStart = s }
                if let a = runStart, longest.map({ s.timeNs - a.timeNs > $0.1.timeNs - $0.0.timeNs }) ?? true { longest = (a, s) }
            case .no: runStart = nil
            case .cannotSay: if runStart?.bssid != s.bssid { runStart = nil }
            }
        }
        if let (a, b) = longest, case let seconds = Kept.seconds(ns: b.timeNs - a.timeNs), seconds > t.stickySeconds {
            out.append(
                Finding(
                    check: .stickyClient, severity: .warning, subject: a.location.isEmpty ? "walk" : a.location, value: seconds,
                    threshold: t.stickySeconds, unit: .seconds, source: "station_and_scan",
                    message:
                        "\(NumberText.format(seconds, beside: t.stickySeconds)) s below \(NumberText.format(t.signalCriticalDbm)) dBm on \(a.bssid?.description ?? "the AP") while a BSS of the same SSID was \(t.stickyMarginDb) dB or more stronger: this card holds on to a far AP"
                        // Only where the limits are iOS's own (below its trigger, at least its
                        // margin while passing traffic) is that what an iPhone would do.
                        + (t.signalCriticalIsIOSTrigger && Double(t.stickyMarginDb) >= IOSRoamingRule.marginWithTraffic.value
                            ? " (an iPhone would have moved)" : "")
                ))
        }
        return out
    }

    /// Whether the card clings at this sample (`IPhoneLens.View.clinging`): on an AP below the
    /// critical level while a fresh scan entry of the SSID (another BSS, its signal believed) is
    /// `stickyMarginDb` or more stronger; the strongest such entry is the pick.
    static func clinging(_ v: IPhoneLens.View, _ t: WalkThresholds) -> IPhoneLens.Clinging<Double> {
        v.clinging(below: t.signalCriticalDbm, offset: 0) { mine, candidates in
            candidates.map(\.dbm).max().flatMap { $0 >= mine + Double(t.stickyMarginDb) ? $0 : nil }
        }
    }
}
