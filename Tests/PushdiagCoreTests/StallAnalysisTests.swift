import Testing

@testable import PushdiagCore

/// Bad heartbeats joined with the link's activities on synthetic events: the stall margin at its
/// boundary, half-open spans (a heartbeat answered exactly when a scan starts did not overlap it),
/// which cause wins when several overlap, lost heartbeats in flight over their timeout, repeats
/// at a period within the tolerance, and the events paired into spans.
struct StallAnalysisTests {
    let s: Int64 = 1_000_000_000
    let ms: Int64 = 1_000_000

    /// 20 heartbeats of 10 ms, one a second, then `extra` (p95 stays 10 ms with one or two slow).
    func run(_ extra: [StallAnalysis.Heartbeat]) -> [StallAnalysis.Heartbeat] {
        (0..<20).map { StallAnalysis.Heartbeat(sentNs: Int64($0) * s, rttMs: 10) } + extra
    }

    func explain(_ hb: [StallAnalysis.Heartbeat], _ acts: [LinkActivity], timeoutMs: Double = 2000) -> StallReport {
        StallAnalysis.explain(heartbeats: hb, timeoutMs: timeoutMs, activities: acts, scansSeen: 0)
    }

    func scan(_ from: Int64, _ to: Int64) -> LinkActivity { LinkActivity(startNs: from, endNs: to, cause: .ownScan, detail: "scan") }

    /// A long walk's scans: 1,500 every 120 s with an unrelated stall beside every third one
    /// make one repeat of all 1,500 (the period is sought among near neighbours only).
    @Test func aLongWalksRepeatIsFoundWholeAmongOtherStalls() {
        let s: Int64 = 1_000_000_000
        let scans = (0..<1500).map { Int64($0) * 120 * s }
        let others = stride(from: 0, to: 1500, by: 3).map { Int64($0) * 120 * s + 37 * s }
        let r = StallAnalysis.repeating(.ownScan, scans + others)
        #expect(r?.occurrences == 1500 && r?.periodSeconds == 120, "\(String(describing: r))")
    }

    @Test func slowerThanP95ByTheMarginIsAStallNotAt() {
        // p95 of 21 answered (nearest rank 20) is 10 ms; the margin's default is 30 ms.
        #expect(ThresholdRow.stallMargin.warning == 30)
        let at = explain(run([.init(sentNs: 30 * s, rttMs: 40)]), [])
        #expect(at.stalls.isEmpty && at.summary.slowerThanMs == 40 && at.summary.p95Ms == 10, "\(at.summary)")
        let over = explain(run([.init(sentNs: 30 * s, rttMs: 40.001)]), [])
        #expect(over.stalls.count == 1 && over.stalls[0].cause == .noneSeen && over.stalls[0].detail == nil)
        #expect(over.summary.ownShare == 0 && over.summary.bad == 1 && over.summary.lost == 0)
    }

    @Test func aHeartbeatAnsweredExactlyWhenAScanStartsIsNotTheScans() {
        let slow = StallAnalysis.Heartbeat(sentNs: 30 * s, rttMs: 200)
        let answered = 30 * s + 200 * ms
        #expect(explain(run([slow]), [scan(answered, answered + 500 * ms)]).stalls.map(\.cause) == [.noneSeen])
        #expect(explain(run([slow]), [scan(answered - 1, answered + 500 * ms)]).stalls.map(\.cause) == [.ownScan])
        // A scan that ended exactly when the heartbeat was sent had given the channel back.
        #expect(explain(run([slow]), [scan(29 * s, 30 * s)]).stalls.map(\.cause) == [.noneSeen])
        #expect(explain(run([slow]), [scan(29 * s, 30 * s + 1)]).stalls.map(\.cause) == [.ownScan])
    }

    @Test func aLostHeartbeatIsInFlightForItsTimeout() {
        let lost = StallAnalysis.Heartbeat(sentNs: 30 * s, rttMs: nil)
        let r = explain(run([lost]), [scan(30 * s + 2000 * ms - 1, 33 * s)])
        #expect(r.stalls.map(\.cause) == [.ownScan] && r.stalls[0].lost && r.stalls[0].rttMs == nil)
        #expect(explain(run([lost]), [scan(30 * s + 2000 * ms, 33 * s)]).stalls.map(\.cause) == [.noneSeen])
        #expect(explain(run([lost]), [scan(30 * s + 1000 * ms, 33 * s)], timeoutMs: 1000).stalls.map(\.cause) == [.noneSeen])
    }

    @Test func anInstantCountsFromTheSendToBeforeTheAnswer() {
        let slow = StallAnalysis.Heartbeat(sentNs: 30 * s, rttMs: 200)
        let roam = { (t: Int64) in LinkActivity(startNs: t, endNs: t, cause: .roam, detail: "roamed") }
        #expect(explain(run([slow]), [roam(30 * s)]).stalls.map(\.cause) == [.roam])
        #expect(explain(run([slow]), [roam(30 * s + 200 * ms)]).stalls.map(\.cause) == [.noneSeen])
        #expect(explain(run([slow]), [roam(30 * s - 1)]).stalls.map(\.cause) == [.noneSeen])
    }

    /// Which wins, and why: the disconnect (the scans while disconnected are the supplicant's
    /// search for an AP), radar over the switch it forces, the network's switch over this
    /// machine's scan (so the own share is a lower bound), nl80211 over rtnetlink.
    @Test func overlappingCausesTheFirstOfTheOrderWins() {
        let slow = StallAnalysis.Heartbeat(sentNs: 30 * s, rttMs: 500)
        func winner(_ causes: [StallCause]) -> StallCause? {
            explain(run([slow]), causes.map { LinkActivity(startNs: 30 * s + 100 * ms, endNs: 30 * s + 300 * ms, cause: $0, detail: $0.rawValue) }).stalls
                .first?
                .cause
        }
        #expect(winner([.ownScan, .disconnect]) == .disconnect)
        #expect(winner([.ownScan, .roam]) == .roam)
        #expect(winner([.channelSwitch, .radar]) == .radar)
        #expect(winner([.ownScan, .channelSwitch]) == .channelSwitch)
        #expect(winner([.linkChange, .ownScan]) == .ownScan)
        #expect(winner([.linkChange]) == .linkChange)
        #expect(StallCause.allCases.last == .noneSeen)
    }

    @Test func theOwnShareIsOwnScansOverBadHeartbeats() {
        let bad: [StallAnalysis.Heartbeat] = [.init(sentNs: 30 * s, rttMs: nil), .init(sentNs: 40 * s, rttMs: nil), .init(sentNs: 50 * s, rttMs: 300)]
        let r = explain(run(bad), [scan(30 * s + 10 * ms, 30 * s + 90 * ms), LinkActivity(startNs: 40 * s, endNs: 41 * s, cause: .disconnect, detail: "d")])
        #expect(r.stalls.map(\.cause) == [.ownScan, .disconnect, .noneSeen])
        #expect(r.summary.ownShare == 0.333 && r.summary.bad == 3 && r.summary.lost == 2)
        #expect(r.summary.byCause.first { $0.cause == .ownScan }?.count == 1 && r.summary.byCause.count == StallCause.allCases.count)
    }

    /// Scans every 120 s (±0.5 s) each spoiling a heartbeat repeat; a stray stall does not break
    /// the chain; 5% of the period (6 s) is the tolerance, and two are not a repeat.
    @Test func aStallEvery120sIsFoundAndNamed() {
        func report(_ starts: [Int64]) -> StallReport {
            let hb =
                (0..<600).map { StallAnalysis.Heartbeat(sentNs: Int64($0) * s, rttMs: 10) }
                + starts.map { StallAnalysis.Heartbeat(sentNs: $0, rttMs: 300) }
            return explain(hb.sorted { $0.sentNs < $1.sentNs }, starts.map { scan($0 + 10 * ms, $0 + 100 * ms) })
        }
        let every = report([10 * s, 130 * s + 500 * ms, 250 * s, 300 * s, 370 * s - 500 * ms])
        #expect(every.summary.periodic.count == 1, "\(every.summary.periodic)")
        let p = every.summary.periodic.first
        #expect(p?.cause == .ownScan && p?.occurrences == 4 && p.map { abs($0.periodSeconds - 120) < 0.5 } == true)
        #expect(report([10 * s, 130 * s, 256 * s]).summary.periodic.count == 1, "6 s off is within 5% of 120 s")
        #expect(report([10 * s, 130 * s, 256 * s + 1 * ms]).summary.periodic.isEmpty, "6.001 s off is not")
        #expect(report([10 * s, 130 * s]).summary.periodic.isEmpty)
    }

    @Test func oneActivityIsOneOccurrenceHoweverManyHeartbeatsItSpoils() {
        // A disconnect of 10 s spoils five lost heartbeats each time, every 60 s: three
        // occurrences, a period of 60 s (not 2 s, the heartbeats' own spacing).
        var hb = (0..<200).map { StallAnalysis.Heartbeat(sentNs: Int64($0) * 2 * s, rttMs: 10) }
        var acts: [LinkActivity] = []
        for start in [Int64(60), 120, 180] {
            acts.append(LinkActivity(startNs: start * s, endNs: (start + 10) * s, cause: .disconnect, detail: "d"))
            for i in hb.indices where hb[i].sentNs >= start * s && hb[i].sentNs < (start + 10) * s { hb[i].rttMs = nil }
        }
        let r = explain(hb, acts)
        #expect(r.stalls.count == 15 && r.summary.periodic.map(\.occurrences) == [3])
        #expect(r.summary.periodic.first?.periodSeconds == 60)
    }

    @Test func eventsArePairedIntoSpansOfThisInterfaceOnly() {
        var log = LinkActivityLog(ifindex: 4)
        let trigger = NL80211.Command.triggerScan.rawValue
        log.add(.other(command: trigger, ifindex: 9), at: 1 * s)
        log.add(.other(command: trigger, ifindex: 4), at: 2 * s)
        log.add(.newScanResults(ifindex: 4), at: 2 * s + 80 * ms)
        log.requestedScan(at: 3 * s)
        log.add(.other(command: trigger, ifindex: 4), at: 3 * s + 5 * ms)
        log.add(.other(command: NL80211.Command.scanAborted.rawValue, ifindex: 4), at: 3 * s + 50 * ms)
        log.add(.disconnect(ifindex: 4, reason: 3, byAP: true), at: 5 * s)
        log.add(.connect(ifindex: 4, bssid: MACAddress(rawValue: 0x0200_0000_0100), status: 0, timedOut: false, fastTransition: nil), at: 6 * s)
        log.add(.connect(ifindex: 4, bssid: MACAddress(rawValue: 0x0200_0000_0200), status: 0, timedOut: false, fastTransition: nil), at: 7 * s)
        log.add(.channelSwitch(ifindex: 4, frequency: 5260, started: true, beacons: 5), at: 8 * s)
        log.add(.channelSwitch(ifindex: 4, frequency: 5260, started: false, beacons: nil), at: 8 * s + 500 * ms)
        log.add(.radar(ifindex: 4, frequency: 5260, event: 0), at: 9 * s)
        log.add(.other(command: trigger, ifindex: 4), at: 20 * s)
        log.add(WalkInterfaceChange(timeNs: 21 * s, change: .carrierDown, address: nil))
        let a = log.finished(at: 40 * s)
        #expect(log.scansStarted == 3)
        #expect(a.map(\.cause) == [.ownScan, .ownScan, .disconnect, .roam, .channelSwitch, .radar, .ownScan, .linkChange])
        #expect(a[0].startNs == 2 * s && a[0].endNs == 2 * s + 80 * ms && a[0].detail.contains("80 ms"))
        #expect(a[1].detail.hasPrefix("pushdiag's scan") && a[1].detail.hasSuffix("aborted"))
        #expect(a[2].startNs == 5 * s && a[2].endNs == 6 * s && a[2].detail.contains("by the AP, reason 3"))
        #expect(a[4].startNs == 8 * s && a[4].detail == "the BSS switched to 5260 MHz, announced 5 beacons ahead")
        #expect(a[5].detail == "radar detected on 5260 MHz")
        // A scan with no end seen lasts 10 s at most; the carrier down lasts to the run's end.
        #expect(a[6].endNs == 30 * s && a[7].endNs == 40 * s)
    }

    @Test func channelSwitchAndRadarDecodeFromTheirMessages() {
        func decode(_ cmd: NL80211.Command, _ attrs: [(UInt16, UInt32)]) -> NL80211.Event? {
            var b = NetlinkMessageBuilder(type: 0x22, flags: 0, sequence: 0)
            b.genl(command: cmd.rawValue)
            for (t, v) in attrs { b.attribute(t, u32: v) }
            return b.finish().withUnsafeBytes { raw in
                var e: NL80211.Event?
                try? Netlink.forEachMessage(raw) { e = NL80211.decode($0) }
                return e
            }
        }
        #expect(
            decode(.channelSwitchStartedNotify, [(NL80211.Attr.ifindex, 4), (NL80211.Attr.wiphyFreq, 5180), (NL80211.Attr.channelSwitchCount, 3)])
                == .channelSwitch(ifindex: 4, frequency: 5180, started: true, beacons: 3))
        #expect(decode(.channelSwitchNotify, [(NL80211.Attr.ifindex, 4)]) == .channelSwitch(ifindex: 4, frequency: nil, started: false, beacons: nil))
        #expect(decode(.radarDetect, [(NL80211.Attr.wiphyFreq, 5260), (NL80211.Attr.radarEvent, 0)]) == .radar(ifindex: nil, frequency: 5260, event: 0))
        // TRIGGER_SCAN stays `.other`, as a join reads it.
        #expect(decode(.triggerScan, [(NL80211.Attr.ifindex, 4)]) == .other(command: 33, ifindex: 4))
    }

    /// NEW_SCAN_RESULTS names the channels the scan covered (the kernel adds the request's
    /// NL80211_ATTR_SCAN_FREQUENCIES), and the activity log keeps each completed scan with them.
    @Test func scanResultsNameTheChannelsTheScanCovered() {
        var bytes = NL80211.triggerScan(family: 0x22, sequence: 1, ifindex: 4, frequencies: [2412, 5180])
        bytes[16] = NL80211.Command.newScanResults.rawValue
        var events: [NL80211.Event] = []
        bytes.withUnsafeBytes { raw in try? Netlink.forEachMessage(raw) { m in if let e = NL80211.decode(m) { events.append(e) } } }
        #expect(events == [.newScanResults(ifindex: 4, frequencies: [2412, 5180])], "\(events)")
        var log = LinkActivityLog(ifindex: 4)
        for e in events { log.add(e, at: 7) }
        log.add(.newScanResults(ifindex: 5, frequencies: [2437]), at: 8)
        #expect(log.completedScans == [CompletedScan(timeNs: 7, frequenciesMhz: [2412, 5180])])
        log.forget(endedBefore: 8)
        #expect(log.completedScans.isEmpty)
        // A dump reply of the cache (the same command, a BSS attribute) is no completed scan, even
        // one whose BSS does not parse.
        var dump = NL80211.triggerScan(family: 0x22, sequence: 1, ifindex: 4, frequencies: [2412])
        dump[16] = NL80211.Command.newScanResults.rawValue
        dump += [8, 0, UInt8(NL80211.Attr.bss & 0xFF), UInt8(NL80211.Attr.bss >> 8), 0, 0, 0, 0]
        dump[0] = UInt8(dump.count & 0xFF)
        dump[1] = UInt8(dump.count >> 8)
        var parsed: [NL80211.Event] = []
        dump.withUnsafeBytes { raw in try? Netlink.forEachMessage(raw) { m in if let e = NL80211.decode(m) { parsed.append(e) } } }
        #expect(parsed == [.other(command: NL80211.Command.newScanResults.rawValue, ifindex: 4)], "\(parsed)")
    }

    /// A scan asked with NL80211_SCAN_FLAG_FREQ_KHZ reports its channels in kHz
    /// (NL80211_ATTR_SCAN_FREQ_KHZ, 292 in the kernel's uapi header): the same channels, in MHz.
    @Test func scanResultsInKHzNameTheSameChannels() {
        var b = NetlinkMessageBuilder(type: 0x22, flags: 0, sequence: 1)
        b.genl(command: NL80211.Command.newScanResults.rawValue, version: 0)
        b.attribute(NL80211.Attr.ifindex, u32: 4)
        var nested: [UInt8] = []
        for (i, f) in [UInt32(2_412_000), 5_180_000, 5_955_000].enumerated() {
            nested += [8, 0, UInt8(i + 1), 0] + withUnsafeBytes(of: f.littleEndian, Array.init)
        }
        b.attribute(NL80211.Attr.scanFreqKHz, nested)
        var events: [NL80211.Event] = []
        b.finish().withUnsafeBytes { raw in try? Netlink.forEachMessage(raw) { m in if let e = NL80211.decode(m) { events.append(e) } } }
        #expect(events == [.newScanResults(ifindex: 4, frequencies: [2412, 5180, 5955])], "\(events)")
    }

    @Test func aTriggerRequestNamesItsChannels() {
        let bytes = NL80211.triggerScan(family: 0x22, sequence: 1, ifindex: 4, frequencies: [2412, 5180])
        var freqs: [UInt32] = []
        var ifindex: UInt32?
        bytes.withUnsafeBytes { raw in
            try? Netlink.forEachMessage(raw) { m in
                #expect(m.genlCommand == NL80211.Command.triggerScan.rawValue)
                Netlink.forEachAttribute(m.genlAttributes) { t, v in
                    if t == NL80211.Attr.ifindex { ifindex = v.nlU32 }
                    if t == NL80211.Attr.scanFrequencies { Netlink.forEachAttribute(v) { _, f in freqs += f.nlU32.map { [$0] } ?? [] } }
                }
            }
        }
        #expect(ifindex == 4 && freqs == [2412, 5180])
    }
}

/// The exporter's judge, one heartbeat at a time: the same rules over a window of recent round
/// trips and activities.
struct StallCounterTests {
    let s: Int64 = 1_000_000_000
    let ms: Int64 = 1_000_000

    /// 40 heartbeats of 10 ms, then a scan from 50.02 s to 50.15 s on ifindex 4.
    func counter() -> StallCounter {
        var c = StallCounter()
        for i in 0..<40 { #expect(c.judge(sentNs: Int64(i) * s, rttMs: 10, timeoutMs: 2000, nowNs: Int64(i) * s + 10 * ms) == nil) }
        c.add(.other(command: NL80211.Command.triggerScan.rawValue, ifindex: 4), at: 50 * s + 20 * ms, ifindex: 4)
        c.add(.newScanResults(ifindex: 4), at: 50 * s + 150 * ms, ifindex: 4)
        return c
    }

    @Test func aHeartbeatIsJudgedAsTheRunsWouldBe() {
        // The p95 of the 41 stays 10 ms: 40 is not over it by more than 30, 40.5 is.
        var at = counter()
        #expect(at.judge(sentNs: 50 * s, rttMs: 40, timeoutMs: 2000, nowNs: 50 * s + 40 * ms) == nil)
        var over = counter()
        #expect(over.judge(sentNs: 50 * s, rttMs: 40.5, timeoutMs: 2000, nowNs: 50 * s + 41 * ms) == .ownScan)
        // Answered before the scan began: not the scan's.
        var before = counter()
        #expect(before.judge(sentNs: 50 * s - 30 * ms, rttMs: 50, timeoutMs: 2000, nowNs: 50 * s + 20 * ms) == .noneSeen)
        var lost = counter()
        #expect(lost.judge(sentNs: 49 * s, rttMs: nil, timeoutMs: 2000, nowNs: 51 * s) == .ownScan)
        // Activities that ended longer ago than the window are forgotten.
        var late = counter()
        #expect(late.judge(sentNs: 49 * s, rttMs: nil, timeoutMs: 2000, nowNs: 50 * s + 150 * ms + StallCounter.keepNs + 1) == .noneSeen)
    }

    /// An exporter that follows an interface and holds no session never judges: what it is
    /// handed still goes once it ended `keepNs` before the last event (a scan a minute for a
    /// day and a half kept every one before).
    @Test func whatIsHandedInIsForgottenWithoutAJudge() {
        var c = StallCounter()
        let minute = 60 * s
        for i in 0..<Int64(2000) {
            c.add(.other(command: NL80211.Command.triggerScan.rawValue, ifindex: 4), at: i * minute, ifindex: 4)
            c.add(.newScanResults(ifindex: 4, frequencies: [2412]), at: i * minute + 100 * ms, ifindex: 4)
            c.add(WalkInterfaceChange(timeNs: i * minute + 200 * ms, change: .addressAdded, address: "10.0.0.2/24"), ifindex: 4)
        }
        // What ended at or after the last event less keepNs: the scans' results and spans (each
        // ends 100 ms into its minute), and the address changes (200 ms in).
        let since = 1999 * minute + 200 * ms - StallCounter.keepNs
        let scans = (0..<Int64(2000)).filter { $0 * minute + 100 * ms >= since }.count
        let changes = (0..<Int64(2000)).filter { $0 * minute + 200 * ms >= since }.count
        #expect(scans == 10 && changes == 11)
        #expect(c.completedScans(ifindex: 4).count == scans, "\(c.completedScans(ifindex: 4).count)")
        #expect(c.logs[4]?.activities.count == scans + changes, "\(c.logs[4]?.activities.count ?? 0)")
    }

    /// rtnetlink's changes (the exporter's third follower): the carrier down to up is one span,
    /// an address change an instant; either explains a stall in flight over it, and a scan over
    /// the same heartbeat outranks it (StallCause's order).
    @Test func carrierAndAddressChangesAreLinkChanges() {
        var c = counter()
        c.add(WalkInterfaceChange(timeNs: 60 * s, change: .carrierDown), ifindex: 4)
        c.add(WalkInterfaceChange(timeNs: 60 * s + 400 * ms, change: .carrierUp), ifindex: 4)
        c.add(WalkInterfaceChange(timeNs: 70 * s, change: .addressRemoved, address: "10.40.0.119/24"), ifindex: 4)
        var down = c
        #expect(down.judge(sentNs: 60 * s + 100 * ms, rttMs: 60, timeoutMs: 2000, nowNs: 60 * s + 160 * ms) == .linkChange)
        var address = c
        #expect(address.judge(sentNs: 70 * s - 20 * ms, rttMs: 60, timeoutMs: 2000, nowNs: 70 * s + 40 * ms) == .linkChange)
        var after = c
        #expect(after.judge(sentNs: 70 * s + 1 * ms, rttMs: 60, timeoutMs: 2000, nowNs: 70 * s + 61 * ms) == .noneSeen)
        var scan = c
        scan.add(WalkInterfaceChange(timeNs: 50 * s + 100 * ms, change: .addressAdded, address: "10.40.0.2/24"), ifindex: 4)
        #expect(scan.judge(sentNs: 50 * s, rttMs: 200, timeoutMs: 2000, nowNs: 50 * s + 200 * ms) == .ownScan)
    }
}
