/// What the AP does to a station that says nothing: `join --find-ap-idle`. A locked phone whose
/// push connection is quiet sends no frame for minutes; an AP with an inactivity limit (hostapd's
/// `ap_max_inactivity`, a controller's "user idle timeout") disassociates it, and the phone then
/// rejoins from nothing and its push provider starts again. The ladder leaves the station silent
/// for each rung's time in turn (pushdiag sends nothing; every frame the station sends anyway is
/// seen on the interface and restarts the silence), then checks the association with a push; the
/// first rung the AP ends is the last. What is measured is the silence itself: from the station's
/// last frame to the AP's disassociation or deauthentication, on the run's one clock.
public enum APIdle {
    /// The ladder's default rungs, seconds: 30 s to 20 minutes (hostapd's default limit is 300 s;
    /// controllers' idle timeouts are commonly 300 s as well, some longer).
    public static let defaultRungs: [Double] = [30, 60, 120, 300, 600, 900, 1200]

    /// What became of one rung.
    public enum Outcome: String, Codable, Sendable, RawValueDescribed {
        /// Silent for the whole rung, and the push after it worked without a rejoin.
        case kept
        /// The AP disassociated or deauthenticated the station: during the silence, or on its
        /// first frame after it (an AP that had forgotten the station without a word).
        case dropped
        /// The station sent frames of its own during the rung, so its longest silence fell short
        /// of the rung (that silence was kept).
        case notSilent = "not_silent"
        /// The station kept the association alive itself: keep-alives (at the AP's BSS Max Idle
        /// Period) were most of its frames, and the AP kept it. Its limit for a silent station was
        /// not reached.
        case keptAlive = "kept_alive"
        /// The station itself ended the association (its manager, not the AP).
        case stationLeft = "station_left"
        /// Silent for the whole rung, but the push after it failed without any disconnection:
        /// the association's fate is not known.
        case unverified
        /// Stopped before the rung ended.
        case interrupted
    }

    public struct Rung: Codable, Sendable, Equatable {
        public var idleS: Double
        public var outcome: Outcome
        /// The silence measured: from the station's last frame (or the rung's start) to the drop,
        /// or the rung's longest silence when nothing was dropped; seconds.
        @Nullable public var silentS: Double?
        /// The disconnection's reason code (nl80211 `DISCONNECT`), when there was one.
        @Nullable public var reason: UInt16?
        /// Frames the station sent during the silence (seen on the interface or over nl80211's
        /// control port; null and management frames are not visible to either), and how many of
        /// them were keep-alives.
        public var stationFrames: Int
        public var keepAlives: Int
        /// Frames the station sent during the silence that the interface did not show: nl80211's
        /// count of frames sent to the AP over the silence less those seen (null and management
        /// frames, such as mac80211's probes of its AP); nil when the counters could not be read.
        @Nullable public var hiddenFrames: Int?
        public var detail: String

        public init(
            idleS: Double, outcome: Outcome, silentS: Double?, reason: UInt16?, stationFrames: Int, keepAlives: Int = 0, hiddenFrames: Int? = nil,
            detail: String
        ) {
            (self.idleS, self.outcome, self.silentS, self.reason, self.stationFrames, self.keepAlives, self.hiddenFrames, self.detail) =
                (idleS, outcome, silentS, reason, stationFrames, keepAlives, hiddenFrames, detail)
        }
    }

    /// A limit on how long a device may stay silent on this path, and where it comes from.
    public struct Limit: Codable, Sendable, Equatable {
        public enum Source: String, Codable, Sendable {
            /// The BSS Max Idle Period in the AP's association response.
            case bssMaxIdle = "bss_max_idle"
            /// The ladder: the longest silence the AP was seen to keep (proven; its real limit
            /// lies between this and the drop).
            case apKept = "ap_kept"
            /// The ladder, when not even its first rung was kept: the silence the AP dropped the
            /// station after (an upper bound, not a safe value).
            case apDropped = "ap_dropped"
            /// The path's idle timeout (`--idle-timeout`, as `heartbeat --find-idle-timeout` found it).
            case pathIdleTimeout = "path_idle_timeout"

            /// For people, before the limit's value.
            public var words: String {
                switch self {
                case .bssMaxIdle: "the BSS Max Idle Period advertised"
                case .apKept: "the longest silence the AP kept"
                case .apDropped: "the AP's drop at the first rung (an upper bound)"
                case .pathIdleTimeout: "the path's idle timeout (--idle-timeout)"
                }
            }

            /// For people, short, before a value in a list (survey's and heartbeat's
            /// `--join-limits` lines): "AP kept 3.02s".
            public var label: String {
                switch self {
                case .bssMaxIdle: "BSS Max Idle advertised"
                case .apKept: "AP kept"
                case .apDropped: "AP dropped after"
                case .pathIdleTimeout: "NAT idle timeout"
                }
            }
        }
        public var source: Source
        public var seconds: Double
    }

    /// The frames of the station's own that end a silence: any it sent on the interface, and
    /// the EAPOL frames it sent over the control port.
    public static func isStationFrame(_ k: JoinEvent.Kind) -> Bool {
        switch k {
        case .stationSent, .eapolSent, .keepAliveSent: return true
        default: return false
        }
    }

    /// A Linux mac80211 station probes its AP (a null frame, or a probe request) once 30 s pass
    /// without a unicast frame from it (net/mac80211/mlme.c, IEEE80211_CONNECTION_IDLE_TIME),
    /// unless its driver monitors the connection in firmware. No packet socket sees that frame,
    /// and the AP counts it as activity: a rung kept beyond it says so.
    public static let connectionProbeS: Double = 30

    /// One rung from the events of its window (its `silenceStart` to its `rungEnd`) and the time
    /// of the station's last frame before it (`lastBefore`), from which its silence is measured;
    /// nil when the window holds no silence. A rung without its `rungEnd` was stopped.
    public static func rung(_ events: [JoinEvent], lastBefore: Int64? = nil) -> Rung? {
        guard let (t0, idle) = events.lazy.compactMap({ e -> (Int64, Double)? in if case .silenceStart(let s) = e.kind { (e.timeNs, s) } else { nil } }).first
        else { return nil }
        let after = events.filter { $0.timeNs >= t0 }
        let quietEnd = after.first { $0.kind == .silenceEnd }?.timeNs
        let ended = after.contains { $0.kind == .rungEnd }
        let answeredAt = after.first { $0.timeNs >= (quietEnd ?? .max) && $0.kind == .push(.heartbeatAnswered) }?.timeNs
        // A disconnection counts until the push after the silence was answered (one after it is
        // not the silence's doing).
        let drop = after.lazy.compactMap { e -> (Int64, UInt16?, Bool)? in if case .disconnected(let r, let byAP) = e.kind { (e.timeNs, r, byAP) } else { nil }
        }.first { $0.0 < (answeredAt ?? .max) }
        // The silence lasts until the rung's time is up or the association ends, whichever first.
        let end = [quietEnd, drop?.0].compactMap { $0 }.min()
        let sent = after.filter { isStationFrame($0.kind) && $0.timeNs < (end ?? .max) }.map(\.timeNs)
        // The silence began with the station's last frame, before the rung when it sent none in it.
        let first = min(lastBefore ?? t0, t0)
        let last = sent.last ?? first
        var longest: Int64 = 0
        if let end {
            var from = first
            for t in sent + [end] {
                longest = max(longest, t - from)
                from = t
            }
        }
        let frames = sent.count
        let keepAlives = after.filter { $0.kind == .keepAliveSent && $0.timeNs < (end ?? .max) }.count
        let spoke =
            frames == 0
            ? ""
            : "; the station sent \(NumberText.count(frames, "frame")) of its own meanwhile\(keepAlives > 0 ? " (\(NumberText.count(keepAlives, "keep-alive")))" : "")"
        // nl80211's count of what the station sent, read at the silence's start and end: what the
        // interface did not show (its first and last reads within the silence).
        let reads = after.compactMap { e -> (Int64, UInt32)? in
            if case .stationCounters(let tx) = e.kind, e.timeNs <= (end ?? .max) { (e.timeNs, tx) } else { nil }
        }
        var hidden: Int?
        if reads.count >= 2, let a = reads.first, let b = reads.last, quietEnd != nil, drop == nil {
            let seen = after.filter { isStationFrame($0.kind) && $0.timeNs >= a.0 && $0.timeNs <= b.0 }.count
            hidden = max(0, Int(b.1 &- a.1) - seen)
        }
        func rung(_ o: Outcome, _ silent: Double?, _ reason: UInt16? = nil, _ detail: String) -> Rung {
            Rung(
                idleS: idle, outcome: o, silentS: silent, reason: reason, stationFrames: frames, keepAlives: keepAlives, hiddenFrames: hidden,
                detail: detail)
        }
        if let (t, reason, byAP) = drop {
            let code = reason.map { Dot11Codes.reason(String($0)) } ?? "no reason given"
            let silent = Kept.seconds(ns: t - last)
            guard byAP else {
                return rung(.stationLeft, silent, reason, "the station itself left (reason \(code)) after \(DurationText.format(silent)) of silence\(spoke)")
            }
            if let q = quietEnd, t > q {
                // The AP had let the station go without a word: its first frame after the silence
                // was refused. Its limit is at most this silence.
                let at = Kept.seconds(ns: q - last)
                return rung(
                    .dropped, at, reason,
                    "the AP had forgotten the station: its first frame after \(DurationText.format(at)) of silence was answered by a disconnection (reason \(code)); the AP's limit is at most that\(spoke)"
                )
            }
            if reason == 7 {
                // Class 3 frame from a station not associated: a frame of the station's that no
                // packet socket saw (a connection probe) was refused during the silence.
                return rung(
                    .dropped, silent, reason,
                    "the AP refused a frame of the station's (reason \(code)) after \(DurationText.format(silent)) of silence: it had forgotten the station by then (at most that), without a word\(spoke)"
                )
            }
            return rung(
                .dropped, silent, reason, "dropped by the AP (reason \(code)) after \(DurationText.format(silent)) without a frame from the station\(spoke)")
        }
        guard let q = quietEnd, ended else {
            return rung(.interrupted, nil, nil, "stopped before the rung was over")
        }
        let failure = after.lazy.compactMap { e -> String? in
            if case .stepFailed(let s, let why) = e.kind, e.timeNs >= q { "\(s) failed: \(why)" } else { nil }
        }.first
        let kept = Kept.seconds(ns: longest)
        let probe =
            kept > connectionProbeS
            ? "; a Linux mac80211 station probes its AP after \(DurationText.format(connectionProbeS)) without a unicast frame from it (a null frame, not visible here), which the AP counts as activity"
            : ""
        if answeredAt == nil {
            return rung(
                .unverified, kept, nil,
                "no disconnection, but the push after the silence did not work (\(failure ?? "no answer")): the association's fate is not known\(spoke)")
        }
        if let h = hidden, h > 0 {
            return rung(
                .notSilent, nil, nil,
                "kept, but the station sent \(NumberText.count(h, "frame")) the interface did not show (nl80211's count of frames sent to the AP: null or management frames, such as mac80211's probes of its AP), so the AP saw it active and the silence is not known\(spoke)"
            )
        }
        // Keep-alives most of the station's frames: they kept it (an ARP reply or a DHCP renewal
        // beside them is named, not a reason to call the station busy).
        if keepAlives * 2 > frames && kept < idle {
            let others = frames - keepAlives
            let besides = others == 0 ? "" : " and \(NumberText.count(others, "other frame")) of its own"
            return rung(
                .keptAlive, kept, nil,
                "kept by the station's own keep-alives (\(keepAlives), empty frames to the AP at its BSS Max Idle Period)\(besides): the longest silence was \(DurationText.format(kept))"
            )
        }
        if frames > 0 && kept < idle {
            return rung(.notSilent, kept, nil, "kept, but the longest silence was \(DurationText.format(kept))\(spoke)\(probe)")
        }
        return rung(
            .kept, kept, nil,
            "kept: \(DurationText.format(kept)) without a frame from the station seen here, then the push worked without a rejoin\(spoke)\(probe)")
    }

    /// The rungs of a run's events (live or replayed, in any order), one per `silenceStart`, each
    /// to its `rungEnd` (or the next rung), each measured from the station's last frame before it.
    public static func rungs(_ raw: [JoinEvent]) -> [Rung] {
        let events = raw.enumerated().sorted { ($0.element.timeNs, $0.offset) < ($1.element.timeNs, $1.offset) }.map(\.element)
        let starts = events.enumerated().filter { if case .silenceStart = $0.element.kind { true } else { false } }.map(\.offset)
        return starts.enumerated().compactMap { i, s in
            let next = i + 1 < starts.count ? starts[i + 1] : events.count
            let end = events[s..<next].firstIndex { $0.kind == .rungEnd }.map { $0 + 1 } ?? next
            let before = events[..<s].last { isStationFrame($0.kind) }?.timeNs
            return rung(Array(events[s..<end]), lastBefore: before)
        }
    }
}

/// The ladder's verdict: the rungs, the limits found and the longest safe heartbeat interval (the
/// lowest of them). The JSON contract's `ap_idle`.
public struct APIdleReport: Codable, Sendable, Equatable {
    public var rungs: [APIdle.Rung]
    /// The longest silence the AP kept, and the silence it dropped the station after.
    @Nullable public var keptS: Double?
    @Nullable public var droppedAfterS: Double?
    @Nullable public var droppedReason: UInt16?
    /// Every limit known, lowest first; the first is the longest safe heartbeat interval.
    public var limits: [APIdle.Limit]
    @Nullable public var safeIntervalS: Double?
    public var interrupted: Bool

    /// The verdict from the rungs, the BSS Max Idle Period the AP advertised and the path's idle
    /// timeout (nil: not given).
    public static func conclude(rungs: [APIdle.Rung], bssMaxIdleS: Double?, pathIdleTimeoutS: Double?) -> APIdleReport {
        let kept = rungs.filter { [.kept, .notSilent, .keptAlive].contains($0.outcome) }.compactMap(\.silentS).max()
        let drop = rungs.first { $0.outcome == .dropped }
        var limits: [APIdle.Limit] = []
        if let s = bssMaxIdleS { limits.append(.init(source: .bssMaxIdle, seconds: s)) }
        // What the AP was seen to keep is safe; its drop (its check period included, or an upper
        // bound when it had forgotten the station silently) is not, and stands only when nothing
        // was kept.
        if let s = kept {
            limits.append(.init(source: .apKept, seconds: s))
        } else if let s = drop?.silentS {
            limits.append(.init(source: .apDropped, seconds: s))
        }
        if let s = pathIdleTimeoutS { limits.append(.init(source: .pathIdleTimeout, seconds: s)) }
        limits.sort { $0.seconds < $1.seconds }
        return APIdleReport(
            rungs: rungs, keptS: kept, droppedAfterS: drop?.silentS, droppedReason: drop?.reason, limits: limits, safeIntervalS: limits.first?.seconds,
            interrupted: rungs.contains { $0.outcome == .interrupted })
    }

    /// What the ladder found, in words: at most one finding.
    public var findings: [Finding] {
        func text(_ s: Double) -> String { DurationText.format(s) }
        let advertised = limits.first { $0.source == .bssMaxIdle }?.seconds
        let safe = safeIntervalS.map { "; the longest safe heartbeat interval on this path is \(text($0)) (\(limits.first!.source.words))" } ?? ""
        if let d = droppedAfterS {
            let code = droppedReason.map { Dot11Codes.reason(String($0)) } ?? "no reason"
            if let a = advertised, d < a {
                return [
                    Finding(
                        check: .apIdle, severity: .warning, subject: "the AP", value: d, threshold: a, unit: .seconds, source: "ap_idle_ladder",
                        message:
                            "the AP dropped a silent station after \(text(d)) (reason \(code)), sooner than the \(text(a)) BSS Max Idle Period it advertises: a device that keeps alive at the advertised period is still dropped\(safe)"
                    )
                ]
            }
            return [
                Finding(
                    check: .apIdle, severity: .ok, subject: "the AP", value: d, threshold: advertised, unit: .seconds, source: "ap_idle_ladder",
                    message:
                        "the AP dropped the station after \(text(d)) of silence (reason \(code))\(keptS.map { ", having kept \(text($0))" } ?? ""): its limit lies between; a phone whose push connection is quieter than that rejoins from nothing\(safe)"
                )
            ]
        }
        if let k = keptS, rungs.contains(where: { $0.outcome == .keptAlive }) {
            return [
                Finding(
                    check: .apIdle, severity: .ok, subject: "the AP", value: k, threshold: advertised, unit: .seconds, source: "ap_idle_ladder",
                    message:
                        "the station kept itself associated with keep-alives at the AP's BSS Max Idle Period, and the AP kept it (the longest silence \(text(k))); a phone that keeps alive the same way is kept, one that does not meets the AP's limit for a silent station, which was not reached\(safe)"
                )
            ]
        }
        if let k = keptS {
            return [
                Finding(
                    check: .apIdle, severity: .ok, subject: "the AP", value: k, threshold: advertised, unit: .seconds, source: "ap_idle_ladder",
                    message:
                        "the AP kept a station silent for \(text(k)), the longest silence tried\(interrupted ? " before the ladder was interrupted" : "")\(safe)"
                )
            ]
        }
        return [
            Finding(
                check: .apIdle, severity: .unknown, subject: "the AP", value: nil, threshold: nil, unit: .seconds, source: "ap_idle_ladder",
                message: "no rung was silent and checked: nothing was measured (see the rungs)")
        ]
    }
}
