import PushdiagCore
import Testing

/// iOS's roaming rules (`IOSRoamingRule`) applied by the iPhone lens to synthetic samples, each
/// rule at its boundary: the trigger at -70.0, the margins at exactly 8 and 12 dB, the 5 GHz
/// preference at -65, stale scan entries, the scan kind, holes, sticky zones and coverage.
struct IPhoneLensTests {
    let ap1 = MACAddress(rawValue: 0x0200_0000_0100)
    let ap2 = MACAddress(rawValue: 0x0200_0000_0200)
    let ap3 = MACAddress(rawValue: 0x0200_0000_0300)
    let other = MACAddress(rawValue: 0x0200_0000_0900)
    let s = Int64(1_000_000_000)

    func sample(_ t: Int64, _ bssid: MACAddress?, _ dbm: Int?, freq: Int = 2412) -> WalkSample {
        WalkSample(timeNs: t, bssid: bssid, ssid: bssid == nil ? nil : "ward", freqMhz: bssid == nil ? nil : freq, signalDbm: dbm)
    }

    func entry(_ bssid: MACAddress, _ dbm: Double, freq: Int = 2437, ssid: String = "ward", age: Double = 100, rm: Bool = false) -> WalkBSS {
        WalkBSS(bssid: bssid, ssid: ssid, freqMhz: freq, signalDbm: dbm, ageMs: age, radioMeasurement: rm)
    }

    /// Heartbeats every 250 ms over the first `seconds` (traffic), none when 0 (idle).
    func heartbeats(_ seconds: Int64) -> [WalkHeartbeat] {
        stride(from: 0, to: seconds * s, by: 250_000_000).map { WalkHeartbeat(sentNs: $0, rttMs: 5) }
    }

    /// One sample at 5 s on ap1 at `dbm`, a scan read at 4.9 s holding `entries`.
    func lens(
        _ dbm: Int, _ entries: [WalkBSS], offset: Double = 0, traffic: Bool = true, freq: Int = 2412
    ) -> (roams: [PredictedRoam], sticky: [StickyZone], holes: [CoverageHole], notes: [String]) {
        IPhoneLens(signalOffsetDb: offset).apply(
            samples: [sample(5 * s, ap1, dbm, freq: freq)], scans: [WalkScan(timeNs: 4_900_000_000, entries: entries)],
            heartbeats: traffic ? heartbeats(10) : [], marks: [])
    }

    @Test func theTriggerIsBelowMinus70NotAt() {
        // -70.0 exactly keeps the BSS, whatever the candidate: neither a roam nor a sticky zone.
        let at = lens(-70, [entry(ap2, -40)])
        #expect(at.roams.isEmpty && at.sticky.isEmpty, "\(at)")
        // Half a dB below (through the offset, which moves the candidate too) scans and moves.
        let r = lens(-70, [entry(ap2, -40)], offset: -0.5).roams
        #expect(r.count == 1 && r.first?.fromSignalDbm == -70.5 && r.first?.toSignalDbm == -40.5 && r.first?.toBssid == ap2, "\(r)")
    }

    /// The lens and the walk's signal check read the driver's average where it keeps one, as
    /// survey and the exporter do (`roamSignalDbm`): one weak frame (-75) under an average of
    /// -68 is neither a roam nor a weak sample below -70; the last frame's signal serves a
    /// driver that keeps no average.
    @Test func theAverageIsTheSignalJudgedWhereTheDriverKeepsOne() {
        var averaged = sample(5 * s, ap1, -75)
        averaged.signalAverageDbm = -68
        let seen = IPhoneLens().apply(
            samples: [averaged], scans: [WalkScan(timeNs: 4_900_000_000, entries: [entry(ap2, -40)])], heartbeats: heartbeats(10), marks: [])
        #expect(seen.roams.isEmpty && seen.sticky.isEmpty, "\(seen)")
        let findings = WalkAnalysis.signalFindings([averaged], scans: [])
        #expect(findings.first?.value == -68 && findings.first?.severity == .warning, "\(findings)")
        let last = IPhoneLens().apply(
            samples: [sample(5 * s, ap1, -75)], scans: [WalkScan(timeNs: 4_900_000_000, entries: [entry(ap2, -40)])], heartbeats: heartbeats(10), marks: [])
        #expect(last.roams.first?.fromSignalDbm == -75, "\(last)")
        #expect(WalkAnalysis.signalFindings([sample(5 * s, ap1, -75)], scans: []).first?.severity == .critical)
    }

    @Test func withTrafficACandidateExactly8dBStrongerIsTaken() {
        let r = lens(-75, [entry(ap2, -67)]).roams
        #expect(r.map(\.rule) == [.marginTraffic] && r.first?.traffic == true, "\(r)")
        // 7.99 dB (-6701 mBm) is not enough: the phone stays, and says so.
        let short = lens(-75, [entry(ap2, -67.01)])
        #expect(short.roams.isEmpty)
        #expect(short.sticky.map(\.kind) == [.iphoneStays] && short.sticky.first?.bestCandidateDbm == -67.01, "\(short.sticky)")
    }

    @Test func idleACandidateNeedsExactly12dB() {
        let r = lens(-75, [entry(ap2, -63)], traffic: false).roams
        #expect(r.map(\.rule) == [.marginIdle] && r.first?.traffic == false, "\(r)")
        #expect(lens(-75, [entry(ap2, -64)], traffic: false).roams.isEmpty, "11 dB idle")
        #expect(lens(-75, [entry(ap2, -64)], traffic: true).roams.count == 1, "11 dB with traffic")
    }

    /// A heartbeat sent within the traffic window before the sample is traffic; one sent earlier
    /// is not.
    @Test func aHeartbeatWithinASecondIsTraffic() {
        func roams(lastHeartbeat: Int64) -> [PredictedRoam] {
            IPhoneLens().apply(
                samples: [sample(5 * s, ap1, -75)], scans: [WalkScan(timeNs: 5 * s, entries: [entry(ap2, -65)])],
                heartbeats: [WalkHeartbeat(sentNs: lastHeartbeat, rttMs: nil)], marks: []
            ).roams
        }
        #expect(roams(lastHeartbeat: 5 * s - 900_000_000).map(\.rule) == [.marginTraffic], "0.9 s before: 10 dB with traffic")
        #expect(roams(lastHeartbeat: 5 * s - 1_100_000_000).isEmpty, "1.1 s before: idle, 10 dB is short of 12")
    }

    /// An entry older than the stale limit at the sample (its age at the read plus the time since)
    /// is no candidate; at the limit exactly it still is.
    @Test func staleEntriesAreNeverCandidates() {
        let limit = IOSRoamingRule.staleAfter.value
        // Read at 4.9 s: 100 ms pass before the sample.
        #expect(lens(-75, [entry(ap2, -50, age: limit - 100)]).roams.count == 1)
        let stale = lens(-75, [entry(ap2, -50, age: limit - 99)])
        #expect(stale.roams.isEmpty && stale.sticky.map(\.kind) == [.noFreshScan], "\(stale)")
        // No age at all is never fresh.
        var unknown = entry(ap2, -50)
        unknown.ageMs = nil
        #expect(lens(-75, [unknown]).roams.isEmpty)
        // The same entry read long before the sample has aged.
        let old = IPhoneLens().apply(
            samples: [sample(20 * s, ap1, -75)], scans: [WalkScan(timeNs: 5 * s, entries: [entry(ap2, -50)])], heartbeats: heartbeats(30), marks: [])
        #expect(old.roams.isEmpty)
    }

    /// A signal not known is never a level: no hole, no coverage count, no zone ended by it
    /// (issue review of 2026-11-29: a driver whose signal is not believed made holes and zeros).
    @Test func aSignalNotKnownIsNoLevel() {
        let unknown = WalkBSS(bssid: ap2, ssid: "ward", freqMhz: 2437, signalDbm: nil, ageMs: 100)
        // The station's signal not known: no hole from a weak candidate, nor from none.
        let blind = IPhoneLens().apply(
            samples: [sample(5 * s, ap1, nil)], scans: [WalkScan(timeNs: 4_900_000_000, entries: [entry(ap2, -72)])], heartbeats: [], marks: [])
        #expect(blind.holes.isEmpty && blind.roams.isEmpty, "\(blind)")
        // A candidate's signal not known: no hole, no iphone_stays zone.
        let r = lens(-75, [unknown])
        #expect(r.holes.isEmpty && r.sticky.isEmpty && r.roams.isEmpty, "\(r)")
        // Nor a count: of the SSID, nor on a channel where a BSS has no signal.
        let c = IPhoneLens().coverage(
            samples: [sample(5 * s, ap1, -60)],
            scans: [WalkScan(timeNs: 4_900_000_000, entries: [unknown, WalkBSS(bssid: other, ssid: "guest", freqMhz: 2412, signalDbm: nil, ageMs: 100)])],
            heartbeats: [], places: [""])[0]
        #expect(c.samplesWithScan == 1 && c.bssAbove67 == nil && c.cochannelAbove82 == nil, "\(c)")
        // The iPhone's zone across a sample whose signal is not known: one zone, not two.
        let samples = [sample(5 * s, ap1, -75), sample(6 * s, ap1, nil), sample(7 * s, ap1, -76)]
        let reads = (5...7).map { WalkScan(timeNs: Int64($0) * s - 100_000_000, entries: [entry(ap2, -80)]) }
        let zones = IPhoneLens().apply(samples: samples, scans: reads, heartbeats: heartbeats(10), marks: []).sticky
        #expect(zones.map(\.kind) == [.iphoneStays] && zones.first?.seconds == 2 && zones.first?.samples == 2, "\(zones)")
    }

    /// The laptop's zone names the strongest other BSS of the SSID heard, not the one the rules
    /// pick (a weaker 5 GHz one above -65).
    @Test func theLaptopsZoneNamesTheStrongestCandidate() {
        let r = lens(-75, [entry(ap2, -55, freq: 2462), entry(ap3, -60, freq: 5180)])
        #expect(r.roams.first?.rule == .prefer5GHz && r.roams.first?.toBssid == ap3, "\(r.roams)")
        let laptop = r.sticky.filter { $0.kind == .laptopStays }
        #expect(laptop.count == 1 && laptop.first?.bestCandidateDbm == -55, "\(r.sticky)")
    }

    @Test func fiveGHzIsPreferredAboveMinus65() {
        // Both pass the margin; the 5 GHz one above -65 wins over a stronger 2.4 GHz one.
        let preferred = lens(-75, [entry(ap2, -50, freq: 2462), entry(ap3, -64.99, freq: 5180)])
        let r = preferred.roams
        #expect(r.map(\.rule) == [.prefer5GHz] && r.first?.toBssid == ap3, "\(r)")
        // From 2412 (the laptop's station) to 5180 (the entry): a band change, which restarts
        // the iPhone's push provider; a note counts them.
        #expect(r.first.map { $0.fromFreqMhz == 2412 && $0.toFreqMhz == 5180 && $0.bandChanged } == true, "\(r)")
        #expect(preferred.notes.contains { $0.hasPrefix("iPhone lens: predicted roams that change band: 1 of 1 (") }, "\(preferred.notes)")
        // At -65.0 exactly it is not above: the strongest wins.
        let at = lens(-75, [entry(ap2, -50, freq: 2462), entry(ap3, -65, freq: 5180)])
        #expect(at.roams.map(\.rule) == [.marginTraffic] && at.roams.first?.toBssid == ap2, "\(at.roams)")
        #expect(at.roams.first?.bandChanged == false && !at.notes.contains { $0.contains("change band") }, "2412 to 2462: \(at)")
        // The strongest being 5 GHz already is the margin's choice.
        let five = lens(-75, [entry(ap2, -60, freq: 2462), entry(ap3, -50, freq: 5180)]).roams
        #expect(five.map(\.rule) == [.marginTraffic] && five.first?.toBssid == ap3)
        // A 6 GHz candidate (channel 5, 5975 MHz) and a 4.9 GHz one (channel 184, 4920 MHz) are
        // above 2.4 GHz as WiFiBand names them: preferred the same way.
        for freq in [5975, 4920] {
            let r = lens(-75, [entry(ap2, -50, freq: 2462), entry(ap3, -60, freq: freq)]).roams
            #expect(r.map(\.rule) == [.prefer5GHz] && r.first?.toBssid == ap3, "\(freq) MHz: \(r)")
        }
        // A candidate with no frequency is not preferred; nor is a 5 GHz one over a stronger one
        // whose band is not known.
        var unknown = entry(ap3, -60)
        unknown.entry.frequencyMhz = nil
        #expect(lens(-75, [entry(ap2, -50, freq: 2462), unknown]).roams.first?.toBssid == ap2)
        var strongest = entry(ap2, -50)
        strongest.entry.frequencyMhz = nil
        let over = lens(-75, [strongest, entry(ap3, -60, freq: 5180)]).roams
        #expect(over.map(\.rule) == [.marginTraffic] && over.first?.toBssid == ap2, "\(over)")
    }

    /// The scan the phone would use: the current BSS's 802.11k neighbour report when it
    /// advertises 802.11k, every channel when not, not known when it is not in the cache.
    @Test func theScanFollowsTheCurrentBSSsElevenK() {
        #expect(lens(-75, [entry(ap2, -50), entry(ap1, -75, rm: true)]).roams.first?.scan == .neighbourReport)
        #expect(lens(-75, [entry(ap2, -50), entry(ap1, -75, rm: false)]).roams.first?.scan == .full)
        #expect(lens(-75, [entry(ap2, -50)]).roams.first.map { $0.scan == nil } == true)
    }

    /// --signal-offset moves the laptop's reading to the phone's: -66 dBm with -5 triggers.
    @Test func theOffsetTranslatesTheSignal() {
        #expect(lens(-66, [entry(ap2, -50)]).roams.isEmpty)
        #expect(lens(-66, [entry(ap2, -50)], offset: -5).roams.count == 1)
    }

    /// A hole: a fresh view where no BSS of the SSID reaches the trigger (another SSID's does not
    /// count); without a fresh view none is claimed.
    @Test func coverageHolesNeedAFreshViewWithNothingAtTheTrigger() {
        let hole = lens(-75, [entry(ap2, -72), entry(other, -40, ssid: "guest")])
        #expect(hole.holes.count == 1 && hole.holes.first?.bestSignalDbm == -72, "\(hole.holes)")
        #expect(lens(-75, [entry(ap2, -70)]).holes.isEmpty, "-70.0 is not below the trigger")
        #expect(lens(-75, [entry(ap2, -72, age: 20_000)]).holes.isEmpty, "stale: not judged")
        // A BSS of the SSID last heard at -60 but stale now, on a channel no scan reached lately
        // (no fresh entry on it): whether it is still there is not known, so no hole, though the
        // fresh one is weak.
        #expect(lens(-75, [entry(ap2, -72), entry(ap3, -60, freq: 2462, age: 20_000)]).holes.isEmpty)
        #expect(lens(-75, [entry(ap2, -72), entry(ap3, -71, freq: 2462, age: 20_000)]).holes.count == 1, "a stale one below the trigger changes nothing")
        // On a channel a scan reached (ap2 was heard there lately) and not heard: gone, a hole.
        #expect(lens(-75, [entry(ap2, -72), entry(ap3, -60, age: 20_000)]).holes.count == 1)
        // The laptop's own BSS fresh on a channel says nothing of a scan there (its entry follows
        // its beacons): ap3 stale on ap1's channel is not known, no hole.
        #expect(lens(-75, [entry(ap1, -75, freq: 2412), entry(ap2, -72), entry(ap3, -60, freq: 2412, age: 20_000)]).holes.isEmpty)
    }

    /// The laptop's own BSS's entry is fresh from its beacons, scan or none: a view with nothing
    /// else fresh had no scan, and the lens judges nothing there (no hole, no iphone_stays, not
    /// counted in the note), also just after a disconnect from that BSS.
    @Test func theOwnBSSAloneIsNoScan() {
        let alone = lens(-75, [entry(ap1, -75, freq: 2412)])
        #expect(alone.holes.isEmpty && alone.sticky.map(\.kind) == [.noFreshScan], "\(alone)")
        #expect(alone.notes.first?.hasPrefix("iPhone lens: 0 of 1 sample had a scan") == true, "\(alone.notes)")
        // Disconnected at 5 s from ap1: its entry, fresh from the beacons before, is no scan (no
        // hole); heard again at 7 s, after the laptop left, it is (a scan heard ap1 alone, weak:
        // a hole).
        func after(_ reads: [WalkScan]) -> [CoverageHole] {
            IPhoneLens().apply(
                samples: [sample(4 * s, ap1, -75), sample(5 * s, nil, nil), sample(8 * s, nil, nil)], scans: reads, heartbeats: heartbeats(10), marks: []
            ).holes
        }
        #expect(after([WalkScan(timeNs: 4 * s, entries: [entry(ap1, -75, freq: 2412, age: 0)])]).isEmpty)
        let heard = after([
            WalkScan(timeNs: 4 * s, entries: [entry(ap1, -75, freq: 2412, age: 0)]), WalkScan(timeNs: 7 * s, entries: [entry(ap1, -75, freq: 2412, age: 0)]),
        ])
        #expect(heard.count == 1 && heard.first?.start == Timestamp.rfc3339(nanoseconds: 8 * s), "\(heard)")
    }

    /// A scan whose results came is a scan whatever it heard: on ap2's channel and not hearing it,
    /// ap2 (stale, last heard at -60) is gone and the weak ap1 is a hole; on another channel it is
    /// not known. Without the scan's results only the laptop's own entry is fresh: nothing judged.
    @Test func aCompletedScanReachesTheChannelsItCovered() {
        func seen(_ completed: [CompletedScan]) -> (roams: [PredictedRoam], sticky: [StickyZone], holes: [CoverageHole], notes: [String]) {
            IPhoneLens().apply(
                samples: [sample(5 * s, ap1, -75)],
                scans: [WalkScan(timeNs: 4_900_000_000, entries: [entry(ap1, -75, freq: 2412), entry(ap2, -60, age: 20_000)])],
                heartbeats: heartbeats(10), marks: [], completed: completed)
        }
        let there = seen([CompletedScan(timeNs: 4_850_000_000, frequenciesMhz: [2412, 2437])])
        #expect(there.holes.count == 1 && there.sticky.map(\.kind) == [.iphoneStays], "\(there)")
        #expect(there.notes.first?.hasPrefix("iPhone lens: 1 of 1 sample had a scan at most 10 s before them (1 scan with results seen") == true)
        let elsewhere = seen([CompletedScan(timeNs: 4_850_000_000, frequenciesMhz: [2412])])
        #expect(elsewhere.holes.isEmpty && elsewhere.sticky.isEmpty, "\(elsewhere)")
        // Older than the lens's 10 s, after the sample, or after the cache read the sample sees
        // (what it heard is not in that read): no scan for it.
        for late in [
            CompletedScan(timeNs: 5_100_000_000, frequenciesMhz: [2437]), CompletedScan(timeNs: -5_100_000_000, frequenciesMhz: [2437]),
            CompletedScan(timeNs: 4_950_000_000, frequenciesMhz: [2437]),
        ] {
            #expect(seen([late]).sticky.map(\.kind) == [.noFreshScan])
        }
        #expect(seen([]).holes.isEmpty && seen([]).sticky.map(\.kind) == [.noFreshScan])
    }

    /// A scan's results after the cache read a sample sees, and before the sample, supersede that
    /// read: what the scan heard (ap2 stronger than the read's -78 dBm, say) is not in it, so the
    /// sample is not judged (no hole, no zone of the iPhone's) and the note counts it. A scan
    /// before the read is in it: the hole stands.
    @Test func aScanAfterTheReadSupersedesIt() {
        func seen(_ completed: [CompletedScan]) -> (roams: [PredictedRoam], sticky: [StickyZone], holes: [CoverageHole], notes: [String]) {
            IPhoneLens().apply(
                samples: [sample(5 * s, ap1, -75)],
                scans: [WalkScan(timeNs: 4_900_000_000, entries: [entry(ap1, -75, freq: 2412), entry(ap2, -78, freq: 2437, age: 0)])],
                heartbeats: heartbeats(10), marks: [], completed: completed)
        }
        let before = CompletedScan(timeNs: 4_850_000_000, frequenciesMhz: [2412, 2437])
        let judged = seen([before])
        #expect(judged.holes.count == 1 && judged.sticky.map(\.kind) == [.iphoneStays], "\(judged)")
        #expect(judged.notes.first?.contains("came after") == false)
        let after = seen([before, CompletedScan(timeNs: 4_950_000_000, frequenciesMhz: [2437])])
        #expect(after.holes.isEmpty && after.sticky.map(\.kind) == [.noFreshScan], "\(after)")
        #expect(after.notes.first?.hasPrefix("iPhone lens: 0 of 1 sample had") == true, "\(after.notes)")
        #expect(
            after.notes.first?.hasSuffix("(of those, 1 came after a scan's results that the last read of the cache did not hold)") == true, "\(after.notes)")
        // Its results at the sample's own time supersede too; after the sample they do not.
        #expect(seen([before, CompletedScan(timeNs: 5 * s, frequenciesMhz: [2437])]).holes.isEmpty)
        #expect(seen([before, CompletedScan(timeNs: 5 * s + 1, frequenciesMhz: [2437])]).holes.count == 1)
    }

    /// The iPhone's own zone: where the rules would take a BSS that no scan reached lately (as it
    /// was last heard), whether the phone stays is not known; where a scan reached its channel
    /// and did not hear it, the phone stays.
    @Test func theIPhonesZoneIsNotClaimedOverAnUnreachedCandidate() {
        func zones(guestOn freq: Int) -> [StickyZone.Kind] {
            lens(-75, [entry(other, -50, freq: freq, ssid: "guest", age: 0), entry(ap2, -60, freq: 2437, age: 20_000)]).sticky.map(\.kind)
        }
        #expect(zones(guestOn: 2412) == [], "ap2's channel not reached: not known")
        #expect(zones(guestOn: 2437) == [.iphoneStays], "ap2's channel reached, ap2 not heard")
    }

    /// Over a run: the phone roams once at the first sample where the rules allow, then holds
    /// the new BSS; the laptop, which stays on ap1, is a sticky zone of its own for the whole run.
    @Test func aRunGivesOneRoamAndTheLaptopsStickyZone() {
        let samples = (0..<6).map { sample(Int64($0) * s, ap1, -60 - $0 * 4) }  // -60 … -80
        let scans = (0..<6).map { WalkScan(timeNs: Int64($0) * s, entries: [entry(ap2, -62, age: 0)]) }
        let r = IPhoneLens().apply(samples: samples, scans: scans, heartbeats: heartbeats(10), marks: [WalkPlaceMark(timeNs: 0, name: "east")])
        // -72 at 3 s is below the trigger with ap2 10 dB stronger.
        #expect(r.roams.count == 1 && r.roams.first?.time.hasPrefix("1970-01-01T00:00:03") == true && r.roams.first?.place == "east", "\(r.roams)")
        let laptop = r.sticky.filter { $0.kind == .laptopStays }
        #expect(laptop.count == 1 && laptop.first?.samples == 3 && laptop.first?.seconds == 2 && laptop.first?.signalMinDbm == -80, "\(r.sticky)")
        #expect(r.sticky.allSatisfy { $0.kind == .laptopStays })
    }

    /// The laptop's zone across samples whose scan cache holds nothing fresh: they cannot say
    /// whether an iPhone would leave, so the zone neither grows nor ends there; a fresh read that
    /// offers nothing the rules take ends it.
    @Test func theLaptopsZoneOutlastsSamplesThatCannotSay() {
        let samples = (0..<30).map { sample(Int64($0) * s, ap1, -80) }
        func zones(_ reads: [(Int64, Double)]) -> [StickyZone] {
            let scans = reads.map { WalkScan(timeNs: $0.0 * s, entries: [entry(ap2, $0.1, age: 0)]) }
            return IPhoneLens().apply(samples: samples, scans: scans, heartbeats: heartbeats(30), marks: []).sticky.filter { $0.kind == .laptopStays }
        }
        // ap2 at -60 fresh 0–10 s and 20–29 s, nothing fresh 11–19 s: one zone of 29 s.
        let one = zones([(0, -60), (20, -60)])
        #expect(one.count == 1 && one.first?.seconds == 29 && one.first?.samples == 21, "\(one)")
        // A fresh read at 12 s with ap2 at -75 (5 dB: not taken) ends it: 0–10 s, then 22–29 s.
        let two = zones([(0, -60), (12, -75), (22, -60)])
        #expect(two.map(\.seconds) == [10, 7], "\(two)")
        // A move to ap3 in the stretch that cannot say (15 s, no signal) ends it too.
        var moved = samples
        moved[15] = sample(15 * s, ap3, nil)
        let scans = [0, 20].map { WalkScan(timeNs: Int64($0) * s, entries: [entry(ap2, -60, age: 0)]) }
        let split = IPhoneLens().apply(samples: moved, scans: scans, heartbeats: heartbeats(30), marks: []).sticky.filter { $0.kind == .laptopStays }
        #expect(split.map(\.seconds) == [10, 9], "\(split)")
        // A read at 12 s that did not hear ap2 (stale, last heard at -60) but heard another SSID:
        // elsewhere than ap2's channel it cannot say (one zone), on it ap2 is gone (two).
        func unheard(guestOn freq: Int) -> [StickyZone] {
            let read = WalkScan(timeNs: 12 * s, entries: [entry(ap2, -60, age: 12_000), entry(other, -50, freq: freq, ssid: "guest", age: 0)])
            let reads = [WalkScan(timeNs: 0, entries: [entry(ap2, -60, age: 0)]), read, WalkScan(timeNs: 20 * s, entries: [entry(ap2, -60, age: 0)])]
            return IPhoneLens().apply(samples: samples, scans: reads, heartbeats: heartbeats(30), marks: []).sticky.filter { $0.kind == .laptopStays }
        }
        #expect(unheard(guestOn: 2462).map(\.seconds) == [29], "\(unheard(guestOn: 2462))")
        #expect(unheard(guestOn: 2437).map(\.seconds) == [10, 9], "\(unheard(guestOn: 2437))")
    }

    @Test func coverageCountsBSSesCoChannelAndBands() {
        let samples = [sample(1 * s, ap1, -60), sample(2 * s, ap1, -60), sample(3 * s, ap2, -55, freq: 5180), sample(4 * s, nil, nil)]
        let read = WalkScan(
            timeNs: 1 * s,
            entries: [
                entry(ap2, -67, freq: 5180, age: 0), entry(ap3, -67.01, freq: 2412, age: 0),
                entry(other, -82, freq: 2412, ssid: "guest", age: 0), entry(MACAddress(rawValue: 0x0200_0000_0a00), -82.01, freq: 2412, ssid: "x", age: 0),
            ])
        let c = IPhoneLens().coverage(samples: samples, scans: [read], heartbeats: [], places: [""])
        #expect(c.count == 1)
        let p = c[0]
        // ap1 (-60, the station's) and ap2 (-67 exactly) reach -67; ap3 at -67.01 does not. At 3 s the
        // laptop is on ap2 (-55) and ap1 is in no scan entry: one.
        #expect(p.samples == 4 && p.samplesWithScan == 4 && p.bssAbove67 == 1 && p.bssAbove67Max == 2, "\(p)")
        // On 2412: ap3 and the guest at -82 exactly; the one at -82.01 is not heard.
        #expect(p.cochannelAbove82 == 2, "\(p)")
        #expect(p.bandShares.band24 == 0.667 && p.bandShares.band5 == 0.333 && p.bandShares.band6 == 0, "\(p.bandShares)")
        // No fresh scan: the counts are not known, the bands are; nor with only the station's own
        // BSS fresh (its beacons keep it so).
        let none = IPhoneLens().coverage(samples: samples, scans: [], heartbeats: [], places: [""])[0]
        #expect(none.bssAbove67 == nil && none.cochannelAbove82 == nil && none.samplesWithScan == 0 && none.bandShares.band24 == 0.667)
        let own = IPhoneLens().coverage(
            samples: [sample(1 * s, ap1, -60)], scans: [WalkScan(timeNs: 1 * s, entries: [entry(ap1, -60, freq: 2412, age: 0)])], heartbeats: [], places: [""])[
                0]
        #expect(own.bssAbove67 == nil && own.samplesWithScan == 0, "\(own)")
    }

    /// A sample a scan reached counts for the SSID's coverage only when no BSS of the SSID that
    /// no scan reached lately was at the level when last heard: ap2 on 5180, -50 dBm 20 s ago,
    /// and a scan of 2412 alone.
    @Test func coverageLeavesOutWhatNoScanReached() {
        let samples = [sample(5 * s, ap1, -60)]
        let read = WalkScan(timeNs: 4_900_000_000, entries: [entry(ap1, -60, freq: 2412, age: 0), entry(ap2, -50, freq: 5180, age: 20_000)])
        func at(_ channels: [Int]) -> WalkPlaceCoverage {
            IPhoneLens().coverage(
                samples: samples, scans: [read], heartbeats: [], places: [""], completed: [CompletedScan(timeNs: 4_800_000_000, frequenciesMhz: channels)])[0]
        }
        let part = at([2412])
        #expect(part.samplesWithScan == 1 && part.bssAbove67 == nil && part.bssAbove67Max == nil && part.cochannelAbove82 == 0, "\(part)")
        let whole = at([2412, 5180])
        #expect(whole.samplesWithScan == 1 && whole.bssAbove67 == 1 && whole.bssAbove67Max == 1, "\(whole)")
    }

    /// The lens at one moment (the exporter's samples): the same rules on the same scan entries
    /// as a walk's sample, each at its boundary, aged from the read to the moment.
    @Test func aMomentIsTheRulesAtOneSample() {
        let lens = IPhoneLens()
        func at(_ dbm: Int?, _ entries: [WalkBSS], readAt: Int64 = 5 * s) -> IPhoneLens.Moment {
            lens.moment(timeNs: 5 * s, bssid: ap1, ssid: "ward", freqMhz: 2412, signalDbm: dbm, readAtNs: readAt, entries: entries)
        }
        // -75 on ap1, ap2 exactly 8 dB stronger: a roam with traffic, not idle (12 dB).
        let eight = at(-75, [entry(ap2, -67, freq: 2412), entry(other, -82, freq: 2412, ssid: "guest")])
        #expect(
            eight == IPhoneLens.Moment(fresh: 2, bestCandidateMarginDb: 8, roamWithTraffic: true, roamIdle: false, bssAbove67: 1, cochannelAbove82: 2),
            "\(eight)")
        // -70.0 exactly does not trigger, whatever the candidate; 12 dB idle does below it.
        #expect(at(-70, [entry(ap2, -40)]).roamWithTraffic == false && at(-70, [entry(ap2, -40)]).roamIdle == false)
        #expect(at(-71, [entry(ap2, -59)]).roamIdle == true && at(-71, [entry(ap2, -59.01)]).roamIdle == false)
        // An entry 10.1 s old at the moment (9.9 s at a read 0.2 s before) is stale: nothing judged.
        let stale = at(-80, [entry(ap2, -40, age: 9_900)], readAt: 4_800_000_000)
        let noScan = IPhoneLens.Moment(fresh: 0, unknown: .noScan(staleAfterMs: 10_000))
        #expect(stale == noScan, "\(stale)")
        // The AP's own entry alone is no scan; and a station on no AP is not judged.
        #expect(at(-75, [entry(ap1, -75, freq: 2412)]) == noScan)
        #expect(
            lens.moment(timeNs: 5 * s, bssid: nil, ssid: nil, freqMhz: nil, signalDbm: nil, readAtNs: 5 * s, entries: [entry(ap2, -60)])
                == IPhoneLens.Moment(fresh: 0, unknown: .notConnected))
        // Without the station's signal no roam is judged, nor the SSID's count (the AP's own may be
        // above -67 or not); the co-channel count is (no other BSS on 2412).
        let blind = at(nil, [entry(ap2, -60)])
        #expect(
            blind.roamWithTraffic == nil && blind.bestCandidateMarginDb == nil && blind.bssAbove67 == nil && blind.cochannelAbove82 == 0 && blind.fresh == 1,
            "\(blind)")
        #expect(blind.unknown == .noSignal)
        // A candidate's signal not known (a driver whose signal is not believed): it might be taken.
        let candidate = at(-80, [WalkBSS(bssid: ap2, ssid: "ward", freqMhz: 2412, signalDbm: nil, ageMs: 100)])
        #expect(
            candidate.roamWithTraffic == nil && candidate.roamIdle == nil && candidate.bssAbove67 == nil && candidate.cochannelAbove82 == nil
                && candidate.unknown == .noSignal, "\(candidate)")
    }

    /// The exporter's moments see the scans whose results came, as a walk's samples do: a scan
    /// that heard nothing but the AP is a judgement (no roam, one BSS), counted once the cache
    /// was read after it and while at most 10 s old; a BSS of the SSID on a channel it did not
    /// cover, strong when last heard, leaves the roam and the count unknown.
    @Test func aMomentSeesTheScansWhoseResultsCame() {
        let lens = IPhoneLens()
        let own = entry(ap1, -75, freq: 2412, age: 0)
        func at(_ scans: [CompletedScan], _ entries: [WalkBSS] = [], readAt: Int64 = 5 * s) -> IPhoneLens.Moment {
            lens.moment(
                timeNs: 5 * s, bssid: ap1, ssid: "ward", freqMhz: 2412, signalDbm: -75, readAtNs: readAt, entries: [own] + entries, completed: scans)
        }
        let heardNothing = at([CompletedScan(timeNs: 2 * s, frequenciesMhz: [2412, 2437])])
        #expect(
            heardNothing == IPhoneLens.Moment(fresh: 0, scansCompleted: 1, roamWithTraffic: false, roamIdle: false, bssAbove67: 0, cochannelAbove82: 0),
            "\(heardNothing)")
        // Its results after the read: the read is not what the cache held (superseded); more
        // than 10 s before the moment: no scan.
        let noScan = IPhoneLens.Moment(fresh: 0, unknown: .noScan(staleAfterMs: 10_000))
        #expect(at([CompletedScan(timeNs: 4 * s, frequenciesMhz: [2412])], readAt: 3 * s) == IPhoneLens.Moment(fresh: 0, unknown: .superseded))
        #expect(at([CompletedScan(timeNs: -5_000_000_001, frequenciesMhz: [2412])]) == noScan)
        #expect(at([CompletedScan(timeNs: -5_000_000_000, frequenciesMhz: [2412])]).scansCompleted == 1)
        // ap2 on 5180, heard at -50 dBm 20 s ago: a scan of 2412 alone did not reach it.
        let away = entry(ap2, -50, freq: 5180, age: 20_000)
        let unreached = at([CompletedScan(timeNs: 2 * s, frequenciesMhz: [2412])], [away])
        #expect(
            unreached
                == IPhoneLens.Moment(
                    fresh: 0, scansCompleted: 1, roamWithTraffic: nil, roamIdle: nil, bssAbove67: nil, cochannelAbove82: 0, unknown: .unreached),
            "\(unreached)")
        // A scan of 5180 too did not hear it: it is gone.
        let gone = at([CompletedScan(timeNs: 2 * s, frequenciesMhz: [2412, 5180])], [away])
        #expect(gone.roamWithTraffic == false && gone.roamIdle == false && gone.bssAbove67 == 0 && gone.unknown == nil, "\(gone)")
        // A fresh candidate the rule takes is a roam whatever the scans did not reach.
        let ahead = at([CompletedScan(timeNs: 2 * s, frequenciesMhz: [2412])], [away, entry(ap3, -60, freq: 2412)])
        #expect(ahead.roamWithTraffic == true && ahead.roamIdle == true && ahead.bssAbove67 == nil && ahead.unknown == .unreached, "\(ahead)")
    }

    /// Every rule of the table has a source, and the numbers are the ones the issue names.
    @Test func theRulesTableHoldsTheDocumentedNumbers() {
        let r = IOSRoamingRule.self
        #expect(
            [r.trigger.value, r.marginWithTraffic.value, r.marginIdle.value, r.prefer5GHz.value, r.neighbourReportEntries.value]
                == [-70, 8, 12, -65, 6])
        #expect(IOSRoamingRule.all.allSatisfy { !$0.source.isEmpty } && Set(IOSRoamingRule.all.map(\.name)).count == IOSRoamingRule.all.count)
    }
}
