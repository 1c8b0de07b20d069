import Foundation
import PushdiagRender
import Testing

@testable import PushdiagCore

/// The walk's decisions on synthetic timelines (the lab checks the same against a real radio).
struct WalkAnalysisTests {
    let ap1 = MACAddress(rawValue: 0x0200_0000_0100)
    let ap2 = MACAddress(rawValue: 0x0200_0000_0200)
    let s = Int64(1_000_000_000)
    let ms = Int64(1_000_000)

    /// Heartbeats every 250 ms from t0 for `count`, answered in 5 ms except those sent in `silent`.
    func heartbeats(from t0: Int64, count: Int, silent: ClosedRange<Int64>? = nil) -> [WalkHeartbeat] {
        (0..<count).map { i in
            let sent = t0 + Int64(i) * 250 * ms
            return WalkHeartbeat(sentNs: sent, rttMs: silent?.contains(sent) == true ? nil : 5)
        }
    }

    @Test func aFastTransitionWithinItsGapKeepsTheConnection() {
        let move = WalkLinkChange(
            timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "ward-3", toSsid: "ward-3", fromFreqMhz: 2412, toFreqMhz: 2437,
            fastTransition: true, linkGapMs: 40)
        let r = WalkAnalysis.roams(
            [move], heartbeats: heartbeats(from: 0, count: 80), reconnects: [], places: [WalkPlaceMark(timeNs: 0, name: "ward 3")],
            endNs: 20 * s)
        #expect(r.count == 1)
        let roam = r[0]
        #expect(roam.connection == .kept && roam.grade == .ok && !roam.bandChanged && roam.heartbeatsLost == 0 && roam.location == "ward 3")
        // The push gap: last answer before the link went down, first answer of a heartbeat sent after.
        #expect(roam.pushGapMs == 250, "answered at 9.755 s, then a heartbeat sent at 10 s answered at 10.005 s: \(String(describing: roam.pushGapMs))")
    }

    /// An address change across a move (a DHCP lease on another subnet) makes it at least a
    /// warning and says which; one outside the move's stretch (before the link went down by more
    /// than a second, or after the next move) belongs to no roam.
    @Test func anAddressChangeAcrossAMoveIsSaid() {
        let move = WalkLinkChange(
            timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "ward-3", toSsid: "ward-3", fastTransition: true, linkGapMs: 40)
        let later = WalkLinkChange(timeNs: 30 * s, fromBssid: ap2, toBssid: ap1, fromSsid: "ward-3", toSsid: "ward-3", fastTransition: true, linkGapMs: 40)
        let changes = [
            WalkInterfaceChange(timeNs: 8 * s, change: .addressAdded, address: "10.9.9.9/24"),
            WalkInterfaceChange(timeNs: 10 * s - 500 * ms, change: .carrierDown),
            WalkInterfaceChange(timeNs: 12 * s, change: .addressRemoved, address: "10.40.0.2/24"),
            WalkInterfaceChange(timeNs: 12 * s + 5 * ms, change: .addressAdded, address: "10.41.0.2/24"),
        ]
        let r = WalkAnalysis.roams(
            [move, later], heartbeats: heartbeats(from: 0, count: 160), reconnects: [], places: [], endNs: 40 * s, interface: changes)
        #expect(r[0].addressChanged && r[0].grade == .warning, "\(r[0])")
        #expect(r[0].reason == "the interface's address changed (-10.40.0.2/24 +10.41.0.2/24): connections on the old one are gone", "\(r[0].reason)")
        #expect(!r[1].addressChanged && r[1].grade == .ok)
    }

    /// The interface tracker on kernel-shaped messages: the dumps are the baseline, a repeated
    /// state is no change, carrier from IFLA_CARRIER or else the operational state.
    @Test func interfaceTrackerSeesOnlyChanges() {
        func message(_ type: UInt16, _ header: [UInt8], _ attrs: [(UInt16, [UInt8])]) -> [UInt8] {
            var b = NetlinkMessageBuilder(type: type, flags: 0, sequence: 0)
            b.raw(header)
            for (t, v) in attrs { b.attribute(t, v) }
            return b.finish()
        }
        func link(_ index: UInt8, carrier: UInt8?, operstate: UInt8? = nil, removed: Bool = false) -> [UInt8] {
            var attrs: [(UInt16, [UInt8])] = []
            if let carrier { attrs.append((RTNetlink.iflaCarrier, [carrier])) }
            if let operstate { attrs.append((RTNetlink.iflaOperstate, [operstate])) }
            return message(removed ? RTNetlink.delLink : RTNetlink.newLink, [0, 0, 1, 0, index, 0, 0, 0] + [UInt8](repeating: 0, count: 8), attrs)
        }
        func address(_ index: UInt8, _ a: [UInt8], prefix: UInt8, removed: Bool = false) -> [UInt8] {
            message(
                removed ? RTNetlink.delAddress : RTNetlink.newAddress, [2, prefix, 0, 0, index, 0, 0, 0], [(RTNetlink.ifaLocal, a), (RTNetlink.ifaAddress, a)])
        }
        var t = InterfaceTracker(ifindex: 7)
        func feed(_ bytes: [UInt8], _ time: Int64, baseline: Bool = false) {
            bytes.withUnsafeBytes { b in try? Netlink.forEachMessage(b) { t.apply($0, timeNs: time, baseline: baseline) } }
        }
        feed(link(7, carrier: 1), 0, baseline: true)
        feed(address(7, [10, 40, 0, 2], prefix: 24), 0, baseline: true)
        #expect(t.changes.isEmpty && t.carrier == true && t.addresses == ["10.40.0.2/24"])
        feed(link(7, carrier: 1), 1)  // the same state again
        feed(address(7, [10, 40, 0, 2], prefix: 24), 1)
        feed(link(8, carrier: 0), 1)  // another interface
        #expect(t.changes.isEmpty)
        feed(link(7, carrier: nil, operstate: 5), 2)  // dormant: no carrier
        feed(address(7, [10, 40, 0, 2], prefix: 24, removed: true), 3)
        feed(address(7, [10, 41, 0, 2], prefix: 24), 4)
        feed(link(7, carrier: 1), 5)
        feed(link(7, carrier: nil, removed: true), 6)
        #expect(
            t.changes == [
                WalkInterfaceChange(timeNs: 2, change: .carrierDown), WalkInterfaceChange(timeNs: 3, change: .addressRemoved, address: "10.40.0.2/24"),
                WalkInterfaceChange(timeNs: 4, change: .addressAdded, address: "10.41.0.2/24"), WalkInterfaceChange(timeNs: 5, change: .carrierUp),
                WalkInterfaceChange(timeNs: 6, change: .interfaceRemoved),
            ])
    }

    @Test func gapsAreGradedByKindOfRoam() {
        let t = WalkThresholds()
        func grade(_ ft: Bool, _ gap: Double) -> Severity {
            WalkAnalysis.grade(
                WalkLinkChange(timeNs: 0, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: ft, linkGapMs: gap),
                connection: .kept, t: t
            ).0
        }
        #expect(grade(true, 80) == .ok && grade(true, 81) == .warning && grade(true, 150) == .warning && grade(true, 151) == .critical)
        #expect(grade(false, 100) == .ok && grade(false, 101) == .warning && grade(false, 300) == .warning && grade(false, 301) == .critical)
        // The band change is the move's own: from its frequencies, none without both (the
        // exporter's events carry none), a warning that names both bands.
        func band(_ from: Int?, _ to: Int?) -> (Severity, [String]) {
            WalkAnalysis.grade(
                WalkLinkChange(
                    timeNs: 0, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fromFreqMhz: from, toFreqMhz: to, fastTransition: false,
                    linkGapMs: 10),
                connection: .kept, t: t)
        }
        #expect(band(2412, 5180) == (.warning, ["the band changed on one SSID (2.4 GHz → 5 GHz): iOS has stopped push providers there"]))
        #expect(band(5180, 5955).1 == ["the band changed on one SSID (5 GHz → 6 GHz): iOS has stopped push providers there"])
        for (from, to) in [(2412, 2437), (nil, 5180), (2412, nil), (nil, nil)] as [(Int?, Int?)] {
            #expect(band(from, to) == (.ok, []), "\(String(describing: from)) → \(String(describing: to))")
        }
    }

    /// One number for a gap: the reason names the gap the report keeps (to the microsecond) and
    /// the text prints, not the raw one rounded another way (the lab walk's 3931.674999 ms read
    /// 3931.68 in the table and 3931.67 in the finding).
    @Test func theReasonSaysTheGapTheReportKeeps() throws {
        let move = WalkLinkChange(
            timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: 3931.674_999_9)
        let r = WalkAnalysis.roams([move], heartbeats: heartbeats(from: 0, count: 80), reconnects: [], places: [], endNs: 20 * s)
        let kept = try #require(r.first?.linkGapMs)
        #expect(kept == 3931.675)
        #expect(r[0].reason.hasPrefix("link gap \(NumberText.format(kept)) ms, above 300 ms"), "\(r[0].reason)")
        // Just above a limit, the reason shows the digits that put it there: 300.004 ms, not
        // "300 ms, above 300 ms"; exactly at the limit, within it.
        for (gap, reason) in [(300.004, "link gap 300.004 ms, above 300 ms"), (100.004, "link gap 100.004 ms, above 100 ms"), (100.0, "within the limits")] {
            let m = WalkLinkChange(timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: gap)
            let graded = WalkAnalysis.roams([m], heartbeats: heartbeats(from: 0, count: 80), reconnects: [], places: [], endNs: 20 * s)
            #expect(graded.first?.reason.hasPrefix(reason) == true, "\(gap): \(graded.first?.reason ?? "none")")
        }
        #expect(
            NumberText.format(80.0004, beside: 80) == "80.0004" && NumberText.format(80.004, beside: 100) == "80"
                && NumberText.format(79.9999, beside: 80) == "79.9999")
        // On the limit's side of the value, never in exponent form, never more than six decimals.
        let near = NumberText.format(300.0005, beside: 300.0004)
        #expect(Double(near).map { $0 > 300.0004 } == true && NumberText.format(0.00001, beside: 0) == "0.00001", "\(near)")
        #expect(NumberText.format(-70.0004, beside: -70) == "-70.0004" && NumberText.format(300.00000001, beside: 300) == "300")
        // Past 1e15 Swift writes an exponent: kept, with the mantissa to two decimals (a config's
        // ft_gap_warning of Int64.max was refused as "9.22 is outside …").
        #expect(NumberText.format(Double(Int64.max)) == "9.22e+18" && NumberText.format(-1e300) == "-1e+300")
        #expect(NumberText.format(123_456.789) == "123456.79" && NumberText.format(2e15) == "2000000000000000" && NumberText.format(1e16) == "1e+16")
    }

    /// One precision for what a report keeps: a thousandth of the unit, from nanoseconds without
    /// a detour (the lab's 195.445971 ms gap is 195.446).
    @Test func keptIsAThousandthOfTheUnit() {
        #expect(Kept.ms(ns: 195_445_971) == 195.446 && Kept.ms(3931.674_999_9) == 3931.675 && Kept.ms(ns: 500) == 0.001 && Kept.ms(ns: 499) == 0)
        #expect(Kept.seconds(ns: 1_234_567_890) == 1.235 && Kept.seconds(2.0004) == 2 && Kept.seconds(ns: -1_500_000) == -0.002)
        #expect(Kept.ratio(2.0 / 3) == 0.667 && Kept.percent(100.0 * 2 / 3) == 66.667)
    }

    /// A move graded for its SSID change whose gap was not reported: the walk's finding has no
    /// value (null, not 0 ms) and passed no threshold; one graded on its gap names the limit.
    @Test func aRoamFindingsNumbersAreTheMeasuredOnes() throws {
        var t = WalkTimeline(interface: "wlan0", server: "push:3000", proto: "line", startNs: 0)
        t.endNs = 40 * s
        t.heartbeats = heartbeats(from: 0, count: 160)
        t.changes = [
            WalkLinkChange(timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "ward-3", toSsid: "guest", fastTransition: false),
            WalkLinkChange(timeNs: 20 * s, fromBssid: ap2, toBssid: ap1, fromSsid: "guest", toSsid: "guest", fastTransition: false, linkGapMs: 150),
        ]
        let roams = WalkReport.assemble(t).findings.filter { $0.check == .roam }
        #expect(roams.count == 2, "\(roams)")
        let unmeasured = try #require(roams.first { $0.message.contains("the SSID changed") })
        let slow = try #require(roams.first { $0.message.contains("link gap 150 ms") })
        #expect(unmeasured.value == nil && unmeasured.threshold == nil, "\(unmeasured)")
        #expect(slow.value == 150 && slow.threshold == 100, "\(slow)")
    }

    /// A gap just above a limit reads above it in the tables too, not only in the reason: the
    /// text and HTML roam tables printed "300 ms" beside WARNING and "link gap 300.004 ms, above
    /// 300 ms". A gap within the limits keeps two decimals.
    @Test func theTablesPrintAGapBesideTheLimitItWasGradedAgainst() throws {
        for (gap, cell, limit) in [(300.004, "300.004 ms", 300.0), (100.004, "100.004 ms", 100), (1000.004, "1000.004 ms", 1000), (45.125, "45.13 ms", 100)] {
            var t = WalkTimeline(interface: "wlan0", server: "push:3000", proto: "line", startNs: 0)
            t.endNs = 40 * s
            t.heartbeats = heartbeats(from: 0, count: 160)
            var w = WalkThresholds()
            w.roamCriticalMs = gap > 900 ? 1000 : 300
            t.changes = [WalkLinkChange(timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: gap)]
            let r = WalkReport.assemble(t, thresholds: w)
            let roam = try #require(r.roams.first)
            #expect(roam.linkGapLimitMs == limit, "\(gap): \(roam)")
            let text = WalkTextRenderer.render(r)
            let html = WalkHTMLRenderer(limits: w).render(r)
            #expect(
                text.contains(" \(cell) ") && html.contains("<td>\(cell)</td>") && html.contains("02:00:00:00:02:00: link gap \(cell), push gap"),
                "\(gap): \(text)")
        }
    }

    /// A predicted iPhone roam across bands says in the text and the page that the push provider
    /// restarts there (the laptop on 2412 at -75 dBm, a 5 GHz BSS at -60 preferred over a stronger
    /// 2.4 GHz one).
    @Test func aPredictedRoamAcrossBandsSaysThePushRestarts() {
        var t = WalkTimeline(interface: "wlan0", server: "push:3000", proto: "line", startNs: 0)
        t.endNs = 10 * s
        t.heartbeats = heartbeats(from: 0, count: 40)
        t.samples = [WalkSample(timeNs: 5 * s, bssid: ap1, ssid: "ward-3", freqMhz: 2412, signalDbm: -75)]
        t.scans = [
            WalkScan(
                timeNs: 5 * s,
                entries: [
                    WalkBSS(bssid: ap2, ssid: "ward-3", freqMhz: 2437, signalDbm: -55, ageMs: 0),
                    WalkBSS(bssid: MACAddress(rawValue: 0x0200_0000_0300), ssid: "ward-3", freqMhz: 5180, signalDbm: -60, ageMs: 0),
                ])
        ]
        let r = WalkReport.assemble(t)
        #expect(r.predictedRoams.map(\.bandChanged) == [true], "\(r.predictedRoams)")
        #expect(WalkTextRenderer.render(r).contains("(band change: push restarts)"))
        #expect(WalkHTMLRenderer(limits: WalkThresholds()).render(r).contains("(band change: push restarts)"))
    }

    /// A place's retransmissions: graded on the retransmission limits, in percent spelt as every
    /// other finding spells it (it said "%").
    @Test func aPlacesRetriesAreAFindingInPercent() throws {
        var t = WalkTimeline(interface: "wlan0", server: "push:3000", proto: "line", startNs: 0)
        t.endNs = 20 * s
        t.heartbeats = heartbeats(from: 0, count: 80)
        t.samples = (0..<20).map { i in
            WalkSample(timeNs: Int64(i) * s, bssid: ap1, ssid: "a", freqMhz: 2412, signalDbm: -55, retries: 30, packets: 100, location: "")
        }
        let f = try #require(WalkReport.assemble(t).findings.first { $0.check == .retries })
        #expect(
            f.value == 30 && f.threshold == ThresholdRow.retransmission.critical && f.severity == .critical && f.unit == ValueUnit.percent.rawValue
                && f.source == RetransmissionSource.stationRetries.rawValue, "\(f)")
        // Frames sent while the driver gave no retries are in neither the share nor the count
        // the finding says, nor in the frames it needs before judging.
        t.samples += (20..<40).map { i in WalkSample(timeNs: Int64(i) * s, bssid: ap1, ssid: "a", freqMhz: 2412, signalDbm: -55, packets: 1000, location: "") }
        let counted = try #require(WalkReport.assemble(t).findings.first { $0.check == .retries })
        #expect(counted.value == 30 && counted.message.contains("of 2000 frames"), "\(counted.message)")
        t.samples = (0..<40).map { i in
            WalkSample(timeNs: Int64(i) * s, bssid: ap1, ssid: "a", signalDbm: -55, retries: i == 0 ? 30 : nil, packets: i == 0 ? 40 : 100, location: "")
        }
        #expect(!WalkReport.assemble(t).findings.contains { $0.check == .retries }, "40 counted frames are fewer than the 50 a share is judged over")
    }

    @Test func bandAndSSIDChangesAreAtLeastWarningsAndALostConnectionIsCritical() {
        let band = WalkLinkChange(
            timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "ward-3", toSsid: "ward-3", fromFreqMhz: 2437, toFreqMhz: 5180,
            fastTransition: true, linkGapMs: 20)
        let ssid = WalkLinkChange(timeNs: 30 * s, fromBssid: ap2, toBssid: ap1, fromSsid: "ward-3", toSsid: "guest", fastTransition: false, linkGapMs: 50)
        // The connection broke at the SSID change and came back by reconnecting 1.5 s later.
        let hb = heartbeats(from: 0, count: 160, silent: (30 * s)...(31 * s + 500 * ms))
        let r = WalkAnalysis.roams(
            [band, ssid], heartbeats: hb, reconnects: [WalkReconnect(timeNs: 31 * s + 500 * ms, ms: 1500, attempts: 2, succeeded: true)],
            places: [], endNs: 40 * s)
        #expect(r[0].bandChanged && r[0].grade == .warning && r[0].reason.contains("2.4 GHz → 5 GHz"))
        #expect(r[1].connection == .reconnected && r[1].reconnectMs == 1500 && r[1].reconnectAttempts == 2 && r[1].grade == .critical)
        #expect(r[1].heartbeatsLost == 7 && r[1].reason.contains("the SSID changed (ward-3 → guest)"))
        // Never answered again, no reconnect: lost.
        let gone = WalkAnalysis.roams(
            [ssid], heartbeats: heartbeats(from: 0, count: 160, silent: (30 * s)...(40 * s)), reconnects: [], places: [], endNs: 40 * s)
        #expect(gone[0].connection == .lost && gone[0].grade == .critical && gone[0].pushGapMs == nil)
    }

    @Test func placesSummariseTheirSamplesHeartbeatsAndRoams() {
        let marks = [WalkPlaceMark(timeNs: 0, name: "ward 3 east"), WalkPlaceMark(timeNs: 10 * s, name: "stairwell B")]
        let samples = (0..<20).map { i in
            WalkSample(
                timeNs: Int64(i) * s, bssid: ap1, ssid: "ward-3", freqMhz: 2412, signalDbm: i < 10 ? -55 - i : -72, retries: 1, packets: 10,
                location: WalkAnalysis.place(at: Int64(i) * s, marks))
        }
        let hb = heartbeats(from: 0, count: 80, silent: (15 * s)...(16 * s))
        let p = WalkAnalysis.places(samples: samples, heartbeats: hb, roams: [], marks: marks)
        #expect(p.map(\.name) == ["ward 3 east", "stairwell B"])
        #expect(p[0].samples == 10 && p[0].signalMedianDbm == -59.5 && p[0].signalMinDbm == -64 && p[0].retriesPct == 10 && p[0].heartbeatsLost == 0)
        #expect(p[1].signalMinDbm == -72 && p[1].heartbeatsLost == 5 && p[1].rttP95Ms == 5)
    }

    /// A read of the scan cache at `t` holding the SSID's other AP (`ap2` unless said) at `dbm`,
    /// heard just then.
    func read(at t: Int64, _ dbm: Double?, bssid: MACAddress? = nil, ageMs: Double = 0) -> WalkScan {
        WalkScan(timeNs: t, entries: [WalkBSS(bssid: bssid ?? ap2, ssid: "ward-3", freqMhz: 2437, signalDbm: dbm, ageMs: ageMs)])
    }

    /// Samples on `ap1` every half second from `from` to `to` (seconds, `to` left out).
    func weak(_ from: Int64, _ to: Int64, dbm: Int = -75) -> [WalkSample] {
        stride(from: from * 2, to: to * 2, by: 1).map { i in WalkSample(timeNs: i * s / 2, bssid: ap1, ssid: "ward-3", signalDbm: dbm, location: "") }
    }

    func sticky(_ samples: [WalkSample], _ scans: [WalkScan]) -> Finding? {
        WalkAnalysis.signalFindings(samples, scans: scans).first { $0.check == .stickyClient }
    }

    @Test func weakSignalAndAStickyClient() throws {
        // 8 s at -75 dBm with the other AP at -60 in a fresh read: sticky; and every one of those
        // is below -70.
        let samples = (0..<20).map { i in
            WalkSample(timeNs: Int64(i) * s / 2, bssid: ap1, ssid: "ward-3", signalDbm: i < 4 ? -60 : -75, location: "corridor")
        }
        let f = WalkAnalysis.signalFindings(samples, scans: [read(at: 0, -60)])
        let signal = f.first { $0.check == .signal }
        #expect(signal?.severity == .critical && signal?.value == -75 && signal?.threshold == -70 && signal?.subject == "corridor")
        let sticky = f.first { $0.check == .stickyClient }
        #expect(sticky?.severity == .warning && sticky?.value == 7.5 && sticky?.source == "station_and_scan", "\(String(describing: sticky))")
        // What an iPhone would do is said only where the limits are iOS's own.
        #expect(sticky?.message.hasSuffix("this card holds on to a far AP (an iPhone would have moved)") == true, "\(String(describing: sticky))")
        var above = WalkThresholds()
        above.signalCriticalDbm = -65
        let own = WalkAnalysis.signalFindings(samples, scans: [read(at: 0, -60)], t: above).first { $0.check == .stickyClient }
        #expect(own?.message.hasSuffix("this card holds on to a far AP") == true, "\(String(describing: own))")
        // The other AP only 5 dB stronger: not sticky, the card has nowhere better to go.
        #expect(self.sticky(samples, [read(at: 0, -70)]) == nil)
        // A read the driver's signal is not believed in (nil) offers nothing either.
        #expect(self.sticky(samples, [read(at: 0, nil)]) == nil)
        // A run of 5.004 s is above the 5 s limit and says so ("5.004 s", not "5 s"); 5 s is not.
        for (end, said) in [(5_004_000_000 as Int64, "5.004 s below"), (5_010_000_000, "5.01 s below"), (5_000_000_000, nil)] {
            let run = [0, end].map { WalkSample(timeNs: $0, bssid: ap1, ssid: "ward-3", signalDbm: -75, location: "") }
            let f = self.sticky(run, [read(at: 0, -60)])
            #expect(f?.message.components(separatedBy: " -").first == said, "\(end): \(String(describing: f))")
        }
        // Between -67 and -70: a warning only.
        let edge = [WalkSample(timeNs: 0, signalDbm: -68, location: "")]
        #expect(WalkAnalysis.signalFindings(edge, scans: []).first?.severity == .warning)
        // A limit between whole dBm stays where it was set: -68 dBm is below -67.5 (it was
        // rounded to -68 and not below it).
        let half = try WalkThresholds.resolve([ThresholdRow.signal.key(.warning): -67.5]).get()
        let below = WalkAnalysis.signalFindings([WalkSample(timeNs: 0, signalDbm: -68, location: "")], scans: [], t: half).first
        #expect(half.signalWarningDbm == -67.5 && below?.severity == .warning && below?.threshold == -67.5, "\(String(describing: below))")
        #expect(below?.message.hasPrefix("1 of 1 sample below -67.5 dBm") == true, "\(String(describing: below))")
    }

    /// The stronger BSS must be in a fresh entry: one heard more than 10 s before a sample (the
    /// iPhone lens's staleness) offers nothing to it, and a read stamped at a sample's own time
    /// is that sample's.
    @Test func aStickyClientIsJudgedOnFreshScanEntries() {
        // Heard 5 s before the read at 0: fresh up to 5 s; the run 0–5 s is not above 5 s.
        #expect(sticky(weak(0, 12), [read(at: 0, -60, ageMs: 5000)]) == nil)
        #expect(sticky(weak(0, 12), [read(at: 0, -60, ageMs: 4500)])?.value == 5.5)
        // Heard at the read: fresh up to 10 s, the run 0–10 s.
        #expect(sticky(weak(0, 12), [read(at: 0, -60)])?.value == 10)
        // A read at 5 s, the time of the sample that made it: that sample starts the run (5–10.5 s,
        // above 5 s); seen only from the next sample it would be 5.5–10.5 s, not above.
        #expect(sticky(weak(0, 11), [read(at: 5 * s, -60)])?.value == 5.5)
    }

    /// A sample whose scan cache holds nothing fresh, or nothing fresh on the channel of a BSS of
    /// the SSID last heard strong enough, cannot say whether a stronger BSS was on offer: it
    /// neither extends a sticky run nor ends it. A fresh read that offers nothing strong enough
    /// (and reached every such channel), a roam, a disconnect or a signal back above the level
    /// end it.
    @Test func aSampleWithNoFreshEntryNeitherExtendsNorEndsAStickyRun() {
        // Fresh up to 10 s, nothing fresh 10.5–19.5 s, fresh again from 20 s: one run of 29.5 s.
        let walk = weak(0, 30)
        #expect(sticky(walk, [read(at: 0, -60), read(at: 20 * s, -60)])?.value == 29.5)
        // Nothing but unknown samples after its last clinging one: the run is 0–10 s.
        #expect(sticky(walk, [read(at: 0, -60)])?.value == 10)
        // A fresh read at 12 s offers ap2 at -70 only (5 dB): the run ends; 0–10 and 22–29.5 s.
        #expect(sticky(walk, [read(at: 0, -60), read(at: 12 * s, -70), read(at: 22 * s, -60)])?.value == 10)
        // The signal back above -70 dBm at 15 s, in the stretch with nothing fresh: that ends it
        // (0–10 and 20–29.5 s), as a disconnect there (no AP) does; a sample without a signal
        // does not.
        var back = walk
        back[30].signalDbm = -65
        #expect(sticky(back, [read(at: 0, -60), read(at: 20 * s, -60)])?.value == 10)
        var gone = walk
        gone[30].bssid = nil
        #expect(sticky(gone, [read(at: 0, -60), read(at: 20 * s, -60)])?.value == 10)
        var quiet = walk
        quiet[30].signalDbm = nil
        #expect(sticky(quiet, [read(at: 0, -60), read(at: 20 * s, -60)])?.value == 29.5)
        // A read at 12 s that did not hear ap2 (its entry 12 s old, last heard at -60) but heard
        // another SSID: on another channel than ap2's, the scan did not reach ap2, which may be
        // there still (the run goes on, 29.5 s); on ap2's channel, it reached it and did not hear
        // it (the run ends: 0–10 and 22–29.5 s).
        func unheard(guestOn freq: Int) -> WalkScan {
            WalkScan(
                timeNs: 12 * s,
                entries: [
                    WalkBSS(bssid: ap2, ssid: "ward-3", freqMhz: 2437, signalDbm: -60, ageMs: 12_000),
                    WalkBSS(bssid: MACAddress(rawValue: 0x0200_0000_0900), ssid: "guest", freqMhz: freq, signalDbm: -50, ageMs: 0),
                ])
        }
        #expect(sticky(walk, [read(at: 0, -60), unheard(guestOn: 2412), read(at: 22 * s, -60)])?.value == 29.5)
        // A read at 12 s with only the laptop's own AP fresh (its beacons keep it so): no scan,
        // it cannot say; the run goes on.
        let ownOnly = WalkScan(timeNs: 12 * s, entries: [WalkBSS(bssid: ap1, ssid: "ward-3", freqMhz: 2412, signalDbm: -75, ageMs: 0)])
        #expect(sticky(walk, [read(at: 0, -60), ownOnly, read(at: 22 * s, -60)])?.value == 29.5)
        #expect(sticky(walk, [read(at: 0, -60), unheard(guestOn: 2437), read(at: 22 * s, -60)])?.value == 10)
    }

    /// A loss found a few heartbeats late belongs to the move that caused it, not to the next.
    @Test func aReconnectIsBlamedOnTheMoveThatCausedIt() {
        let first = WalkLinkChange(timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: 50)
        let second = WalkLinkChange(timeNs: 13 * s, fromBssid: ap2, toBssid: ap1, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: 50)
        // Lost at the first move (10 s), found three heartbeats later, back at 13.2 s.
        let hb = heartbeats(from: 0, count: 80, silent: (10 * s)...(13 * s + 200 * ms))
        let r = WalkAnalysis.roams(
            [first, second], heartbeats: hb,
            reconnects: [WalkReconnect(timeNs: 13 * s + 200 * ms, ms: 3200, attempts: 3, succeeded: true)], places: [], endNs: 20 * s)
        #expect(r[0].connection == .reconnected && r[0].grade == .critical, "\(r[0])")
        #expect(r[1].connection == .kept, "the next move did not cause it: \(r[1])")
    }

    /// The lab's walk: a quick roam (kept), then the AP goes away and the station is back on
    /// the other only after 6 s; the session gives up during that gap (three heartbeats
    /// unanswered) and reconnects once the link is back, after the second move ended. The
    /// reconnect is the second move's: its loss began when that move's link went down.
    @Test func aReconnectFoundAfterTheNextMoveEndedIsThatMovesOwn() {
        let quick = WalkLinkChange(timeNs: 10 * s, fromBssid: ap1, toBssid: ap2, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: 40)
        let apGone = WalkLinkChange(timeNs: 20 * s, fromBssid: ap2, toBssid: ap1, fromSsid: "a", toSsid: "a", fastTransition: false, linkGapMs: 6000)
        let hb = heartbeats(from: 0, count: 100, silent: (14 * s)...(20 * s))
        let r = WalkAnalysis.roams(
            [quick, apGone], heartbeats: hb, reconnects: [WalkReconnect(timeNs: 21 * s, ms: 1200, attempts: 1, succeeded: true)], places: [],
            endNs: 25 * s)
        #expect(r[0].connection == .kept, "the quick roam kept it: \(r[0])")
        #expect(r[1].connection == .reconnected && r[1].reconnectMs == 1200, "\(r[1])")
    }

    /// A sticky run is on one AP: weak samples on two APs, either side of a roam, are not added up.
    @Test func aRoamEndsAStickyRun() {
        let samples = (0..<16).map { i in
            WalkSample(timeNs: Int64(i) * s / 2, bssid: i < 8 ? ap1 : ap2, ssid: "ward-3", signalDbm: -75, location: "")
        }
        // Each AP sees the other at -60 dBm: every sample clings.
        let both = WalkScan(timeNs: 0, entries: [read(at: 0, -60).entries[0], read(at: 0, -60, bssid: ap1).entries[0]])
        #expect(sticky(samples, [both]) == nil, "3.5 s on each AP, not 7.5 s on one")
        // A move to a third AP where the samples cannot say (no signal, no scan entry) ends the
        // run on ap1: back on ap1 it is a new run (0–4 s and 6.5–9.5 s, not 0–9.5 s).
        let away = (0..<20).map { i in
            WalkSample(
                timeNs: Int64(i) * s / 2, bssid: (9...12).contains(i) ? MACAddress(rawValue: 0x0200_0000_0300) : ap1, ssid: "ward-3",
                signalDbm: (9...12).contains(i) ? nil : -75, location: "")
        }
        #expect(sticky(away, [both]) == nil, "4 s and 3 s on ap1, with another AP between")
        // Longer on ap2 (4–10 s, the read fresh up to 10 s): one run of 6 s.
        #expect(
            sticky(samples + weak(8, 12).map { WalkSample(timeNs: $0.timeNs, bssid: ap2, ssid: "ward-3", signalDbm: -75, location: "") }, [both])?.value == 6)
    }

    /// The push log's start line keeps what a replay needs to read the scan cache when the walk
    /// read it: `--scan-every`, and whether the cache was read after each scan's results. A line
    /// written before that field says nil (those walks read every 20 samples only).
    @Test func theStartLineKeepsHowTheScanCacheWasRead() throws {
        let start = WalkLogEvent.start(
            timeNs: 1, interface: "wlan0", server: "h:1", proto: "tcp", driver: nil, timeoutMs: 2000, scanEverySeconds: 10, scanReadsAfterResults: true)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(WalkLogLine.self, from: try encoder.encode(WalkLogLine(start))).event == start)
        let old = try decoder.decode(WalkLogLine.self, from: Data(#"{"kind":"start","time_ns":1,"name":"wlan0","scan_every_s":10}"#.utf8))
        #expect(old.scanReadsAfterResults == nil && old.scanEveryS == 10 && old.event != start)
    }
}

/// A sample's row in the walk's JSON: the link's reading (`WalkLinkReading`) and the row's own
/// keys in one object, every key present (null when not known), and read back the same.
struct WalkSampleReportTests {
    @Test func aRowIsOneObjectWithEveryKey() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        let empty = WalkSampleReport(time: "t", link: WalkLinkReading(), retriesPct: nil, rttMs: nil, location: "")
        let text = String(decoding: try encoder.encode(empty), as: UTF8.self)
        #expect(
            text
                == #"{"bssid":null,"freq_mhz":null,"location":"","retries_pct":null,"rtt_ms":null,"signal_average_dbm":null,"signal_dbm":null,"ssid":null,"time":"t","tx_bitrate_mbps":null,"tx_failed":null}"#
        )
        let full = WalkSampleReport(
            time: "t",
            link: WalkLinkReading(
                bssid: MACAddress("02:00:00:00:01:00"), ssid: "ward", freqMhz: 2412, signalDbm: -60, signalAverageDbm: -61, txBitrateMbps: 72.2, txFailed: 1),
            retriesPct: 3, rttMs: 4.5, location: "corridor")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(WalkSampleReport.self, from: try encoder.encode(full)) == full)
        #expect(full.signalDbm == -60 && full.ssid == "ward", "the reading's fields read as the row's")
    }
}
