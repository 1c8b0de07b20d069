/// Through the iPhone's eyes (issue 29): a walk measures the laptop, which roams by its own
/// supplicant's rules. The lens follows an imagined iPhone along the same samples with iOS's
/// rules (`IOSRoamingRule`): where it would roam and why, where it would cling to a weak BSS
/// (or the laptop clung where it would leave), and where the SSID has no BSS to hold on to.
/// Signals are the laptop's, moved by `signalOffsetDb` (the phone's reading minus the laptop's,
/// measured on site with the phone beside the laptop).
public struct IPhoneLens: Sendable {
    public var signalOffsetDb: Double
    public var staleAfterMs: Double

    public init(signalOffsetDb: Double = 0, staleAfterMs: Double = IOSRoamingRule.staleAfter.value) {
        self.signalOffsetDb = signalOffsetDb
        self.staleAfterMs = staleAfterMs
    }

    /// What the lens saw at one sample: the phone's BSS and its signal, the fresh candidates of
    /// the SSID (the laptop's own BSS with its station signal, which is fresher than its scan
    /// entry), every fresh entry of any SSID, and whether the phone was passing traffic.
    struct View {
        var sample: WalkSample
        var fresh: [WalkBSS]
        /// When the laptop left each BSS it was on before this sample (the first sample not on it).
        var left: [MACAddress: Int64] = [:]
        /// Scans whose results came within the lens's age limit before the sample and before the
        /// cache read it sees (NEW_SCAN_RESULTS), whatever they heard, and the channels they said
        /// they covered.
        var scansCompleted = 0
        var scanChannels: Set<Int> = []
        /// A scan's results came after the cache read the sample sees, and at or before the
        /// sample: what it heard is not in the read (a BSS it heard stronger, or not at all), so
        /// the read is not what the laptop's cache held then.
        var superseded = false
        /// A read of the scan cache at or before the sample (its entries' capabilities, fresh or not).
        var lastRead: WalkScan?
        var traffic: Bool
        /// The SSID the laptop said last, at or before the sample (nil while disconnected from the
        /// start).
        var ssid: String?

        /// The fresh entries a scan put there: not the laptop's BSS, whose entry its beacons keep
        /// fresh while associated, scan or none; not a BSS it left as its beacons last kept it
        /// (heard no later than it left), only as a scan heard it since. Empty: no scan reached
        /// this sample (unless a scan's results came, `reached`). (A beacon that carries other BSSes,
        /// 802.11ax's multiple BSSID, refreshes those too: a sibling BSS on the laptop's AP
        /// counts as scanned.)
        var scanned: [WalkBSS] {
            fresh.filter { e in
                guard e.bssid != sample.bssid else { return false }
                guard let at = left[e.bssid], let age = e.ageMs else { return true }
                return Double(sample.timeNs - at) / 1e6 > age
            }
        }

        /// A scan reached this sample lately: its results came (`scansCompleted`), or an entry
        /// a scan put there is fresh (`scanned`); and the read it sees holds the last scan's
        /// results (not `superseded`). Else the lens judges nothing on it.
        var reached: Bool { !superseded && (scansCompleted > 0 || !scanned.isEmpty) }

        /// Every BSS of the SSID the view holds has a signal: the laptop's (its station signal, or
        /// its entry's) and each fresh entry's. Else a hole or a coverage count would leave out a
        /// BSS whose level is not known (a driver whose signal is not believed gives none).
        var ssidSignalsKnown: Bool {
            if let b = sample.bssid, signal(b, offset: 0) == nil { return false }
            guard let ssid else { return true }
            // The laptop's own entry counts by its station signal, known here.
            return fresh.allSatisfy { $0.ssid != ssid || $0.signalDbm != nil || $0.bssid == sample.bssid }
        }

        /// The signal of `bssid` at this sample, offset: the station's own for the laptop's BSS,
        /// else the fresh scan entry's; nil when neither is known.
        func signal(_ bssid: MACAddress, offset: Double) -> Double? {
            if bssid == sample.bssid, let s = sample.roamSignalDbm { return Double(s) + offset }
            return fresh.first { $0.bssid == bssid }?.signalDbm.map { $0 + offset }
        }

        /// Whether the station clings to its BSS at this sample where `rule` would leave it: below
        /// `level` (offset signals), `rule` picks among the SSID's other fresh candidates. The
        /// one tri-state of the walk's sticky-client rule and the lens's laptop_stays zone: a
        /// sample that cannot say neither extends nor ends a run (a move to another BSS does).
        func clinging<Pick>(below level: Double, offset: Double, rule: (Double, [(bss: WalkBSS, dbm: Double)]) -> Pick?) -> Clinging<Pick> {
            guard let b = sample.bssid else { return .no }
            guard let mine = signal(b, offset: offset) else { return .cannotSay }
            guard mine < level else { return .no }
            // A fresh candidate the rule takes, heard by a scan or by the laptop while it was on it.
            if let pick = rule(mine, candidates(besides: b, ssid: ssid, offset: offset)) { return .clings(signal: mine, pick: pick) }
            // Nothing qualifies: without a scan lately, or with a BSS of the SSID whose signal is
            // not known (it might qualify), not known.
            guard reached, ssidSignalsKnown else { return .cannotSay }
            // Nothing fresh qualifies. A BSS of the SSID that no scan reached lately and that the
            // rule took when it was last heard may take it still: not known. Else no.
            return rule(mine, unreached(besides: b, offset: offset)) == nil ? .no : .cannotSay
        }

        /// The SSID's BSSes other than `bssid` and the laptop's that the cache holds but no scan
        /// reached lately: stale, on a channel that no completed scan said it covered and with no
        /// `scanned` entry (a channel with either was scanned, and did not hear them), or of no
        /// known channel. Their signals are as last heard, offset; what they are now is not known.
        func unreached(besides bssid: MACAddress?, offset: Double) -> [(bss: WalkBSS, dbm: Double)] {
            guard let ssid, let read = lastRead else { return [] }
            let channels = Set(scanned.compactMap(\.freqMhz)).union(scanChannels)
            // A set: a site's cache holds hundreds of entries, walked at every sample.
            let heard = Set(fresh.map(\.bssid))
            return read.entries.compactMap { e in
                guard e.ssid == ssid, e.bssid != bssid, e.bssid != sample.bssid, !heard.contains(e.bssid),
                    e.freqMhz.map({ !channels.contains($0) }) ?? true, let dbm = e.signalDbm
                else { return nil }
                return (e, dbm + offset)
            }
        }

        /// The SSID's BSSes other than `bssid` with a known signal now, offset.
        func candidates(besides bssid: MACAddress?, ssid: String?, offset: Double) -> [(bss: WalkBSS, dbm: Double)] {
            guard let ssid else { return [] }
            var seen: Set<MACAddress> = []
            var out: [(WalkBSS, Double)] = []
            if let b = sample.bssid, b != bssid, (sample.ssid ?? ssid) == ssid, let s = sample.roamSignalDbm {
                let entry = fresh.first { $0.bssid == b } ?? WalkBSS(bssid: b, ssid: ssid, freqMhz: sample.freqMhz, signalDbm: nil, ageMs: 0)
                out.append((entry, Double(s) + offset))
                seen.insert(b)
            }
            for e in fresh where e.ssid == ssid && e.bssid != bssid && !seen.contains(e.bssid) {
                guard let s = e.signalDbm else { continue }
                seen.insert(e.bssid)
                out.append((e, s + offset))
            }
            return out
        }
    }

    /// A station at one sample, asked whether it clings to its BSS where a rule would leave it
    /// (`View.clinging`).
    enum Clinging<Pick> {
        /// Below the level, and the rule picks `pick` among the fresh candidates.
        case clings(signal: Double, pick: Pick)
        /// Disconnected, at or above the level, or a scan lately offers nothing the rule takes
        /// (and no BSS it did not reach was taken when last heard).
        case no
        /// Its signal is not known, or it is below the level and no scan reached the sample, or
        /// the rule would take a BSS of the SSID that no scan reached lately as last heard
        /// (`unreached`).
        case cannotSay
    }

    /// The lens's view of each sample; `completed`: the scans whose results came (the walk's
    /// nl80211 events), in time order.
    func views(_ samples: [WalkSample], scans: [WalkScan], heartbeats: [WalkHeartbeat], completed: [CompletedScan] = []) -> [View] {
        let sent = heartbeats.map(\.sentNs).sorted()
        let window = Int64(IOSRoamingRule.trafficWindow.value * 1e6)
        var h = 0
        var ssid: String?
        var on: MACAddress?
        var left: [MACAddress: Int64] = [:]
        return samples.sorted { $0.timeNs < $1.timeNs }.map { s in
            while h < sent.count && sent[h] <= s.timeNs { h += 1 }
            let traffic = h > 0 && sent[h - 1] > s.timeNs - window
            let read = WalkScan.last(at: s.timeNs, in: scans)
            ssid = s.ssid ?? ssid
            if s.bssid != on {
                if let b = on { left[b] = s.timeNs }
                on = s.bssid
            }
            // A scan counts once the lens has read the cache after it: before, the read's entries
            // do not hold what the scan heard.
            let recent = completed.filter { c in
                c.timeNs <= (read?.timeNs ?? .min) && Double(s.timeNs - c.timeNs) / 1e6 <= staleAfterMs
            }
            let superseded = completed.contains { c in c.timeNs > (read?.timeNs ?? .min) && c.timeNs <= s.timeNs }
            return View(
                sample: s, fresh: read?.fresh(at: s.timeNs, staleAfterMs: staleAfterMs) ?? [], left: left, scansCompleted: recent.count,
                scanChannels: Set(recent.flatMap(\.frequenciesMhz)), superseded: superseded, lastRead: read, traffic: traffic, ssid: ssid)
        }
    }

    /// The rule that picks the phone's next BSS, if any: the phone at `current` dBm looks only
    /// below the trigger; a candidate qualifies at the margin (traffic or idle) or more; among
    /// those, a 5 GHz one above the preference is taken over a stronger 2.4 GHz one.
    public static func choose(current: Double, candidates: [(bss: WalkBSS, dbm: Double)], traffic: Bool) -> (WalkBSS, Double, IOSRoamRule)? {
        guard current < IOSRoamingRule.trigger.value else { return nil }
        let margin = traffic ? IOSRoamingRule.marginWithTraffic.value : IOSRoamingRule.marginIdle.value
        let qualifying = candidates.filter { $0.dbm - current >= margin }.sorted { $0.dbm > $1.dbm }
        guard let strongest = qualifying.first else { return nil }
        let marginRule: IOSRoamRule = traffic ? .marginTraffic : .marginIdle
        let fiveOrSixGHz = { (bss: WalkBSS) in WiFiBand(frequencyMhz: bss.freqMhz).map { $0 != .twoPointFourGHz } ?? false }
        let fiveGHz = qualifying.first { fiveOrSixGHz($0.bss) && $0.dbm > IOSRoamingRule.prefer5GHz.value }
        // Over a stronger candidate known to be on 2.4 GHz (of a band not known, nothing is preferred).
        if let f = fiveGHz, WiFiBand(frequencyMhz: strongest.bss.freqMhz) == .twoPointFourGHz { return (f.bss, f.dbm, .prefer5GHz) }
        return (strongest.bss, strongest.dbm, marginRule)
    }

    /// The lens over a walk: predicted roams, sticky zones and coverage holes, and notes on what
    /// it could not see.
    public func apply(
        samples: [WalkSample], scans: [WalkScan], heartbeats: [WalkHeartbeat], marks: [WalkPlaceMark], completed: [CompletedScan] = []
    ) -> (roams: [PredictedRoam], sticky: [StickyZone], holes: [CoverageHole], notes: [String]) {
        let off = signalOffsetDb
        var roams: [PredictedRoam] = []
        var sticky = ZoneBuilder<StickyZone.Kind>()
        var laptop = ZoneBuilder<StickyZone.Kind>()
        var holes = ZoneBuilder<Bool>()
        var phone: MACAddress?
        var followed = 0
        var freshSamples = 0
        var superseded = 0
        let views = views(samples, scans: scans, heartbeats: heartbeats, completed: completed)
        for v in views {
            let s = v.sample
            let place = WalkAnalysis.place(at: s.timeNs, marks)
            if v.reached { freshSamples += 1 }
            if v.superseded { superseded += 1 }
            // The phone joins where the laptop is; when its own BSS is neither the laptop's nor in
            // a fresh scan entry, the lens cannot follow it and takes the laptop's again.
            if let p = phone, v.signal(p, offset: off) == nil, let b = s.bssid, b != p {
                phone = b
                followed += 1
            }
            if phone == nil { phone = s.bssid }
            let candidates = v.candidates(besides: phone, ssid: v.ssid, offset: off)
            // A hole: a fresh view in which no BSS of the SSID reaches the trigger, and none that no
            // scan reached lately did when last heard, and none has a signal not known (then it is
            // not known).
            let best = (candidates.map(\.dbm) + [phone.flatMap { v.signal($0, offset: off) }].compactMap { $0 }).max()
            let staleStrong = v.unreached(besides: nil, offset: off).contains { $0.dbm >= IOSRoamingRule.trigger.value }
            if v.reached, !staleStrong, v.ssidSignalsKnown, best.map({ $0 < IOSRoamingRule.trigger.value }) ?? true {
                holes.add(true, bssid: nil, time: s.timeNs, place: place, signal: best, candidate: nil)
            } else {
                holes.close()
            }
            // The laptop clung where an iPhone would leave: the laptop's BSS below the trigger and a
            // candidate that the rules take.
            switch v.clinging(below: IOSRoamingRule.trigger.value, offset: off, rule: { Self.choose(current: $0, candidates: $1, traffic: v.traffic) }) {
            case .clings(let mine, _):
                // The strongest other BSS of the SSID heard (the rule may pick a weaker 5 GHz one).
                let strongest = v.candidates(besides: s.bssid, ssid: v.ssid, offset: off).map(\.dbm).max()
                laptop.add(.laptopStays, bssid: s.bssid, time: s.timeNs, place: place, signal: mine, candidate: strongest)
            case .no: laptop.close()
            case .cannotSay: if laptop.zones.last?.bssid != s.bssid { laptop.close() }
            }
            guard let p = phone, let current = v.signal(p, offset: off) else {
                // The phone's signal is not known: the sample cannot say, and leaves a zone on
                // its BSS open.
                if phone == nil || sticky.zones.last?.bssid != phone { sticky.close() }
                continue
            }
            guard current < IOSRoamingRule.trigger.value else {
                sticky.close()
                continue
            }
            if let (to, dbm, rule) = Self.choose(current: current, candidates: candidates, traffic: v.traffic) {
                let own = v.lastRead?.entries.first { $0.bssid == p }
                let fromFreq = p == s.bssid ? s.freqMhz : v.fresh.first { $0.bssid == p }?.freqMhz
                roams.append(
                    PredictedRoam(
                        time: Timestamp.rfc3339(nanoseconds: s.timeNs), place: place, fromBssid: p, toBssid: to.bssid, rule: rule,
                        scan: own.map { $0.entry.radioMeasurement ? .neighbourReport : .full }, fromSignalDbm: NumberText.rounded(current),
                        toSignalDbm: NumberText.rounded(dbm), traffic: v.traffic, laptopBssid: s.bssid, fromFreqMhz: fromFreq, toFreqMhz: to.freqMhz,
                        bandChanged: WiFiBand.change(fromMhz: fromFreq, toMhz: to.freqMhz) != nil))
                phone = to.bssid
                sticky.close()
            } else if v.reached,
                !v.ssidSignalsKnown || Self.choose(current: current, candidates: v.unreached(besides: p, offset: off), traffic: v.traffic) != nil
            {
                // A BSS no scan reached lately was taken when last heard, or one's signal is not
                // known: whether the phone stays is not known here, so the zone neither grows nor
                // ends (as the laptop's).
                if sticky.zones.last?.bssid != p { sticky.close() }
            } else {
                let kind: StickyZone.Kind = v.reached ? .iphoneStays : .noFreshScan
                sticky.add(kind, bssid: p, time: s.timeNs, place: place, signal: current, candidate: candidates.map(\.dbm).max())
            }
        }
        sticky.close()
        holes.close()
        var notes: [String] = []
        if !views.isEmpty {
            notes.append(
                "iPhone lens: \(freshSamples) of \(NumberText.count(views.count, "sample")) had a scan at most \(NumberText.format(staleAfterMs / 1000)) s before them (\(NumberText.count(completed.count, "scan")) with results seen, \(NumberText.count(scans.count, "read")) of the scan cache); elsewhere no candidate, hole or coverage is judged"
                    + (superseded > 0 ? " (of those, \(superseded) came after a scan's results that the last read of the cache did not hold)" : ""))
        }
        let bandChanges = roams.filter(\.bandChanged).count
        if bandChanges > 0 {
            notes.append(
                "iPhone lens: predicted roams that change band: \(bandChanges) of \(roams.count) (at each, iOS stops the push provider and starts a new one, which connects from nothing)"
            )
        }
        if followed > 0 {
            notes.append(
                "iPhone lens: \(NumberText.count(followed, "time")) the phone's BSS was in no fresh scan entry and the lens took the laptop's BSS again")
        }
        return (
            roams,
            (sticky.zones + laptop.zones).sorted { $0.start < $1.start }.map { z in
                StickyZone(
                    kind: z.kind, start: Timestamp.rfc3339(nanoseconds: z.start), end: Timestamp.rfc3339(nanoseconds: z.end),
                    seconds: Kept.seconds(ns: z.end - z.start), place: z.place, bssid: z.bssid,
                    signalMinDbm: z.signalMin.map { NumberText.rounded($0) }, bestCandidateDbm: z.candidate.map { NumberText.rounded($0) }, samples: z.samples)
            },
            holes.zones.map { z in
                CoverageHole(
                    start: Timestamp.rfc3339(nanoseconds: z.start), end: Timestamp.rfc3339(nanoseconds: z.end),
                    seconds: Kept.seconds(ns: z.end - z.start), place: z.place,
                    bestSignalDbm: z.signalMax.map { NumberText.rounded($0) }, samples: z.samples)
            },
            notes
        )
    }
}

/// Runs of consecutive samples of one kind on one BSS, for sticky zones and holes.
struct ZoneBuilder<Kind: Equatable> {
    struct Zone {
        var kind: Kind
        var bssid: MACAddress?
        var start: Int64
        var end: Int64
        var place: String
        var signalMin: Double?
        var signalMax: Double?
        var candidate: Double?
        var samples: Int
    }
    var zones: [Zone] = []
    var open = false

    mutating func add(_ kind: Kind, bssid: MACAddress?, time: Int64, place: String, signal: Double?, candidate: Double?) {
        if open, var z = zones.last, z.kind == kind, z.bssid == bssid {
            z.end = time
            z.samples += 1
            z.signalMin = [z.signalMin, signal].compactMap { $0 }.min()
            z.signalMax = [z.signalMax, signal].compactMap { $0 }.max()
            z.candidate = [z.candidate, candidate].compactMap { $0 }.max()
            zones[zones.count - 1] = z
        } else {
            zones.append(
                Zone(kind: kind, bssid: bssid, start: time, end: time, place: place, signalMin: signal, signalMax: signal, candidate: candidate, samples: 1))
            open = true
        }
    }

    mutating func close() { open = false }
}

/// A roam an iPhone would have made: when and where, from and to, which rule chose the target,
/// the scan it would have used (nil: the current BSS's capabilities were not in the scan cache),
/// both signals as the phone would read them (offset), whether heartbeats were flowing, and the
/// laptop's BSS at that moment (its own roams are the report's `roams`).
public struct PredictedRoam: Codable, Sendable, Equatable {
    public var time: String
    public var place: String
    public var fromBssid: MACAddress
    public var toBssid: MACAddress
    public var rule: IOSRoamRule
    @Nullable public var scan: IOSRoamScan?
    public var fromSignalDbm: Double
    public var toSignalDbm: Double
    public var traffic: Bool
    @Nullable public var laptopBssid: MACAddress?
    /// The two BSSs' frequencies (the laptop's own from its station, another from its scan
    /// entry), and whether their bands differ (both known): iOS stops the push provider at a
    /// band change and starts a new one, which connects from nothing.
    @Nullable public var fromFreqMhz: Int?
    @Nullable public var toFreqMhz: Int?
    public var bandChanged: Bool
}

/// A run of samples where a station stays on a BSS below the trigger.
public struct StickyZone: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The iPhone would stay: no candidate of the SSID passes the margin.
        case iphoneStays = "iphone_stays"
        /// The laptop stayed where an iPhone would leave (a candidate passes the margin).
        case laptopStays = "laptop_stays"
        /// The iPhone's BSS is below the trigger and no scan reached the sample (`View.reached`:
        /// no scan's results and no fresh entry besides the laptop's own BSS lately, or a scan's
        /// results after the last read of the cache): whether it would stay is UNKNOWN.
        case noFreshScan = "no_fresh_scan"
    }

    public var kind: Kind
    public var start: String
    public var end: String
    public var seconds: Double
    public var place: String
    @Nullable public var bssid: MACAddress?
    @Nullable public var signalMinDbm: Double?
    /// The strongest candidate of the SSID seen in the zone (offset); nil when none was heard.
    @Nullable public var bestCandidateDbm: Double?
    public var samples: Int
}

/// A run of samples whose fresh view holds no BSS of the SSID at or above the trigger.
public struct CoverageHole: Codable, Sendable, Equatable {
    public var start: String
    public var end: String
    public var seconds: Double
    public var place: String
    /// The strongest BSS of the SSID heard in the hole (offset); nil when none was.
    @Nullable public var bestSignalDbm: Double?
    public var samples: Int
}
