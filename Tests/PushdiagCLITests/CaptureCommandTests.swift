import CPcap
import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// `pushdiag capture` as a user runs it: exit codes, JSON contract, errors, bad input.
struct CaptureCommandTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    @Test func exitCodesFollowTheWorstFinding() throws {
        #expect(try pushdiag("capture", fixture("roam-ft.pcap")).status == 0)
        #expect(try pushdiag("capture", fixture("retries-above-15pct.pcap")).status == 2)
        #expect(try pushdiag("capture", fixture("beacon-bssload-55pct.pcap")).status == 2)
        #expect(try pushdiag("capture", fixture("capture-truncated.pcap")).status == 3)
        // A warning: 20% retries is between 18 and 25.
        #expect(try pushdiag("capture", "--retry-warning", "18", "--retry-critical", "25", fixture("retries-above-15pct.pcap")).status == 1)
        // The table's spelling, and survey's input (a range open on the good side), say the same.
        #expect(try pushdiag("capture", "--retransmission-warning", "~:18", "--retransmission-critical", "25", fixture("retries-above-15pct.pcap")).status == 1)
        // Critical beats a file that could not be read.
        #expect(try pushdiag("capture", fixture("retries-above-15pct.pcap"), fixture("capture-truncated.pcap")).status == 2)
    }

    @Test func jsonContract() throws {
        let r = try pushdiag("capture", "--format", "json", "--check-fcs", fixture("roam-ft.pcap"))
        #expect(r.status == 0)
        let j = try json(r.stdout)
        for key in ["frames", "retry_frames", "beacons", "management", "fcs_bad", "bss", "roaming_events", "findings", "truncated", "error"] {
            #expect(j.keys.contains(key), "top-level \(key)")
        }
        #expect(j["error"] is NSNull)
        #expect(j["fcs_bad"] as? Int == 0)
        let m = try #require(j["management"] as? [String: Any])
        for key in [
            "association_request", "association_response", "reassociation_request", "reassociation_response", "authentication",
            "deauthentication", "disassociation", "probe_request", "probe_response", "action",
        ] {
            #expect(m[key] is Int, "management.\(key)")
        }
        let bss = try #require(j["bss"] as? [[String: Any]])
        for key in ["bssid", "ssid", "channel", "frames", "retry_frames", "bss_load", "fast_transition", "radio_measurement", "bss_transition"] {
            #expect(bss.allSatisfy { $0.keys.contains(key) }, "bss[].\(key)")
        }
        #expect(bss.allSatisfy { $0["bss_load"] is NSNull })
        let e = try #require((j["roaming_events"] as? [[String: Any]])?.first)
        #expect(e["from_bssid"] as? String == Fixtures.ap1.description)
        #expect(e["to_bssid"] as? String == Fixtures.ap2.description)
        #expect(e["kind"] as? String == "fast_transition")

        let crit = try json(try pushdiag("capture", "--format", "json", fixture("beacon-bssload-55pct.pcap")).stdout)
        let f = try #require((crit["findings"] as? [[String: Any]])?.first)
        #expect(f["check"] as? String == "channel_utilization")
        #expect(f["severity"] as? String == "critical")
        #expect(f["value"] as? Double == 54.9 && f["threshold"] as? Double == 40)
        #expect(f["subject"] as? String != nil)
    }

    /// Issue #30: stations[] and each BSS's steering in the JSON, the table and the story in
    /// text, --station and --silence.
    @Test func perStationContractTextAndFocus() throws {
        let r = try pushdiag("capture", "--format", "json", fixture("station-doze-30s.pcap"), fixture("steering-btm-deauth.pcap"))
        let j = try json(r.stdout)
        let doze = try #require((j["files"] as? [[String: Any]])?.first)
        let s = try #require((doze["stations"] as? [[String: Any]])?.first)
        for key in [
            "mac", "bssid", "frames", "retry_frames", "power_save_frames", "listen_interval", "aid", "beacon_interval_tu", "dtim_period",
            "auth_algorithms", "dozes", "silences", "silences_dropped", "roams", "roams_dropped", "steering",
        ] {
            #expect(s.keys.contains(key), "stations[].\(key)")
        }
        let d = try #require(s["dozes"] as? [String: Any])
        #expect(d["count"] as? Int == 3 && d["total_ms"] as? Double == 30_310 && d["longest_ms"] as? Double == 30_000)
        let silence = try #require((s["silences"] as? [[String: Any]])?.first)
        #expect(silence["duration_ms"] as? Double == 29_999)
        #expect((silence["before"] as? [String: Any])?["kind"] as? String == "dozing")
        #expect((silence["after"] as? [String: Any])?["kind"] as? String == "woke")
        let total = try #require(j["total"] as? [String: Any])
        let bss = try #require(total["bss"] as? [[String: Any]])
        let ap2 = try #require(bss.first { $0["bssid"] as? String == Fixtures.ap2.description })
        let steering = try #require(ap2["steering"] as? [String: Any])
        #expect(steering["btm_requests"] as? Int == 1)
        #expect(steering["btm_responses_by_status"] as? [String: Int] == ["7": 1])
        #expect(steering["deauth_by_reason"] as? [String: Int] == ["12": 1])
        #expect(steering["disassoc_by_reason"] as? [String: Int] == [:])
        #expect(bss.allSatisfy { $0.keys.contains("steering") && $0.keys.contains("dtim_period") && $0.keys.contains("beacon_interval_tu") })
        // Unknown is null, never 0: the retries fixture's station never associates.
        let retries = try json(try pushdiag("capture", "--format", "json", fixture("retries-above-15pct.pcap")).stdout)
        let st = try #require((retries["stations"] as? [[String: Any]])?.first)
        #expect(st["listen_interval"] is NSNull && st["aid"] is NSNull)
        // The reasons for a "?" under the table only where a row shows one.
        let reason = "?: UNKNOWN, not in the capture (LI: no (re)association request"
        #expect(try pushdiag("capture", fixture("retries-above-15pct.pcap")).stdout.contains(reason))
        let dozing = try pushdiag("capture", fixture("station-doze-30s.pcap")).stdout
        #expect(!dozing.contains(reason))
        // Its one retransmission is one retry (the line said "1 retries").
        #expect(dozing.contains(" frames sent, 1 retry, ") && dozing.contains("its AID in the TIM during 1 of 2 dozes"), "\(dozing)")

        let text = try pushdiag("capture", fixture("steering-btm-deauth.pcap")).stdout
        #expect(text.contains("stations (1):"))
        #expect(text.contains("12 (BSS transition management) ×1"))
        #expect(text.contains("deauthenticated by the AP (\(Fixtures.ap2)), reason 12 (BSS transition management)"))
        #expect(text.contains("7 (reject: no suitable candidates) ×1"))
        #expect(text.contains("roam at"))

        let types = try pushdiag("capture", "--station", Fixtures.roamTypeStations[1].description, fixture("roam-types.pcap")).stdout
        #expect(types.contains("stations (1):") && types.contains("ft_over_the_ds"))
        #expect(!types.contains("station \(Fixtures.roamTypeStations[0])") && types.contains("station \(Fixtures.roamTypeStations[1])"))
        let quiet = try pushdiag("capture", "--silence", "40s", "--format", "json", fixture("station-doze-30s.pcap"))
        #expect(((try json(quiet.stdout)["stations"] as? [[String: Any]])?.first?["silences"] as? [Any])?.isEmpty == true)
        // A station that is not in the capture is said to be absent, not silently left out.
        let absent = try pushdiag("capture", "--station", "02:00:00:00:00:99", fixture("station-doze-30s.pcap"))
        #expect(absent.status == 0 && absent.stdout.contains("is not in this capture"), "\(absent.stdout)")
    }

    @Test func severalFilesGiveEachAndTheTotal() throws {
        let r = try pushdiag("capture", "--format", "json", fixture("roam-ft.pcap"), fixture("retries-above-15pct.pcap"))
        let j = try json(r.stdout)
        let files = try #require(j["files"] as? [[String: Any]])
        #expect(files.map { $0["file"] as? String } == [fixture("roam-ft.pcap"), fixture("retries-above-15pct.pcap")])
        let total = try #require(j["total"] as? [String: Any])
        #expect(total["frames"] as? Int == 16 + 200)
        #expect(total["retry_frames"] as? Int == 40)
        #expect(r.status == 2)
    }

    @Test func missingAndNonCaptureFilesGiveOneLineAndExit3() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.pcap").path
        let text = dir.appendingPathComponent("notes.pcap").path
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        _ = FileManager.default.createFile(atPath: text, contents: Data("this is not a capture\n".utf8))
        for (path, words) in [(dir.appendingPathComponent("missing.pcap").path, "No such file"), (empty, "cannot open"), (text, "unknown file format")] {
            let r = try pushdiag("capture", path)
            #expect(r.status == 3, "\(path)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(path) && r.stderr.contains(words), "\(r.stderr)")
            #expect(lines.first?.components(separatedBy: path).count == 2, "the path said once: \(r.stderr)")
        }
    }

    @Test func otherLinkTypesAreNamed() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("ethernet.pcap").path
        let w = try PcapWriter(path: path, linkType: CPcap_DLT_EN10MB())
        w.write(timestampNs: 0, bytes: [UInt8](repeating: 0, count: 60))
        try w.close()
        let r = try pushdiag("capture", path)
        #expect(r.status == 3)
        #expect(r.stderr.contains("unsupported link type 1 (EN10MB)"), "\(r.stderr)")
    }

    /// A station's roam is graded on walk's link-gap limits, the defaults or `--ft-gap-*` (the
    /// fixture's 802.11r roam has a 10 ms gap: OK under 80/150 ms, WARNING above 5, CRITICAL above 8).
    @Test func aStationsRoamIsGradedOnTheGapFlags() throws {
        func grade(_ extra: [String]) throws -> String? {
            let r = try pushdiag(["capture", "--format", "json", fixture("roam-ft.pcap")] + extra)
            let roams = (try json(r.stdout)["stations"] as? [[String: Any]])?.flatMap { $0["roams"] as? [[String: Any]] ?? [] }
            #expect(roams?.count == 1 && roams?.first?["gap_ms"] as? Double == 10, "\(String(describing: roams))")
            return roams?.first?["grade"] as? String
        }
        #expect(try grade([]) == "ok")
        #expect(try grade(["--ft-gap-warning", "5"]) == "warning")
        #expect(try grade(["--ft-gap-warning", "5", "--ft-gap-critical", "8"]) == "critical")
        #expect(try grade(["--roam-gap-warning", "5"]) == "ok", "an 802.11r roam is graded on ft_gap alone")
    }

    @Test func badFlagsExit3() throws {
        // Each refused with exit 3 and words naming what is wrong (a silence of 0 would make
        // every gap between two frames one).
        let refused: [([String], String)] = [
            (["--format", "xml", fixture("roam-ft.pcap")], "xml"),
            (["--retry-critical", "150", fixture("roam-ft.pcap")], "--retransmission-critical: '150' is outside 0…100 percent"),
            (["--utilization-warning", "50", fixture("roam-ft.pcap")], "--utilization-warning (50) must not be above --utilization-critical (40)"),
            (["--station", "not-a-mac", fixture("roam-types.pcap")], "--station"),
            (["--silence", "0", fixture("station-doze-30s.pcap")], "--silence must be longer than 0"),
            (["--ft-gap-warning", "200", fixture("roam-ft.pcap")], "--ft-gap-warning (200) must not be above --ft-gap-critical (150)"),
            (["--roam-gap-critical", "nan", fixture("roam-ft.pcap")], "--roam-gap-critical: 'nan' is not a range or a number"),
            // A live capture's length, for a file (read to its end) it said nothing.
            (["--duration", "5s", fixture("roam-ft.pcap")], "--duration goes with --interface"),
        ]
        for (arguments, words) in refused {
            let r = try pushdiag(["capture"] + arguments)
            #expect(r.status == 3 && r.stderr.contains(words), "\(arguments): \(r.stderr)")
        }
        #expect(try pushdiag("capture").status == 3)
    }

    /// Every shared capture, and randomly corrupted copies of them (zzuf), give a report or a
    /// clear error — never a crash or a hang.
    @Test(.enabled(if: TestPaths.hasSharedPcaps, "../shared/pcaps is absent"))
    func corruptedCapturesNeverCrash() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let all = try FileManager.default.subpathsOfDirectory(atPath: TestPaths.sharedPcaps.path)
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".cap") }.sorted()
        #expect(all.count > 200)
        // Every original file, in one run.
        let whole = try pushdiag(["capture", "--format", "json"] + all.map { TestPaths.sharedPcaps.appendingPathComponent($0).path })
        #expect(!whole.signalled && (0...3).contains(whole.status), "status \(whole.status): \(whole.stderr.suffix(400))")
        #expect(try json(whole.stdout)["files"] is [Any])

        // Corrupted copies: zzuf where installed, otherwise a seeded bit-flipper of our own.
        let zzuf = TestPaths.which("zzuf")
        var corrupted: [String] = []
        for (i, name) in all.enumerated() where i % 3 == 0 {
            let src = TestPaths.sharedPcaps.appendingPathComponent(name)
            let dst = dir.appendingPathComponent("\(i).pcap")
            if let zzuf {
                _ = FileManager.default.createFile(atPath: dst.path, contents: nil)
                let p = Process()
                p.executableURL = URL(fileURLWithPath: zzuf)
                p.arguments = ["-s", "\(i)", "-r", "0.004", "cat", src.path]
                p.standardOutput = try FileHandle(forWritingTo: dst)
                try p.run()
                p.waitUntilExit()
            } else {
                var bytes = [UInt8](try Data(contentsOf: src))
                var state = UInt64(i + 1) &* 0x9E37_79B9_7F4A_7C15
                for j in 24..<bytes.count {
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    if state >> 56 == 0 { bytes[j] ^= UInt8(truncatingIfNeeded: state >> 24) }
                }
                try Data(bytes).write(to: dst)
            }
            corrupted.append(dst.path)
        }
        for path in corrupted {
            let r = try run(TestPaths.binary.path, ["capture", "--check-fcs", "--format", "json", path], timeout: 30)
            #expect(!r.signalled && (0...3).contains(r.status), "\(path): status \(r.status) \(r.stderr.suffix(300))")
            if r.status == 3 { #expect(!r.stderr.isEmpty, "\(path): exit 3 needs a reason on stderr") }
            if !r.stdout.isEmpty { #expect((try? json(r.stdout)) != nil, "\(path): JSON output must stay valid") }
        }
    }

    /// A pcapng file whose two interfaces' offsets put the same station's frames 2^63 ns apart
    /// (if_tsoffset of -9.2e9 and +9.2e9 s): the per-station analysis subtracted the two times
    /// and the program stopped on the overflow. Times are held within ±2^62 ns; the capture is
    /// analysed and its station's frames counted.
    @Test func timesAsFarApartAsInt64HoldsAreAnalysed() throws {
        let sta = MACAddress(rawValue: 0x0200_0000_0001)
        let ap = MACAddress(rawValue: 0x0200_0000_0100)
        var f = PcapngBuilder()
        f.section(bigEndian: false)
        f.interface(linkType: 105, tsoffset: -9_200_000_000)
        f.interface(linkType: 105, tsoffset: 9_200_000_000)
        for i in 0..<4 {
            f.enhancedPacket(interface: UInt32(i % 2), units: UInt64(i), FrameBuilder.nullData(station: sta, bssid: ap, powerManagement: i % 2 == 0))
        }
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("far-apart.pcapng").path
        try Data(f.bytes).write(to: URL(fileURLWithPath: path))
        let r = try run(TestPaths.binary.path, ["capture", "--format", "json", path], timeout: 30)
        #expect(!r.signalled && (0...2).contains(r.status), "status \(r.status): \(r.stderr.suffix(400))")
        let j = try json(r.stdout)
        let station = (j["stations"] as? [[String: Any]])?.first
        #expect(j["frames"] as? Int == 4 && station?["frames"] as? Int == 4, "\(j["frames"] ?? "nil") \(station ?? [:])")
        // Two dozes, each across the years the offsets put between them: their total saturates.
        #expect((station?["dozes"] as? [String: Any])?["count"] as? Int == 2, "\(station ?? [:])")
    }

}
