import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The project's own captures in fixtures/, read through the same path as `pushdiag capture`,
/// with the numbers their descriptions in FixtureKit/Fixtures.swift imply.
struct FixtureTests {
    func analyze(_ name: String) -> (CaptureReport, CaptureFileAnalysis.Outcome) {
        let path = TestPaths.fixtures.appendingPathComponent(name).path
        let o = CaptureFileAnalysis.analyze(path: path, options: .init())
        return (o.report(file: name), o)
    }

    /// A capture file that cannot be opened, to read or to write, is one error naming the file
    /// once (libpcap's own message names it too, or the temporary name it tried).
    @Test func aFileThatCannotBeOpenedIsNamedOnce() {
        let missing = "/nonexistent-pushdiag-dir/x.pcap"
        for attempt in [{ _ = try PcapFile(path: missing) }, { _ = try PcapWriter(path: missing, linkType: 127) }] as [() throws -> Void] {
            do {
                try attempt()
                Issue.record("opened \(missing)")
            } catch {
                let said = "\(error)"
                #expect(said.hasPrefix("cannot open \(missing): ") && !said.dropFirst(13 + missing.count).contains("x.pcap"), "\(said)")
            }
        }
    }

    @Test func retriesAbove15Percent() throws {
        let (r, _) = analyze("retries-above-15pct.pcap")
        #expect(r.frames == Fixtures.retriesBeacons + Fixtures.retriesData)
        #expect(r.retryFrames == Fixtures.retriesRetried)
        #expect(r.retryPercent == 20)
        #expect(r.beacons == Fixtures.retriesBeacons)
        #expect(r.dataFrames == Fixtures.retriesData)
        let bss = try #require(r.bss.first)
        #expect(r.bss.count == 1 && bss.bssid == Fixtures.ap1 && bss.ssid == Fixtures.ssid && bss.channel == 6)
        #expect(bss.frames == 200 && bss.retryFrames == 40)
        let sta = try #require(r.transmitters.first { $0.mac == Fixtures.station })
        #expect(sta.frames == 190 && sta.retryFrames == 40)
        let retries = r.findings.filter { $0.check == .frameRetries }
        #expect(retries.count == 2)
        #expect(retries.allSatisfy { $0.severity == .critical && $0.value == 20 && $0.threshold == 15 })
        #expect(r.status == .critical)
    }

    /// Frames whose protocol version is not 0 are counted as invalid and nowhere else: not their
    /// Retry bit, type, transmitter or BSS. tshark, which interprets nothing of them either, is
    /// the oracle for the counts it shares.
    @Test func mangledProtocolVersion() throws {
        let (r, _) = analyze("mangled-protocol-version.pcap")
        #expect(r.frames == Fixtures.mangledFrames && r.invalidFrames == Fixtures.mangledInvalid)
        #expect(r.retryFrames == Fixtures.mangledRetries && r.beacons == 0 && r.dataFrames == Fixtures.mangledFrames - Fixtures.mangledInvalid)
        #expect(r.retryPercent == 25, "15 of the 60 valid frames")
        #expect(r.transmitters.map(\.mac) == [Fixtures.station] && r.bss.map(\.bssid) == [Fixtures.ap1])
        guard let tshark = TestPaths.which("tshark") else { return }
        let path = TestPaths.fixtures.appendingPathComponent("mangled-protocol-version.pcap").path
        func count(_ filter: String) throws -> Int {
            let out = try run(tshark, ["-n", "-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])
            return out.stdout.split(separator: "\n").count
        }
        #expect(try count("wlan.fc.version != 0") == r.invalidFrames)
        #expect(try count("wlan.fc.retry == 1") == r.retryFrames)
        #expect(try count("wlan.fc.type == 2") == r.dataFrames)
        #expect(try count("wlan.fc.type_subtype == 0x08") == r.beacons)
        #expect(try count("frame") == r.frames)
    }

    @Test func bssLoad55Percent() throws {
        let (r, o) = analyze("beacon-bssload-55pct.pcap")
        let load = try #require(r.bss.first?.bssLoad)
        #expect(load.stationCount == Int(Fixtures.bssLoadStations))
        #expect(load.channelUtilizationRaw == Int(Fixtures.bssLoadRaw))
        #expect(load.channelUtilizationPercent == 54.9)  // 140 / 255
        #expect(load.samples == Fixtures.bssLoadBeacons)
        #expect(o.analyzer.utilizationValues == [Int(Fixtures.bssLoadRaw)])
        let f = try #require(r.findings.first { $0.check == .channelUtilization && $0.source == "bss_load" })
        #expect(f.severity == .critical && f.value == 54.9 && f.threshold == 40)
        #expect(r.channels.first?.advertisedUtilizationPercent == 54.9)
        #expect(r.status == .critical)
        // The survey's row for it: the AP's own figure against the utilisation limits.
        let row = try #require(SurveyVerdicts.capture(r, t: SurveyThresholds()).first { $0.subject.hasSuffix("(BSS Load)") })
        #expect(row.status == .critical && row.value == 54.9 && row.subject == "\(Fixtures.ap1) (BSS Load)")
        #expect(row.hint == "the AP advertises its channel 54.9% busy (Apple: 40% or less)")
        var loose = SurveyThresholds()
        loose["utilization_warning"] = ThresholdRange("60")!
        loose["utilization_critical"] = ThresholdRange("70")!
        #expect(!SurveyVerdicts.capture(r, t: loose).contains { $0.subject.hasSuffix("(BSS Load)") }, "within the limits: no row")
    }

    @Test func fastTransitionRoam() throws {
        let (r, _) = analyze("roam-ft.pcap")
        #expect(r.roamingEvents.count == 1)
        let e = try #require(r.roamingEvents.first)
        #expect(e.kind == .fastTransition)
        #expect(e.station == Fixtures.station && e.fromBssid == Fixtures.ap1 && e.toBssid == Fixtures.ap2)
        #expect(e.statusCode == 0 && e.ssid == Fixtures.ssid)
        #expect(e.gapMs == Double(Fixtures.ftRoamEndMs - Fixtures.ftRoamStartMs))
        #expect(e.time == "2026-01-01T00:00:01.000000Z")
        for b in r.bss {
            #expect(b.fastTransition && b.radioMeasurement && b.bssTransition, "\(b.bssid) offers 802.11r/k/v")
            #expect(b.mobilityDomain == Int(Fixtures.mobilityDomain))
        }
        #expect(r.status == .ok)
    }

    @Test func reassociationAndDeauthenticationRoams() throws {
        let (r, _) = analyze("roam-reassociation.pcap")
        #expect(r.roamingEvents.map(\.kind) == [.reassociation, .associationAfterDeauthentication])
        let first = r.roamingEvents[0]
        let second = r.roamingEvents[1]
        #expect(first.fromBssid == Fixtures.ap1 && first.toBssid == Fixtures.ap2 && first.statusCode == 0 && first.gapMs == 5)
        #expect(second.fromBssid == Fixtures.ap2 && second.toBssid == Fixtures.ap1)
        #expect(second.reasonCode == Int(Fixtures.deauthReason) && second.gapMs == 302)
        #expect(r.bssTransitionManagement.requests == 1 && r.bssTransitionManagement.accepted == 1)
        for b in r.bss { #expect(!b.fastTransition && b.radioMeasurement && b.bssTransition) }
    }

    @Test func truncatedFileKeepsResultsUpToTheCut() throws {
        let (r, o) = analyze("capture-truncated.pcap")
        #expect(r.truncated)
        #expect(r.frames == Fixtures.truncatedRecords - 1)
        guard case .truncated(_, let frame, _) = o.error else {
            Issue.record("expected a truncation error, got \(String(describing: o.error))")
            return
        }
        #expect(frame == Fixtures.truncatedRecords)
        #expect(r.status == .unknown)
        #expect(r.error?.contains("frame \(Fixtures.truncatedRecords)") == true)
    }

    /// The committed fixtures are exactly what the generator writes today.
    @Test func fixturesAreReproducible() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for f in Fixtures.all where f.name != Fixtures.truncated().name {
            let path = dir.appendingPathComponent(f.name).path
            let w = try PcapWriter(path: path, linkType: LinkType.radiotap.rawValue)
            for rec in f.records { w.write(timestampNs: rec.timeNs, bytes: rec.bytes) }
            try w.close()
            let fresh = try Data(contentsOf: URL(fileURLWithPath: path))
            let committed = try Data(contentsOf: TestPaths.fixtures.appendingPathComponent(f.name))
            #expect(fresh == committed, "fixtures/\(f.name) differs from the generator's output: run `make fixtures`")
        }
    }

    /// An independent decoder agrees the fixtures are what they claim: tshark counts the same
    /// retries and validates every FCS.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func tsharkReadsTheFixturesTheSameWay() throws {
        let tshark = TestPaths.which("tshark")!
        let path = TestPaths.fixtures.appendingPathComponent("retries-above-15pct.pcap").path
        let retries = try run(tshark, ["-n", "-r", path, "-Y", "wlan.fc.retry == 1", "-T", "fields", "-e", "frame.number"])
        #expect(retries.stdout.split(separator: "\n").count == Fixtures.retriesRetried)
        for name in ["roam-ft.pcap", "roam-reassociation.pcap"] {
            let p = TestPaths.fixtures.appendingPathComponent(name).path
            let fcs = try run(tshark, ["-n", "-r", p, "-o", "wlan.check_checksum:TRUE", "-T", "fields", "-e", "wlan.fcs.status"])
            let statuses = fcs.stdout.split(separator: "\n")
            #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == "1" }, "\(name): FCS status \(statuses)")
        }
    }
}
