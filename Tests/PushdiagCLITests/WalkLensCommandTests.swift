import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `walk` through an iPhone's eyes on the lab's recorded walk: both APs are heard at -30 dBm, so
/// --signal-offset moves the whole walk across iOS's -70 dBm trigger, and the replay's scan
/// reads and completed scans decide where the lens may judge (samples a scan reached lately).
struct WalkLensCommandTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    func walk(_ extra: String...) throws -> [String: Any] {
        let r = try pushdiag(["walk", "--replay", fixture("lab-walk"), "--format", "json"] + extra)
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        return try json(r.stdout)
    }

    func list(_ j: [String: Any], _ key: String) -> [[String: Any]] { j[key] as? [[String: Any]] ?? [] }

    @Test func theContractsNewFieldsStandBesideTheOldOnes() throws {
        let j = try walk()
        for key in ["predicted_roams", "sticky_zones", "coverage_holes", "coverage", "signal_offset_db", "roams", "samples", "locations"] {
            #expect(j[key] != nil, "\(key)")
        }
        #expect(list(j, "predicted_roams").isEmpty && list(j, "sticky_zones").isEmpty && list(j, "coverage_holes").isEmpty, "all at -30 dBm")
        // A coverage row per place, in the places' order; the samples add up; a place no scan
        // reached has its BSS counts UNKNOWN (null), never 0.
        let coverage = list(j, "coverage")
        #expect(coverage.map { $0["place"] as? String } == list(j, "locations").map { $0["name"] as? String })
        #expect(coverage.map { $0["samples"] as? Int } == list(j, "locations").map { $0["samples"] as? Int })
        let withScan = coverage.compactMap { $0["samples_with_scan"] as? Int }.reduce(0, +)
        #expect(withScan > 0 && withScan < list(j, "samples").count, "\(withScan)")
        #expect((j["notes"] as? [String])?.contains { $0.contains("\(withScan) of \(list(j, "samples").count) samples had a scan") } == true)
        for c in coverage {
            let scanned = (c["samples_with_scan"] as? Int ?? 0) > 0
            #expect((c["bss_above_67"] is NSNull) == !scanned && (c["cochannel_above_82"] is NSNull) == !scanned, "\(c)")
            let bands = c["band_shares"] as? [String: Any] ?? [:]
            #expect(bands["band_2_4ghz"] as? Double == 1 && bands["band_5ghz"] as? Double == 0, "the lab's APs are on 2412 and 2437/2462: \(bands)")
        }
    }

    /// At -40 dB every signal is -70.0: at the trigger, not below it. Half a dB more and every
    /// sample is below it with no candidate 8 dB stronger (both APs alike): the iPhone stays,
    /// and where the scan is fresh that is a coverage hole.
    @Test func theOffsetMovesTheWalkAcrossTheTrigger() throws {
        let at = try walk("--signal-offset", "-40")
        #expect(list(at, "sticky_zones").isEmpty && list(at, "coverage_holes").isEmpty && list(at, "predicted_roams").isEmpty)
        #expect(at["signal_offset_db"] as? Double == -40)
        let below = try walk("--signal-offset", "-40.5")
        let zones = list(below, "sticky_zones")
        let holes = list(below, "coverage_holes")
        #expect(list(below, "predicted_roams").isEmpty)
        #expect(!zones.isEmpty && zones.allSatisfy { ["iphone_stays", "no_fresh_scan"].contains($0["kind"] as? String) }, "\(zones)")
        #expect(zones.allSatisfy { $0["signal_min_dbm"] as? Double == -70.5 }, "\(zones)")
        // A hole is judged only on samples a scan reached: its samples are the iPhone-stays zones'
        // ones (a zone is on one BSS, a hole goes on across a roam: each zone inside a hole).
        let stays = zones.filter { $0["kind"] as? String == "iphone_stays" }
        func total(_ l: [[String: Any]]) -> Int { l.compactMap { $0["samples"] as? Int }.reduce(0, +) }
        #expect(!holes.isEmpty && total(holes) == total(stays), "\(holes)\n\(stays)")
        for z in stays {
            let (start, end) = (z["start"] as? String ?? "", z["end"] as? String ?? "")
            #expect(holes.contains { ($0["start"] as? String ?? "~") <= start && end <= ($0["end"] as? String ?? "") }, "\(z) in \(holes)")
        }
        #expect(list(below, "coverage").allSatisfy { ($0["bss_above_67"] as? Int ?? 0) == 0 })
        // The old fields do not move with the lens.
        let plain = try walk()
        #expect((plain["roams"] as? NSArray) == (below["roams"] as? NSArray) && (plain["samples"] as? NSArray) == (below["samples"] as? NSArray))
    }

    @Test func theTextAndThePageShowTheLens() throws {
        let dir = try TestPaths.temporaryDirectory()
        let page = dir.appendingPathComponent("walk.html").path
        let r = try pushdiag("walk", "--replay", fixture("lab-walk"), "--signal-offset", "-41", "--html", page)
        #expect(r.status == 2)
        #expect(r.stdout.contains("through an iPhone's eyes") && r.stdout.contains("signals offset by -41 dB"), "\(r.stdout)")
        #expect(r.stdout.contains("iPhone stays (no candidate passes the margin)") && r.stdout.contains("coverage holes"))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("id=\"predicted-roams-table\"") == false && html.contains("Predicted iPhone roams (0)"))
        #expect(html.contains("class=\"coverage-hole\"") && html.contains("class=\"sticky-zone iphone_stays\"") && html.contains("id=\"coverage-table\""))
    }

    @Test func aBadOffsetIsOneLineAndExit3() throws {
        for bad in ["x", "61", "-61", "nan"] {
            let r = try pushdiag("walk", "--replay", fixture("lab-walk"), "--signal-offset", bad)
            #expect(r.status == 3 && r.stderr.contains("--signal-offset: '\(bad)' is not a number of dB from -60 to 60"), "\(bad): \(r.stderr)")
        }
    }
}

/// The lab walk heard as a strong AP (02:…:00:00 at -60 dBm) and a weak one (02:…:01:00 at
/// -75 dBm), every station and scan entry rewritten (make fixtures: walk-strong-weak-ap). The
/// laptop held the weak AP from its roam at 07:24:50.9 until it lost it at 07:24:54.6; the
/// scan read that ended at 07:24:52.727 heard the strong one 15 dB stronger, so the sample that
/// made the read (the read is that sample's, `WalkScan`) is a predicted iPhone roam, and a
/// laptop_stays zone.
struct WalkLensStrongWeakTests {
    @Test func theIPhoneLeavesTheWeakAPWhereTheLaptopStayed() throws {
        let r = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("walk-strong-weak-ap").path, "--format", "json")
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        let j = try json(r.stdout)
        let predicted = j["predicted_roams"] as? [[String: Any]] ?? []
        #expect(predicted.count == 1, "\(predicted)")
        let p = try #require(predicted.first)
        #expect(p["from_bssid"] as? String == "02:00:00:00:01:00" && p["to_bssid"] as? String == "02:00:00:00:00:00")
        #expect(p["rule"] as? String == "margin_traffic" && p["traffic"] as? Bool == true && p["place"] as? String == "corridor")
        #expect(p["from_signal_dbm"] as? Double == -75 && p["to_signal_dbm"] as? Double == -60 && p["laptop_bssid"] as? String == "02:00:00:00:01:00")
        // Both APs of the lab walk on 2.4 GHz (channels 1 and 6): no band change.
        #expect(
            p["band_changed"] as? Bool == false && (p["from_freq_mhz"] as? Int).map { $0 < 2500 } == true
                && (p["to_freq_mhz"] as? Int).map { $0 < 2500 } == true, "\(p)")
        // At the sample that made the read, taken a few milliseconds before the read ended at
        // 07:24:52.727 (the sample after it is half a second later).
        let time = try #require(p["time"] as? String)
        #expect(time > "2026-11-23T07:24:52.7" && time < "2026-11-23T07:24:52.727", "\(time)")
        let zones = j["sticky_zones"] as? [[String: Any]] ?? []
        #expect(
            zones.contains { $0["kind"] as? String == "laptop_stays" && $0["start"] as? String == time && $0["best_candidate_dbm"] as? Double == -60 },
            "\(zones)")
        // The laptop's own moves are the recording's, untouched by the lens.
        let plain = try json(try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("lab-walk").path, "--format", "json").stdout)
        #expect((j["roams"] as? NSArray) == (plain["roams"] as? NSArray))
        // An offset moves both APs (-90 and -75 dBm): the margin is relative, the roam stays.
        let offset = try json(
            try pushdiag(
                "walk", "--replay", TestPaths.fixtures.appendingPathComponent("walk-strong-weak-ap").path, "--format", "json", "--signal-offset", "-15"
            )
            .stdout)
        #expect((offset["predicted_roams"] as? [Any])?.count == 1, "the margin is relative: the offset moves both")
    }
}

/// `walk --scan-every`: below the sane minimum, not a duration, or with --replay, one error and
/// exit 3, before any netlink is opened; the stalls of a replay are in its text and page.
struct WalkScanEveryTests {
    @Test func badValuesAreRefusedWithExit3() throws {
        for (bad, why) in [("9.9s", "shorter than the smallest allowed, 10s"), ("x", "is not a duration"), ("0", "shorter than the smallest allowed")] {
            let r = try pushdiag("walk", "--interface", "wlan-none", "127.0.0.1:1", "--scan-every", bad)
            #expect(r.status == 3 && r.stderr.contains("--scan-every: '\(bad)'") && r.stderr.contains(why), "\(bad): \(r.stderr)")
        }
        let replay = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("lab-walk").path, "--scan-every", "30s")
        #expect(replay.status == 3 && replay.stderr.contains("--scan-every cannot be combined with --replay"), "\(replay.stderr)")
        // Without --replay, --duration is parsed (the refusal above comes first with one).
        for bad in ["nan", "1e308", "garbage"] {
            let r = try pushdiag("walk", "--interface", "wlan-none", "127.0.0.1:1", "--duration", bad)
            #expect(r.status == 3 && r.stderr.contains("--duration: '\(bad)'"), "\(bad): \(r.stderr)")
        }
        // A replay is the recording's walk: a place or a length typed now would change nothing.
        for flag in ["--location", "--duration"] {
            let r = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("lab-walk").path, flag, "10s")
            #expect(r.status == 3 && r.stderr.contains("\(flag) and --replay cannot be combined"), "\(r.stderr)")
        }
    }

    @Test func theReplaysStallsAreInItsTextAndPage() throws {
        let page = try TestPaths.temporaryDirectory().appendingPathComponent("walk.html").path
        let r = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("lab-walk").path, "--html", page)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stdout.contains("stalls: 9 bad heartbeats of 98 (6 lost, 3 slower than 38.95 ms (p95 + 30 ms))"), "\(r.stdout)")
        #expect(r.stdout.contains("by cause: disconnect 7, link_change 1, none_seen 1"))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<h2>Stalls (9)</h2>") && html.contains("id=\"stall-summary\"") && html.contains("<tr class=\"link_change\">"))
    }
}
