import FixtureKit
import Foundation
import PushdiagRender
import Testing

@testable import PushdiagCore

/// The per-station analysis (issue #30) on the fixtures' records, and its parsers on good,
/// truncated and hostile bytes.
struct StationAnalysisTests {
    static func analyze(_ f: Fixtures.Fixture, silence: Int64 = 10_000_000_000) -> CaptureReport {
        var o = CaptureAnalyzer.Options()
        o.stations.silenceNs = silence
        var a = CaptureAnalyzer(options: o)
        for r in f.records {
            r.bytes.withUnsafeBytes { a.ingest(linkType: .radiotap, timestampNs: r.timeNs, packet: $0, originalLength: r.bytes.count) }
        }
        return a.report(file: f.name)
    }

    static func station(_ r: CaptureReport, _ mac: MACAddress) throws -> CaptureStationReport {
        try #require(r.stations.first { $0.mac == mac })
    }

    @Test func aPhoneDozing30SecondsWithItsAIDInTheTIM() throws {
        let r = Self.analyze(Fixtures.stationDoze())
        let s = try Self.station(r, Fixtures.station)
        #expect(r.stations.count == 1)
        #expect(s.bssid == Fixtures.ap1)
        #expect(s.frames == 11 && s.retryFrames == 1 && s.powerSaveFrames == 5)
        #expect(s.listenInterval == Int(Fixtures.dozeListenInterval) && s.aid == Int(Fixtures.dozeAID))
        #expect(s.beaconIntervalTu == 100 && s.dtimPeriod == Int(Fixtures.dozeDTIM))
        let d = s.dozes
        #expect(d.count == 3 && d.totalMs == 30_310 && d.longestMs == 30_000)
        #expect(d.wokeByPsPoll == 1 && d.wokeByPmClear == 1 && d.wokeByUapsdTrigger == 1 && d.wokeByOther == 0)
        #expect(d.framesFromApWhileDozing == 3)
        #expect(d.bufferedInTim == 1 && d.notBufferedInTim == 1 && d.timUnknown == 1)
        #expect(d.dozingAtEnd)
        #expect(s.silences.count == 1)
        let x = try #require(s.silences.first)
        #expect(x.durationMs == 29_999)
        #expect(x.before == SilenceEdge(kind: .dozing, bssid: Fixtures.ap1))
        #expect(x.after.kind == .woke)
        #expect(s.roams.isEmpty && s.steering.isEmpty)
        let bss = try #require(r.bss.first { $0.bssid == Fixtures.ap1 })
        #expect(bss.beaconIntervalTu == 100 && bss.dtimPeriod == 3)
        // A longer --silence finds none.
        #expect(try Self.station(Self.analyze(Fixtures.stationDoze(), silence: 40_000_000_000), Fixtures.station).silences.isEmpty)
    }

    /// A BSS whose TIMs are not followed (past `timTrackers`) leaves whether its stations' frames
    /// were buffered UNKNOWN, not "not buffered", and is counted (`untracked_tim_bsses`).
    @Test func aBSSPastTheTIMTrackersLeavesBufferingUnknown() throws {
        var o = CaptureAnalyzer.Options()
        o.stations.timTrackers = 0
        var a = CaptureAnalyzer(options: o)
        for r in Fixtures.stationDoze().records {
            r.bytes.withUnsafeBytes { a.ingest(linkType: .radiotap, timestampNs: r.timeNs, packet: $0, originalLength: r.bytes.count) }
        }
        let report = a.report(file: "untracked")
        let d = try Self.station(report, Fixtures.station).dozes
        #expect(d.count == 3 && d.bufferedInTim == nil && d.notBufferedInTim == nil && d.timUnknown == 3, "\(d)")
        #expect(report.untrackedTimBsses == 1 && Self.analyze(Fixtures.stationDoze()).untrackedTimBsses == 0)
        #expect(CaptureTextRenderer().render(report).contains("1 BSS's TIMs beyond the BSSs followed were not read"))
    }

    @Test func aBTMRequestWithDisassociationImminentThenADeauthentication() throws {
        let r = Self.analyze(Fixtures.steering())
        let s = try Self.station(r, Fixtures.station)
        let st = s.steering
        #expect(st.btmRequests == 1 && st.btmDisassociationImminent == 1 && st.btmCandidates == 1)
        #expect(st.btmResponses == 1 && st.btmResponsesByStatus == ["7": 1])
        #expect(st.saQueryRequests == 1 && st.saQueryResponses == 1)
        #expect(st.deauthByReason == ["12": 1] && st.deauthFromAp == 1 && st.deauthFromStations == 0)
        #expect(st.disassocByReason == ["8": 1] && st.disassocFromStations == 1)
        #expect(s.authAlgorithms == ["0": 1])
        #expect(s.aid == 3 && s.listenInterval == 3)
        #expect(s.bssid == Fixtures.ap1 && s.beaconIntervalTu == 100)  // the BSS it left last
        let ap2 = try #require(r.bss.first { $0.bssid == Fixtures.ap2 }).steering
        #expect(ap2.btmRequests == 1 && ap2.btmResponsesByStatus == ["7": 1] && ap2.deauthByReason == ["12": 1] && ap2.deauthFromAp == 1)
        #expect(ap2.disassocByReason.isEmpty)
        let hours = try #require(r.bss.first { $0.bssid == Fixtures.ap2 }).steeringByHour
        #expect(hours.map(\.steering) == [ap2] && hours.first?.hour.hasPrefix("2026-01-01T00:00:00") == true)
        let ap1 = try #require(r.bss.first { $0.bssid == Fixtures.ap1 }).steering
        #expect(ap1.disassocByReason == ["8": 1] && ap1.disassocFromStations == 1 && ap1.btmRequests == 0)
        // The 13 s silence: deauthenticated by AP2 (reason 12) before, back on AP1 after.
        #expect(s.silences.count == 1)
        let x = try #require(s.silences.first)
        #expect(x.durationMs == 13_000)
        #expect(x.before == SilenceEdge(kind: .deauthentication, by: .ap, reasonCode: 12, bssid: Fixtures.ap2))
        #expect(x.after == SilenceEdge(kind: .roam, bssid: Fixtures.ap1))
        // The association after the deauthentication is an open roam, its gap from the deauthentication.
        let roam = try #require(s.roams.first)
        #expect(s.roams.count == 1)
        #expect(roam.fromBssid == Fixtures.ap2 && roam.toBssid == Fixtures.ap1 && roam.type == .open)
        #expect(roam.statusCode == 0 && roam.gapMs == 11_510 && roam.grade == .critical)
    }

    /// A doze the AP ends with a deauthentication ends there (woke: other), not at the
    /// station's next frame ten minutes later on another AP.
    @Test func aDozeEndsWhenTheStationLeavesItsBSS() throws {
        let (sta, a, b) = (Fixtures.station, Fixtures.ap1, Fixtures.ap2)
        let s = Int64(1_000_000_000)
        let frames: [(Int64, [UInt8])] = [
            (0, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: true, qos: true)),
            (2 * s, FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4)),
            (600 * s, FrameBuilder.authentication(from: sta, to: b, bssid: b, algorithm: 0, transaction: 1, status: 0)),
        ]
        var analyzer = CaptureAnalyzer()
        for (t, f) in frames { f.withUnsafeBytes { analyzer.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) } }
        let d = try Self.station(analyzer.report(file: "left"), sta).dozes
        #expect(d.count == 1 && d.totalMs == 2000 && d.longestMs == 2000 && d.wokeByOther == 1 && d.wokeByPmClear == 0 && !d.dozingAtEnd, "\(d)")
        // A stale deauthentication from the AP it left does not end a doze on the one it is on.
        var other = CaptureAnalyzer()
        for (t, f) in [
            (0, FrameBuilder.nullData(station: sta, bssid: b, powerManagement: true, qos: true)),
            (2 * s, FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4)),
            (5 * s, FrameBuilder.nullData(station: sta, bssid: b, powerManagement: false)),
        ] as [(Int64, [UInt8])] {
            f.withUnsafeBytes { other.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) }
        }
        let kept = try Self.station(other.report(file: "stale"), sta).dozes
        #expect(kept.count == 1 && kept.totalMs == 5000 && kept.wokeByPmClear == 1 && kept.wokeByOther == 0, "\(kept)")
    }

    /// The AID is the AP's that gave it: a station that roamed to another AP whose response the
    /// capture missed dozes there with its AID not known, and the other AP's TIM, which sets
    /// the same number for another station, does not make its doze "buffered".
    @Test func anAIDIsReadInTheTIMOfTheAPThatGaveIt() throws {
        let (sta, a, b) = (Fixtures.station, Fixtures.ap1, Fixtures.ap2)
        let ms = Int64(1_000_000)
        var o = FrameBuilder.BeaconOptions(ssid: "ward", channel: 36)
        o.tim = (1, [5])
        func doze(on bssid: MACAddress, at t: Int64) -> [(Int64, [UInt8])] {
            [
                (t, FrameBuilder.nullData(station: sta, bssid: bssid, powerManagement: true)),
                (t + 100 * ms, FrameBuilder.beacon(bssid: bssid, o)),
                (t + 200 * ms, FrameBuilder.nullData(station: sta, bssid: bssid, powerManagement: false)),
            ]
        }
        let frames: [(Int64, [UInt8])] =
            [
                (0, FrameBuilder.request(reassociation: false, station: sta, bssid: a, currentAP: nil, ssid: "ward", listenInterval: 3)),
                (ms, FrameBuilder.associationResponse(reassociation: false, station: sta, bssid: a, status: 0, aid: 5)),
            ] + doze(on: a, at: 10 * ms)
            // Reassociated to b: the request is seen, b's response (its AID) is not.
            + [(1000 * ms, FrameBuilder.request(reassociation: true, station: sta, bssid: b, currentAP: a, ssid: "ward", listenInterval: 3))]
            + doze(on: b, at: 1100 * ms)
        var analyzer = CaptureAnalyzer()
        for (t, f) in frames { f.withUnsafeBytes { analyzer.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) } }
        let d = try Self.station(analyzer.report(file: "aid"), sta).dozes
        #expect(d.count == 2 && d.bufferedInTim == 1 && d.notBufferedInTim == 0 && d.timUnknown == 1, "\(d)")
    }

    /// A deauthentication, disassociation or action frame sent again (Retry set, the sequence
    /// number of its sender's last one) is the same frame: counted once by reason, as steering
    /// and as BTM, while the frame and retry counts keep every copy. A Retry frame whose original
    /// the capture missed (a new sequence number) counts.
    @Test func aRetransmittedSteeringFrameCountsOnce() throws {
        let (sta, a) = (Fixtures.station, Fixtures.ap1)
        func sent(_ frame: [UInt8], sequence: UInt16, retry: Bool) -> [UInt8] {
            var f = frame
            if retry { f[1] |= 0x08 }
            (f[22], f[23]) = (UInt8(truncatingIfNeeded: sequence << 4), UInt8(truncatingIfNeeded: sequence >> 4))
            return f
        }
        let btm = FrameBuilder.btmRequest(station: sta, bssid: a, mode: 0x04, disassociationTimer: 10, validity: 255, candidates: [Fixtures.ap2])
        let deauth = FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4)
        let frames: [[UInt8]] = [
            sent(btm, sequence: 100, retry: false), sent(btm, sequence: 100, retry: true), sent(btm, sequence: 100, retry: true),
            sent(btm, sequence: 101, retry: true),  // its original not captured
            sent(btm, sequence: 102, retry: false),  // a new request, not a retransmission
            sent(deauth, sequence: 103, retry: false), sent(deauth, sequence: 103, retry: true),
        ]
        var analyzer = CaptureAnalyzer()
        for (i, f) in frames.enumerated() {
            f.withUnsafeBytes { analyzer.ingest(linkType: .ieee80211, timestampNs: Int64(i) * 1_000_000, packet: $0, originalLength: f.count) }
        }
        let r = analyzer.report(file: "retries")
        #expect(r.frames == 7 && r.retryFrames == 4, "\(r.frames) \(r.retryFrames)")
        #expect(r.management.action == 5 && r.management.deauthentication == 2)
        let st = try Self.station(r, sta).steering
        #expect(st.btmRequests == 3 && st.btmDisassociationImminent == 3 && st.deauthByReason == ["4": 1] && st.deauthFromAp == 1, "\(st)")
        let ap = try #require(r.bss.first { $0.bssid == a }).steering
        #expect(ap.btmRequests == 3 && ap.deauthByReason == ["4": 1], "\(ap)")
        #expect(r.bssTransitionManagement.requests == 3)
    }

    /// 802.11w: a protected deauthentication or action frame has its body encrypted. It counts by
    /// its addresses, its reason "unknown" (not the ciphertext read as a reason), its action's
    /// kind not known; it still ends a doze and comes before a silence, reason null.
    @Test func protectedManagementFramesCountWithTheirReasonUnknown() throws {
        let (sta, a, b) = (Fixtures.station, Fixtures.ap1, Fixtures.ap2)
        let s = Int64(1_000_000_000)
        let frames: [(Int64, [UInt8])] = [
            (0, FrameBuilder.request(reassociation: false, station: sta, bssid: a, currentAP: nil, ssid: "ward", listenInterval: 3)),
            (1_000_000, FrameBuilder.associationResponse(reassociation: false, station: sta, bssid: a, status: 0, aid: 5)),
            (s, FrameBuilder.protected(FrameBuilder.btmRequest(station: sta, bssid: a, mode: 0x04, disassociationTimer: 10, validity: 255, candidates: [b]))),
            (2 * s, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: true, qos: true)),
            (3 * s, FrameBuilder.protected(FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4), packetNumber: 2)),
            (20 * s, FrameBuilder.request(reassociation: false, station: sta, bssid: b, currentAP: nil, ssid: "ward", listenInterval: 3)),
        ]
        var analyzer = CaptureAnalyzer()
        for (t, f) in frames { f.withUnsafeBytes { analyzer.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) } }
        let r = analyzer.report(file: "pmf")
        let st = try Self.station(r, sta)
        #expect(st.steering.deauthByReason == ["unknown": 1] && st.steering.deauthFromAp == 1, "\(st.steering)")
        #expect(st.steering.protectedActions == 1 && st.steering.btmRequests == 0 && st.steering.btmDisassociationImminent == 0)
        let ap = try #require(r.bss.first { $0.bssid == a }).steering
        #expect(ap.deauthByReason == ["unknown": 1] && ap.protectedActions == 1)
        #expect(st.dozes.count == 1 && st.dozes.totalMs == 1000 && st.dozes.wokeByOther == 1 && !st.dozes.dozingAtEnd, "\(st.dozes)")
        let silence = try #require(st.silences.first)
        #expect(silence.before == SilenceEdge(kind: .deauthentication, by: .ap, reasonCode: nil, bssid: a), "\(silence.before)")
        // The whole capture's view: the association after it follows a deauthentication whose
        // reason is not known; the action frame is not a BTM request.
        let event = try #require(r.roamingEvents.first)
        #expect(event.kind == .associationAfterDeauthentication && event.reasonCode == nil && event.fromBssid == a && event.toBssid == b)
        #expect(r.bssTransitionManagement.requests == 0 && r.bssTransitionManagement.protectedActions == 1)
        // The text says UNKNOWN, and why, where the reason would be.
        let text = CaptureTextRenderer().render(r)
        #expect(text.contains("deauthenticated by the AP (\(a)), reason UNKNOWN (a protected frame, 802.11w"), "\(text)")
        // Once in the silence's line, once in the roaming events' table.
        #expect(text.components(separatedBy: "reason UNKNOWN (a protected frame, 802.11w").count == 3, "\(text)")
        // Without the Protected bit, the same frames are read.
        var clear = CaptureAnalyzer()
        for (t, f) in [
            (0, FrameBuilder.btmRequest(station: sta, bssid: a, mode: 0x04, disassociationTimer: 10, validity: 255, candidates: [b])),
            (s, FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4)),
        ] as [(Int64, [UInt8])] {
            f.withUnsafeBytes { clear.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) }
        }
        let c = try Self.station(clear.report(file: "clear"), sta).steering
        #expect(c.deauthByReason == ["4": 1] && c.btmRequests == 1 && c.protectedActions == 0)
    }

    /// Two files' tables that together hold more codes than a table keeps: the other file's
    /// most frequent codes are kept first (then by code), the same every run, whatever order a
    /// dictionary walks them in.
    @Test func mergedCodeTablesKeepTheMostFrequentCodesTheSameEveryRun() {
        var a = CodeCounts<UInt16>()
        for code in 1...UInt16(20) { a.add(code) }
        var b = CodeCounts<UInt16>()
        for code in 100...UInt16(129) { b.add(code, Int(code) - 99) }  // 100 once, ..., 129 thirty times
        b.add(nil, 2)
        for _ in 0..<5 {
            var m = a
            m.merge(b)
            // 12 places left after a's 20: b's most frequent, 129 down to 118.
            #expect(Set(m.byCode.keys) == Set(1...20).union(118...129), "\(m.byCode.keys.sorted())")
            #expect(m.other == (100...117).map { Int($0) - 99 }.reduce(0, +) && m.unknown == 2)
            #expect(m.keyed["other"] == m.other && m.keyed["unknown"] == 2 && m.keyed["129"] == 30)
        }
    }

    /// Adding two files' steering adds every counter the report has (a counter added to the
    /// report and not to the list would be dropped by a merge): each field that is a count is
    /// in `SteeringReport.counters`, and adding a report to itself doubles each.
    @Test func addingSteeringAddsEveryCounter() {
        var r = SteeringReport()
        for (i, k) in SteeringReport.counters.enumerated() { r[keyPath: k] = i + 1 }
        let counts = Mirror(reflecting: r).children.filter { $0.value is Int || $0.value is Added<Int> }
        #expect(counts.count == SteeringReport.counters.count, "\(counts.map(\.label))")
        var doubled = r
        doubled.addCounters(r)
        #expect(SteeringReport.counters.enumerated().allSatisfy { doubled[keyPath: $0.element] == 2 * ($0.offset + 1) })
        var b = BSSTransitionReport()
        (b.queries, b.requests, b.responses, b.accepted, b.rejected, b.protectedActions) = (1, 2, 3, 4, 5, 6)
        var twice = b
        twice.add(b)
        let sums: [Int] = [twice.queries, twice.requests, twice.responses, twice.accepted, twice.rejected, twice.protectedActions]
        #expect(sums == [2, 4, 6, 8, 10, 12])
        #expect(Mirror(reflecting: b).children.filter { $0.value is Int || $0.value is Added<Int> }.count == 6)
    }

    /// A capture can carry any 16-bit reason: each table keeps 32 codes, the rest "other".
    @Test func reasonTablesAreBounded() throws {
        let (sta, a) = (Fixtures.station, Fixtures.ap1)
        var analyzer = CaptureAnalyzer()
        for reason in 0..<UInt16(40) {
            let f = FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 1000 + reason)
            f.withUnsafeBytes { analyzer.ingest(linkType: .ieee80211, timestampNs: Int64(reason) * 1000, packet: $0, originalLength: f.count) }
        }
        let r = analyzer.report(file: "reasons")
        let st = try Self.station(r, sta).steering
        #expect(st.deauthByReason.count == 33 && st.deauthByReason["other"] == 8 && st.deauthFromAp == 40, "\(st.deauthByReason)")
        #expect(st.deauthByReason.values.reduce(0, +) == 40)
        let ap = try #require(r.bss.first { $0.bssid == a }).steering
        #expect(ap.deauthByReason.count == 33 && ap.deauthByReason["other"] == 8)
        // Two files' tables add up within the same bound.
        var merged = analyzer
        merged.merge(analyzer)
        let m = try Self.station(merged.report(file: "both"), sta).steering
        #expect(m.deauthByReason.count == 33 && m.deauthByReason["other"] == 16 && m.deauthByReason.values.reduce(0, +) == 80, "\(m.deauthByReason)")
    }

    @Test func everyRoamType() throws {
        let r = Self.analyze(Fixtures.roamTypes())
        let types: [RoamType] = [.ftOverTheAir, .ftOverTheDS, .pmksaCaching, .sae, .eap, .open]
        let grades: [Severity] = [.ok, .ok, .ok, .ok, .warning, .ok]
        for (k, mac) in Fixtures.roamTypeStations.enumerated() {
            let s = try Self.station(r, mac)
            let roam = try #require(s.roams.first, "\(mac)")
            #expect(s.roams.count == 1, "\(mac)")
            #expect(roam.type == types[k], "\(mac): \(roam.type)")
            #expect(roam.fromBssid == Fixtures.ap1 && roam.toBssid == Fixtures.ap2 && roam.statusCode == 0, "\(mac)")
            #expect(roam.gapMs == Fixtures.roamTypeGapsMs[k], "\(mac): gap \(String(describing: roam.gapMs))")
            #expect(roam.grade == grades[k], "\(mac)")
            #expect(s.bssid == Fixtures.ap2 && s.aid == k + 1)
        }
        #expect(try Self.station(r, Fixtures.roamTypeStations[3]).authAlgorithms == ["3": 2])
    }

    /// An 802.1X roam's gap runs from its authentication to the 4-way handshake's message 4
    /// (180 ms in the fixture), not to the EAP Success (150 ms); without the handshake in the
    /// capture it is unknown, not the response's 5 ms.
    @Test func an8021XRoamsGapEndsAtTheFourWayHandshake() throws {
        let sta = Fixtures.roamTypeStations[4]
        let roam = try #require(try Self.station(Self.analyze(Fixtures.roamTypes()), sta).roams.first)
        #expect(roam.type == .eap && roam.gapMs == 180 && roam.grade == .warning)
        var f = Fixtures.roamTypes()
        let key: [UInt8] = [0x88, 0x8E, 2, 3]  // EAPOL version 2, packet type 3 (Key)
        f.records.removeAll { r in (0...(r.bytes.count - key.count)).contains { Array(r.bytes[$0..<($0 + key.count)]) == key } }
        #expect(f.records.count == Fixtures.roamTypes().records.count - 4)
        let cut = try #require(try Self.station(Self.analyze(f), sta).roams.first)
        #expect(cut.type == .eap && cut.gapMs == nil && cut.grade == nil)
    }

    @Test func theGradeFollowsTheWalksLimits() {
        let a = StationAnalysis()
        #expect(a.grade(type: .ftOverTheAir, gapMs: 80, status: 0) == .ok)
        #expect(a.grade(type: .ftOverTheDS, gapMs: 81, status: 0) == .warning)
        #expect(a.grade(type: .ftOverTheAir, gapMs: 151, status: 0) == .critical)
        #expect(a.grade(type: .open, gapMs: 100, status: 0) == .ok)
        #expect(a.grade(type: .sae, gapMs: 301, status: 0) == .critical)
        #expect(a.grade(type: .open, gapMs: nil, status: 17) == .critical)
        #expect(a.grade(type: .open, gapMs: nil, status: nil) == nil)
        // Limits set as walk's are (--ft-gap-*, --roam-gap-*): the same gaps graded on them.
        var o = StationAnalysis.Options()
        o.roamLimits = try! WalkThresholds.resolve(["ft_gap_warning": 50, "ft_gap_critical": 70, "roam_gap_critical": 1000]).get()
        let strict = StationAnalysis(options: o)
        #expect(strict.grade(type: .ftOverTheAir, gapMs: 60, status: 0) == .warning)
        #expect(strict.grade(type: .ftOverTheDS, gapMs: 80, status: 0) == .critical)
        #expect(strict.grade(type: .sae, gapMs: 301, status: 0) == .warning)
        #expect(strict.grade(type: .open, gapMs: nil, status: 17) == .critical)
    }

    @Test func unknownValuesAreNullNotZero() throws {
        // The retries fixture's station never associates in the capture: no listen interval, no AID.
        let s = try Self.station(Self.analyze(Fixtures.retriesAbove15Percent()), Fixtures.station)
        #expect(s.listenInterval == nil && s.aid == nil)
        #expect(s.dozes.count == 0 && s.dozes.longestMs == nil && s.dozes.bufferedInTim == nil)
        #expect(s.frames == Fixtures.retriesData && s.retryFrames == Fixtures.retriesRetried)
    }

    @Test func severalFilesAddUp() throws {
        var o = CaptureAnalyzer.Options()
        o.stations.silenceNs = 10_000_000_000
        var total = CaptureAnalyzer(options: o)
        for f in [Fixtures.stationDoze(), Fixtures.steering()] {
            var a = CaptureAnalyzer(options: o)
            for r in f.records {
                r.bytes.withUnsafeBytes { a.ingest(linkType: .radiotap, timestampNs: r.timeNs, packet: $0, originalLength: r.bytes.count) }
            }
            total.merge(a)
        }
        let s = try Self.station(total.report(), Fixtures.station)
        #expect(s.frames == 11 + 8)
        #expect(s.dozes.count == 3 && s.steering.btmRequests == 1 && s.roams.count == 1)
    }

    /// Two files where the second has the station deauthenticated: the total keeps how it left,
    /// so the silence to the end of the capture says so (merging dropped it: "nothing").
    @Test func severalFilesKeepHowAStationLeft() throws {
        let (sta, a, b) = (Fixtures.station, Fixtures.ap1, Fixtures.ap2)
        let s = Int64(1_000_000_000)
        func file(_ frames: [(Int64, [UInt8])]) -> CaptureAnalyzer {
            var x = CaptureAnalyzer()
            for (t, f) in frames { f.withUnsafeBytes { x.ingest(linkType: .ieee80211, timestampNs: t, packet: $0, originalLength: f.count) } }
            return x
        }
        var total = file([
            (0, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: false)),
            (s, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: false)),
        ])
        total.merge(
            file([
                (5 * s, FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4)),
                (30 * s, FrameBuilder.beacon(bssid: b, FrameBuilder.BeaconOptions(ssid: "ward", channel: 1))),
            ]))
        let st = try Self.station(total.report(), sta)
        let last = try #require(st.silences.last)
        #expect(last.after.kind == .endOfCapture && last.before == SilenceEdge(kind: .deauthentication, by: .ap, reasonCode: 4, bssid: a), "\(st.silences)")
        #expect(st.bssid == a)
        // A doze the first file ended in ends at the second's deauthentication, as in one file.
        var dozing = file([(0, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: true, qos: true))])
        dozing.merge(file([(4 * s, FrameBuilder.deauthentication(from: a, to: sta, bssid: a, reason: 4))]))
        let d = try Self.station(dozing.report(), sta).dozes
        #expect(d.count == 1 && d.totalMs == 4000 && d.wokeByOther == 1 && !d.dozingAtEnd, "\(d)")
        // A later file whose only news of the station is its new AP's answer (the station's own
        // frames not captured there): the total has it on that AP, as one file would.
        var moved = file([(0, FrameBuilder.nullData(station: sta, bssid: a, powerManagement: false))])
        moved.merge(file([(9 * s, FrameBuilder.associationResponse(reassociation: true, station: sta, bssid: b, status: 0, aid: 3))]))
        let m = try Self.station(moved.report(), sta)
        #expect(m.bssid == b && m.aid == 3, "\(m.bssid.map { "\($0)" } ?? "nil") \(m.aid.map { "\($0)" } ?? "nil")")
        // Files given later-first: the BSS and the AID are both the later association's.
        var reversed = file([(9 * s, FrameBuilder.associationResponse(reassociation: true, station: sta, bssid: b, status: 0, aid: 3))])
        reversed.merge(file([(s, FrameBuilder.associationResponse(reassociation: false, station: sta, bssid: a, status: 0, aid: 7))]))
        let r = try Self.station(reversed.report(), sta)
        #expect(r.bssid == b && r.aid == 3, "\(r.bssid.map { "\($0)" } ?? "nil") \(r.aid.map { "\($0)" } ?? "nil")")
    }

    /// A report stored before the per-station fields (the history's rows) still decodes, with
    /// them empty.
    @Test func aReportWithoutTheNewFieldsStillDecodes() throws {
        let r = Self.analyze(Fixtures.steering())
        var j = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(r)) as? [String: Any])
        j["stations"] = nil
        j["untrackedStations"] = nil
        j["bss"] = (j["bss"] as? [[String: Any]])?.map { b in
            var b = b
            b["steering"] = nil
            b["dtimPeriod"] = nil
            b["beaconIntervalTu"] = nil
            return b
        }
        let old = try JSONDecoder().decode(CaptureReport.self, from: JSONSerialization.data(withJSONObject: j))
        #expect(old.stations.isEmpty && old.untrackedStations == 0 && old.bss.allSatisfy { $0.steering.isEmpty && $0.dtimPeriod == nil })
        #expect(try JSONDecoder().decode(CaptureReport.self, from: JSONEncoder().encode(r)) == r)
    }

    // MARK: - Parsers

    @Test func timElement() {
        let e = FrameBuilder.tim(dtimCount: 1, dtimPeriod: 3, aids: [5, 17, 40])
        withBytes(Array(e.dropFirst(2))) { b in
            let t = TIMElement.parse(b)!
            #expect(t.dtimCount == 1 && t.dtimPeriod == 3 && t.firstAID == 0)
            #expect(t.isSet(aid: 5) && t.isSet(aid: 17) && t.isSet(aid: 40) && !t.isSet(aid: 6) && !t.isSet(aid: 2000))
            var seen: [Int] = []
            t.forEachSetAID { seen.append($0) }
            #expect(seen == [5, 17, 40])
        }
        // An offset bitmap: N1 = 2 (AIDs 16 on), AID 17 set; AIDs below the offset are not set.
        withBytes([0, 1, 2, 0x02]) { b in
            let t = TIMElement.parse(b)!
            #expect(t.firstAID == 16 && t.isSet(aid: 17) && !t.isSet(aid: 1))
        }
        withBytes(FrameBuilder.element(0, [0x61]) + e + FrameBuilder.element(3, [6])) { #expect(TIMElement.find(in: $0)?.dtimPeriod == 3) }
    }

    @Test func btmRequestAndResponse() {
        let req = FrameBuilder.btmRequest(
            station: Fixtures.station, bssid: Fixtures.ap1, mode: 0x05, disassociationTimer: 15, validity: 10, candidates: [Fixtures.ap1, Fixtures.ap2])
        withBytes(Array(req.dropFirst(24))) { b in
            let r = BTMRequest.parse(b)!
            #expect(r.disassociationImminent && r.disassociationTimer == 15 && r.validityInterval == 10 && r.candidates == 2)
        }
        let resp = FrameBuilder.btmResponse(station: Fixtures.station, bssid: Fixtures.ap1, status: 0, target: Fixtures.ap2)
        withBytes(Array(resp.dropFirst(24))) { b in
            let r = BTMResponse.parse(b)!
            #expect(r.status == 0 && r.target == Fixtures.ap2)
        }
    }

    @Test func rsnPMKIDCount() {
        withBytes(FrameBuilder.rsnWithPMKIDs(2)) { #expect(ElementSummary.parse($0).rsnPMKIDCount == 2) }
        // A beacon's RSN element ends at its capabilities: no PMKID count.
        withBytes(FrameBuilder.elements(.init(ssid: "a", channel: 1))) { #expect(ElementSummary.parse($0).rsnPMKIDCount == nil) }
    }

    /// Every prefix of every frame the parsers read, and bytes of every value: nothing crashes,
    /// nothing reads past the end, and a cut frame yields nothing or what it holds.
    @Test func truncatedAndHostileInputNeverCrash() {
        let frames: [[UInt8]] = [
            FrameBuilder.tim(dtimCount: 0, dtimPeriod: 1, aids: [1, 2007]),
            Array(
                FrameBuilder.btmRequest(
                    station: Fixtures.station, bssid: Fixtures.ap1, mode: 0x1F, disassociationTimer: 1, validity: 1, candidates: [Fixtures.ap2]
                )
                .dropFirst(24)),
            Array(FrameBuilder.btmResponse(station: Fixtures.station, bssid: Fixtures.ap1, status: 0, target: Fixtures.ap2).dropFirst(24)),
            Array(FrameBuilder.eap(from: Fixtures.ap1, to: Fixtures.station, bssid: Fixtures.ap1, toDS: false, code: 3, identifier: 1).dropFirst(24)),
            Array(FrameBuilder.associationResponse(reassociation: false, station: Fixtures.station, bssid: Fixtures.ap1, status: 0, aid: 5).dropFirst(24)),
            FrameBuilder.rsnWithPMKIDs(3),
        ]
        for f in frames {
            for n in 0...f.count {
                withBytes(Array(f.prefix(n))) { b in
                    if let t = TIMElement.parse(b) { t.forEachSetAID { #expect($0 < 4096) } }
                    _ = TIMElement.find(in: b)
                    if let r = BTMRequest.parse(b) { #expect(r.candidates <= 1) }
                    _ = BTMResponse.parse(b)
                    _ = AssociationFields.response(b)
                    _ = AssociationFields.requestElements(b, reassociation: true).map(ElementSummary.parse)
                    _ = EAPOLFrame.parse(b)
                    _ = ElementSummary.parse(b)
                }
            }
        }
        // A TIM whose bitmap offset points past any AID, and a BTM request whose URL length runs past the end.
        withBytes([0, 1, 0xFE, 0xFF]) { b in
            let t = TIMElement.parse(b)!
            var n = 0
            t.forEachSetAID { _ in n += 1 }
            #expect(n == 8 && !t.isSet(aid: 5))
        }
        withBytes([10, 7, 1, 0x10, 0, 0, 0, 200, 1, 2]) { #expect(BTMRequest.parse($0)?.candidates == 0) }
        // Truncated management frames through the whole analyser: every prefix of each fixture's records.
        var a = CaptureAnalyzer()
        for f in [Fixtures.stationDoze(), Fixtures.steering(), Fixtures.roamTypes()] {
            for r in f.records.prefix(60) {
                for n in stride(from: 0, through: r.bytes.count, by: 3) {
                    Array(r.bytes.prefix(n)).withUnsafeBytes { a.ingest(linkType: .radiotap, timestampNs: r.timeNs, packet: $0, originalLength: r.bytes.count) }
                }
            }
        }
        _ = a.report()
    }
}
