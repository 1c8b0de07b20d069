import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag walk` off the air: the lab's recorded walk (Tests/lab/walk.sh: an 802.11r roam, a
/// WPA-PSK roam, an AP that went away) replayed through the same code, and bad input. The live
/// walk is checked in the lab (LabTests.walk*).
struct WalkCommandTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    /// A copy of the recorded walk to damage.
    func copy() throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for f in ["nl80211.pcap", "push.jsonl", "rtnetlink.pcap"] where FileManager.default.fileExists(atPath: fixture("lab-walk/\(f)")) {
            try FileManager.default.copyItem(atPath: fixture("lab-walk/\(f)"), toPath: dir.appendingPathComponent(f).path)
        }
        return dir
    }

    @Test func replayGivesTheRecordedReport() throws {
        let r = try pushdiag("walk", "--replay", fixture("lab-walk"), "--format", "json")
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout == (try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8)))
        let report = try json(r.stdout)
        #expect(report["interface"] as? String == "wlan2" && report["server"] as? String == "10.40.0.1:3000")
        #expect(report["status"] as? String == "CRITICAL")
        // A roam finding's threshold is the limit its message names (it gave the warning limit
        // beside "above 300 ms", the critical one).
        let roams = (report["findings"] as? [[String: Any]] ?? []).filter { $0["check"] as? String == "roam" }
        #expect(roams.count >= 2 && roams.contains { $0["severity"] as? String == "critical" }, "\(roams)")
        for f in roams {
            let threshold = try #require(f["threshold"] as? Double)
            let value = try #require(f["value"] as? Double)
            #expect((f["message"] as? String ?? "").contains("ms, above \(Int(threshold)) ms for ") && value > threshold, "\(f)")
        }
    }

    /// Issue 32's two sequences, as recordings derived from the lab's walk (make fixtures;
    /// FixtureKit's NetlinkFixtures+Walk): the first roam crosses from 2412 to 5180 MHz.
    /// walk-ft-deauth: a deauthentication, an FT authentication and the reassociation, with a
    /// sample answered before the events were read (it says the new AP's channel): the "from"
    /// side is what the station had before the move. walk-ft-failed-keys: the FT reassociation,
    /// a drop (reason 2, local) and an open-system association to the same AP: one move from the
    /// AP before, a failed fast transition at its keys, fallen back to open system.
    @Test func failedAndRacedFastTransitionsReplayToOneMoveAcrossBands() throws {
        func firstRoam(_ name: String) throws -> [String: Any] {
            let r = try pushdiag("walk", "--replay", fixture(name), "--format", "json")
            #expect(r.status == 2 && r.stderr.isEmpty, "\(name): \(r.stderr)")
            let report = try json(r.stdout)
            #expect((report["findings"] as? [[String: Any]] ?? []).allSatisfy { $0["check"] as? String != "link" }, "\(name): the replay ran to its end")
            let roams = report["roams"] as? [[String: Any]] ?? []
            #expect(roams.count == 4, "\(name): \(roams.count) moves")
            return roams.first ?? [:]
        }
        for name in ["walk-ft-deauth", "walk-ft-failed-keys"] {
            let m = try firstRoam(name)
            #expect(m["from_bssid"] as? String == "02:00:00:00:01:00" && m["to_bssid"] as? String == "02:00:00:00:00:00", "\(name): \(m)")
            #expect(m["from_freq_mhz"] as? Int == 2412 && m["to_freq_mhz"] as? Int == 5180 && m["band_changed"] as? Bool == true, "\(name): \(m)")
            #expect(m["fast_transition_attempt"] as? Bool == true && m["grade"] as? String == "warning", "\(name): \(m)")
            #expect((m["reason"] as? String ?? "").contains("the band changed"), "\(name): \(m)")
        }
        let deauth = try firstRoam("walk-ft-deauth")
        #expect(deauth["fast_transition"] as? Bool == true && deauth["fast_transition_failure"] is NSNull)
        let failed = try firstRoam("walk-ft-failed-keys")
        #expect(failed["fast_transition"] as? Bool == false, "a fast transition that ended in a full authentication is not one")
        let failure = failed["fast_transition_failure"] as? [String: Any] ?? [:]
        #expect(failure["stage"] as? String == "keys" && failure["reason_code"] as? Int == 2 && failure["by_ap"] as? Bool == false)
        #expect(failure["fallback"] as? String == "open" && failure["status_code"] is NSNull, "\(failure)")
        #expect((failed["reason"] as? String ?? "").contains("a fast transition that failed"), "\(failed)")
        // The link gap runs from leaving the old AP (the FT authentication) to the fresh
        // association, not from the drop.
        #expect((failed["link_gap_ms"] as? Double ?? 0) > 50, "\(failed)")
        // The same move in the text and the HTML reports.
        let text = try pushdiag("walk", "--replay", fixture("walk-ft-failed-keys")).stdout
        #expect(text.contains("FAILED (keys)") && text.contains("2412→5180"), "\(text)")
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("walk.html").path
        _ = try pushdiag("walk", "--replay", fixture("walk-ft-failed-keys"), "--html", page)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<td>FAILED (keys)</td>") && html.contains("fell back to a full authentication (open system)"))
    }

    /// A refused fast transition whose rejoin came after the roam window, as the lab recorded it
    /// on 2026-11-27 (lab-walk-ft-refused-late, kept as it came): the station left ap1 for ap2,
    /// ap2 refused the FT authentication (53), ap1 the way back (55), and the station joined ap1
    /// again 15.6 s after leaving it. The walk's first move carries the refusal; watch's connect
    /// (not a roam: past its window) carries the same, and its text line the outage.
    @Test func aRefusedFastTransitionRejoinedAfterTheWindowIsTheMovesFailure() throws {
        let r = try pushdiag("walk", "--replay", fixture("lab-walk-ft-refused-late"), "--format", "json")
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        let first = (try json(r.stdout)["roams"] as? [[String: Any]] ?? []).first ?? [:]
        #expect(first["from_bssid"] as? String == "02:00:00:00:00:00" && first["to_bssid"] as? String == "02:00:00:00:00:00", "\(first)")
        #expect(first["fast_transition"] as? Bool == false && first["fast_transition_attempt"] as? Bool == true && first["grade"] as? String == "critical")
        let failure = first["fast_transition_failure"] as? [String: Any] ?? [:]
        #expect(failure["stage"] as? String == "authentication" && failure["status_code"] as? Int == 53, "\(failure)")
        #expect(failure["target_bssid"] as? String == "02:00:00:00:01:00" && failure["fallback"] as? String == "open", "\(failure)")
        let gap = first["link_gap_ms"] as? Double ?? 0
        #expect(gap > 10_000, "past the 10 s window: \(first)")
        // watch: the connect carries the same refusal, its gap_ms the walk's link gap; its text
        // line says the outage.
        let pcap = fixture("lab-walk-ft-refused-late") + "/nl80211.pcap"
        let events = try pushdiag("watch", "--replay", pcap, "--interface", "wlan2", "--format", "jsonl").stdout.split(separator: "\n").map {
            try json(String($0))
        }
        let connect = try #require(events.first { $0["event"] as? String == "connect" && $0["fast_transition_failure"] is [String: Any] }, "\(events)")
        #expect(abs((connect["gap_ms"] as? Double ?? 0) - gap) < 0.001, "\(connect)")
        #expect((connect["fast_transition_failure"] as? [String: Any])?["status_code"] as? Int == 53, "\(connect)")
        let text = try pushdiag("watch", "--replay", pcap, "--interface", "wlan2").stdout
        #expect(text.contains("ms  802.11r FAILED: FT authentication refused by 02:00:00:00:01:00, status 53"), "\(text)")
        #expect(text.split(separator: "\n").contains { $0.contains("  connect  ") && $0.contains("  link down ") && $0.contains("FAILED") }, "\(text)")
    }

    /// A walk recorded on a driver whose retries are 0 whatever happens (rtw88) shows none: its
    /// samples' retries are UNKNOWN (absent), the notes say why; the same recording taken at its
    /// word has them.
    @Test func aDriverThatFillsRetriesWronglyShowsNone() throws {
        let dir = try copy()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("push.jsonl")
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: #""kind":"start","#, with: #""driver":"rtw_8822ce","kind":"start","#)
        try lines.joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)
        let samples = { (r: [String: Any]) in r["samples"] as? [[String: Any]] ?? [] }
        let plain = try json(try pushdiag("walk", "--replay", fixture("lab-walk"), "--format", "json").stdout)
        #expect(samples(plain).contains { $0["retries_pct"] is Double }, "the recording has retries to hide")
        let r = try pushdiag("walk", "--replay", dir.path, "--format", "json")
        let report = try json(r.stdout)
        #expect(!samples(report).isEmpty && samples(report).allSatisfy { $0["retries_pct"] is NSNull && $0["tx_failed"] is NSNull }, "\(r.stdout.prefix(600))")
        #expect((report["notes"] as? [String])?.contains { $0.contains("rtw88 reports TX_RETRIES as 0") } == true, "\(report["notes"] ?? "")")
        // Nor do the places: packets alone are no ratio.
        let places = report["locations"] as? [[String: Any]] ?? []
        #expect(!places.isEmpty && places.allSatisfy { $0["retries_pct"] is NSNull }, "\(places)")
    }

    /// The text report: the push connection, a row per move and per place, the findings; the
    /// exit status is the worst finding's.
    @Test func textReportHasRoamsPlacesAndFindings() throws {
        let r = try pushdiag("walk", "--replay", fixture("lab-walk"))
        #expect(r.status == 2)
        let report = try json(try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8))
        let roams = try #require(report["roams"] as? [[String: Any]])
        let row = try Regex("^    [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}  02:")
        let rows = r.stdout.split(separator: "\n").filter { $0.firstMatch(of: row) != nil && $0.contains(" carrier ") == false }
        #expect(rows.count == roams.count, "\(r.stdout)")
        let places = try #require(report["locations"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(places == ["ward 3", "corridor", "ward 5", "ward 5 annex"])
        for place in places { #expect(r.stdout.contains("\n    \(place) ")) }
        // The interface's changes: a row each.
        let changes = try #require(report["interface_changes"] as? [[String: Any]])
        #expect(changes.count >= 2 && r.stdout.contains("address removed 10.40.0.2/24") && r.stdout.contains("address added 10.41.0.2/24"))
        #expect(r.stdout.contains("findings (CRITICAL):") && r.stdout.contains("reconnected in "))
    }

    /// Thresholds are the report's: raising the limits of the lab's slow roams changes the grades
    /// (the connection that had to reconnect stays critical whatever the gap).
    @Test func thresholdsDecideTheGrades() throws {
        let r = try pushdiag(
            "walk", "--replay", fixture("lab-walk"), "--format", "json", "--roam-gap-warning", "10000", "--roam-gap-critical", "20000",
            "--ft-gap-warning", "10000", "--ft-gap-critical", "20000")
        let roams = try #require(try json(r.stdout)["roams"] as? [[String: Any]])
        #expect(roams.map { $0["grade"] as? String } == roams.map { $0["connection"] as? String == "kept" ? "ok" : "critical" })
        let bad = try pushdiag("walk", "--replay", fixture("lab-walk"), "--ft-gap-warning", "200", "--ft-gap-critical", "100")
        #expect(bad.status == 3 && bad.stderr.contains("--ft-gap-warning (200) must not be above --ft-gap-critical (100)"), "\(bad.stderr)")
        // A limit from the configuration file is named by its key there, a flag's by the flag.
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("pushdiag.toml")
        try "[walk]\nft_gap_critical = 100\n".write(to: config, atomically: true, encoding: .utf8)
        let mixed = try pushdiag("walk", "--replay", fixture("lab-walk"), "--config", config.path, "--ft-gap-warning", "150")
        #expect(mixed.status == 3 && mixed.stderr.contains("--ft-gap-warning (150) must not be above ft_gap_critical (100)"), "\(mixed.stderr)")
        let signal = try pushdiag("walk", "--replay", fixture("lab-walk"), "--signal-warning=5")
        #expect(signal.status != 0 && signal.stderr.contains("--signal-warning"))
    }

    /// A damaged push log names the file and line; nothing is printed as a report.
    @Test func damagedPushLogIsOneLine() throws {
        let dir = try copy()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("push.jsonl")
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[4] = "{\"kind\": 12"
        try lines.joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)
        let r = try pushdiag("walk", "--replay", dir.path)
        #expect(r.status == 3 && !r.signalled)
        #expect(r.stderr == "pushdiag: \(log.path): line 5 is not a walk log line\n")
        let missing = try pushdiag("walk", "--replay", dir.appendingPathComponent("nothing").path, "--format", "json")
        #expect(missing.status == 3 && missing.stderr.contains("no push log"))
        #expect(try json(missing.stdout)["status"] as? String == "unknown")
    }

    /// A push log's numbers as no walk writes them (a crash hunt of 2026-11-29: each stopped the
    /// replay on an overflow or a Double too large for Int64): refused in one line naming the
    /// file, the line and the field, exit 3; the text and HTML outputs alike.
    @Test func aPushLogsNumbersOutOfRangeAreOneLine() throws {
        let cases: [(kind: String, field: String, value: String)] = [
            ("heartbeat", "rtt_ms", "1e13"), ("heartbeat", "rtt_ms", "-1"), ("start", "timeout_ms", "1e13"), ("reconnect", "ms", "1e300"),
            ("start", "scan_every_s", "1e300"), ("start", "time_ns", "-9223372036854775808"), ("heartbeat", "time_ns", "9223372036854775807"),
            ("end", "time_ns", "-9223372036854775808"),
        ]
        for c in cases {
            let dir = try copy()
            defer { try? FileManager.default.removeItem(at: dir) }
            let log = dir.appendingPathComponent("push.jsonl")
            var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
            let i = try #require(lines.firstIndex { $0.contains("\"kind\":\"\(c.kind)\"") }, "\(c.kind)")
            var object = try #require(try JSONSerialization.jsonObject(with: Data(lines[i].utf8)) as? [String: Any])
            object[c.field] = try JSONSerialization.jsonObject(with: Data(c.value.utf8), options: .fragmentsAllowed)
            lines[i] = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            try (lines.joined(separator: "\n") + "\n").write(to: log, atomically: true, encoding: .utf8)
            for extra in [[], ["--html", dir.appendingPathComponent("walk.html").path]] {
                let r = try run(TestPaths.binary.path, ["walk", "--replay", dir.path] + extra, timeout: 60)
                #expect(!r.signalled && r.status == 3, "\(c): status \(r.status) \(r.stderr.suffix(300))")
                #expect(
                    r.stderr.hasPrefix("pushdiag: \(log.path): line \(i + 1): \(c.field) ") && r.stderr.split(separator: "\n").count == 1,
                    "\(c): \(r.stderr)")
            }
        }
    }

    /// A recording cut short still gives the walk up to the cut, and says where the link's part
    /// ended.
    @Test func truncatedRecordingReportsWhatItHas() throws {
        let dir = try copy()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pcap = dir.appendingPathComponent("nl80211.pcap")
        let bytes = try Data(contentsOf: pcap)
        try bytes.prefix(bytes.count / 2 + 7).write(to: pcap)
        let r = try pushdiag("walk", "--replay", dir.path, "--format", "json")
        #expect(!r.signalled && [2, 3].contains(r.status), "incomplete: UNKNOWN unless CRITICAL outranks it; \(r.stderr)")
        let report = try json(r.stdout)
        let samples = try #require(report["samples"] as? [[String: Any]])
        let full = try #require(try json(try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8))["samples"] as? [[String: Any]])
        #expect(samples.count > 10 && samples.count < full.count)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(pcap.path), "\(r.stderr)")
        let findings = report["findings"] as? [[String: Any]] ?? []
        #expect(
            findings.contains {
                $0["check"] as? String == "link" && $0["severity"] as? String == "unknown"
                    && ($0["message"] as? String ?? "").contains("could not be followed to the end")
            })
    }

    /// The configuration's [walk] table sets the limits; a flag wins over it; a bad key is named
    /// by file, line and key.
    @Test func configurationSetsTheLimits() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("pushdiag.toml")
        try "[walk]\nroam_gap_warning = 10000\nroam_gap_critical = 20000\nft_gap_warning = 10000\nft_gap_critical = 20000\n".write(
            to: config, atomically: true, encoding: .utf8)
        func grades(_ extra: String...) throws -> [String?] {
            let r = try pushdiag(["walk", "--replay", fixture("lab-walk"), "--format", "json", "--config", config.path] + extra)
            return try #require(try json(r.stdout)["roams"] as? [[String: Any]]).map { $0["grade"] as? String }
        }
        // Relaxed gaps: OK wherever nothing else than the gap speaks against the move.
        let recorded = try #require(try json(try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8))["roams"] as? [[String: Any]])
        let clean = recorded.map {
            $0["connection"] as? String == "kept" && $0["from_ssid"] as? String == $0["to_ssid"] as? String && $0["address_changed"] as? Bool == false
                && $0["band_changed"] as? Bool == false
        }
        let relaxed = try grades()
        #expect(relaxed.map { $0 == "ok" } == clean, "\(relaxed)")
        #expect(clean.contains(true) && clean.contains(false))
        let strict = try grades("--roam-gap-warning", "1", "--roam-gap-critical", "2", "--ft-gap-warning", "1", "--ft-gap-critical", "2")
        #expect(strict.allSatisfy { $0 == "critical" }, "\(strict)")
        try "[walk]\nsignal_warning = -60\nroam_gap = 5\n".write(to: config, atomically: true, encoding: .utf8)
        let bad = try pushdiag("walk", "--replay", fixture("lab-walk"), "--config", config.path)
        #expect(bad.status != 0 && bad.stderr.contains("\(config.path):3: walk.roam_gap: unknown key"), "\(bad.stderr)")
    }

    /// A kernel without cfg80211 (this kind of machine): one line, exit 3, and the JSON error
    /// object with --format json. (On a machine with Wi-Fi the lab covers the live walk.)
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/sys/module/cfg80211"), "this kernel has cfg80211"))
    func noNL80211IsOneLine() throws {
        let r = try pushdiag("walk", "127.0.0.1:\(freePort())", "--interface", "wlan0", "--duration", "1s")
        #expect(r.status == 3 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("nl80211"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let j = try pushdiag("walk", "127.0.0.1:\(freePort())", "--interface", "wlan0", "--duration", "1s", "--format", "json")
        let error = try json(j.stdout)["error"] as? String
        #expect(j.status == 3 && error == r.stderr.dropFirst("pushdiag: ".count).trimmingCharacters(in: .whitespacesAndNewlines), "\(j.stdout)")
    }

    @Test func usage() throws {
        let r = try pushdiag("walk", "--interface", "wlan0")
        #expect(r.status != 0 && r.stderr.contains("needs the push server"))
        let i = try pushdiag("walk", "127.0.0.1:3000")
        #expect(i.status != 0 && i.stderr.contains("--interface"))
    }
}

/// `walk --history`: each walk, its roams and its places appended to the SQLite history in one
/// transaction; read back with the sqlite3 tool, not with our own code.
@Suite(.enabled(if: TestPaths.which("sqlite3") != nil, "sqlite3 is not installed"))
struct WalkHistoryTests {
    let walk = TestPaths.fixtures.appendingPathComponent("lab-walk").path

    func sql(_ db: String, _ query: String) throws -> [[String]] {
        let r = try run(TestPaths.which("sqlite3")!, ["-separator", "|", db, query])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test func walksRoamsAndPlacesAreRows() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db").path
        let first = try pushdiag("walk", "--replay", walk, "--format", "json", "--history", db)
        #expect(first.status == 2 && first.stderr.isEmpty, "\(first.stderr)")
        let second = try pushdiag(
            "walk", "--replay", walk, "--history", db, "--format", "json", "--ft-gap-warning", "1", "--ft-gap-critical", "2", "--roam-gap-warning", "1",
            "--roam-gap-critical", "2")
        let report = try json(first.stdout)
        let roams = try #require(report["roams"] as? [[String: Any]])
        let places = try #require(report["locations"] as? [[String: Any]])
        let c = try #require(report["connection"] as? [String: Any])

        let walks = try sql(db, "SELECT id, started, status, interface, server, heartbeats_sent, heartbeats_lost, reconnects FROM walks ORDER BY id")
        #expect(walks.count == 2)
        #expect(
            walks.first
                == [
                    "1", report["started"] as? String ?? "", "CRITICAL", "wlan2", "10.40.0.1:3000", "\(c["heartbeats_sent"] ?? "")",
                    "\(c["heartbeats_lost"] ?? "")", "\(c["reconnects"] ?? "")",
                ])
        // The stored report is the walk's JSON.
        let stored = try sql(db, "SELECT json_extract(report, '$.connection.heartbeats_answered') FROM walks WHERE id = 1")
        #expect(stored == [["\(c["heartbeats_answered"] ?? "")"]])

        let rows = try sql(db, "SELECT to_bssid, link_gap_ms, connection, grade, location FROM walk_roams WHERE walk_id = 1 ORDER BY rowid")
        #expect(rows.count == roams.count)
        for (row, r) in zip(rows, roams) {
            #expect(row[0] == r["to_bssid"] as? String ?? "" && row[2] == r["connection"] as? String && row[3] == r["grade"] as? String)
            #expect(Double(row[1]) == r["link_gap_ms"] as? Double && row[4] == r["location"] as? String)
        }
        // The second walk, with other limits: its own grades, on the same roams.
        let relaxed = try sql(db, "SELECT grade FROM walk_roams WHERE walk_id = 2 ORDER BY rowid").map { $0[0] }
        let strict = try sql(db, "SELECT grade FROM walk_roams WHERE walk_id = 1 ORDER BY rowid").map { $0[0] }
        let secondRoams = try #require(try json(second.stdout)["roams"] as? [[String: Any]])
        #expect(relaxed == secondRoams.map { $0["grade"] as? String ?? "" } && relaxed != strict, "\(relaxed) vs \(strict)")
        let named = try sql(db, "SELECT name, samples FROM walk_places WHERE walk_id = 1 ORDER BY rowid")
        #expect(named.map { $0[0] } == places.map { $0["name"] as? String ?? "" })
        #expect(named.map { Int($0[1]) } == places.map { $0["samples"] as? Int })
        // Surveys and walks share the file: report's tables are there too.
        #expect(try sql(db, "SELECT count(*) FROM runs") == [["0"]])
    }

    /// A failed fast transition is columns of its roam (stage, codes, who dropped, the fallback),
    /// equal to the walk's JSON; a history written before those columns existed gains them, its
    /// old rows NULL there, and takes the walk.
    @Test func failedFastTransitionsAreColumnsAndOldHistoriesGainThem() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("old.db").path
        // The walk_roams of the first version, with one row of a walk stored then.
        _ = try sql(
            db,
            """
            CREATE TABLE walks (id INTEGER PRIMARY KEY, started TEXT NOT NULL, status TEXT NOT NULL, duration_seconds REAL NOT NULL,
              interface TEXT NOT NULL, server TEXT NOT NULL, heartbeats_sent INTEGER NOT NULL, heartbeats_lost INTEGER NOT NULL,
              reconnects INTEGER NOT NULL, connection_lost INTEGER NOT NULL, interrupted INTEGER NOT NULL, report TEXT NOT NULL);
            CREATE TABLE walk_roams (walk_id INTEGER NOT NULL REFERENCES walks(id), time TEXT NOT NULL, location TEXT NOT NULL,
              from_bssid TEXT, to_bssid TEXT, from_ssid TEXT, to_ssid TEXT, fast_transition INTEGER, link_gap_ms REAL, push_gap_ms REAL,
              heartbeats_lost INTEGER NOT NULL, connection TEXT NOT NULL, reconnect_ms REAL, grade TEXT NOT NULL);
            INSERT INTO walks VALUES (1, '2026-01-01T00:00:00Z', 'OK', 60, 'wlan0', 'push:3000', 10, 0, 0, 0, 0, '{}');
            INSERT INTO walk_roams VALUES (1, '2026-01-01T00:00:10Z', '', NULL, NULL, NULL, NULL, 1, 40, NULL, 0, 'kept', NULL, 'ok');
            """)
        let r = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("walk-ft-failed-keys").path, "--format", "json", "--history", db)
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        let roams = try #require(try json(r.stdout)["roams"] as? [[String: Any]])
        let rows = try sql(
            db,
            """
            SELECT to_bssid, band_changed, fast_transition, fast_transition_attempt, ft_failure_stage, ft_failure_status_code,
              ft_failure_reason_code, ft_failure_by_ap, ft_fallback FROM walk_roams WHERE walk_id = 2 ORDER BY rowid
            """)
        #expect(rows.count == roams.count && roams.count > 1)
        func flag(_ v: Any?) -> String { (v as? Bool).map { $0 ? "1" : "0" } ?? "" }
        func number(_ v: Any?) -> String { (v as? Int).map(String.init) ?? "" }
        for (row, m) in zip(rows, roams) {
            let f = m["fast_transition_failure"] as? [String: Any]
            let expected = [
                m["to_bssid"] as? String ?? "", flag(m["band_changed"]), flag(m["fast_transition"]), flag(m["fast_transition_attempt"]),
                f?["stage"] as? String ?? "", number(f?["status_code"]), number(f?["reason_code"]), flag(f?["by_ap"]), f?["fallback"] as? String ?? "",
            ]
            #expect(row == expected, "\(row) vs \(m)")
        }
        // The fixture's first move failed at its keys: the row says so, and the old row kept NULLs.
        #expect(rows.first?[4] == "keys" && rows.first?[6] == "2" && rows.first?[8] == "open", "\(rows)")
        #expect(try sql(db, "SELECT fast_transition, ft_failure_stage IS NULL, band_changed IS NULL FROM walk_roams WHERE walk_id = 1") == [["1", "1", "1"]])
        // A second run opens the widened file as it is.
        let again = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("walk-ft-deauth").path, "--format", "json", "--history", db)
        #expect(again.status == 2 && again.stderr.isEmpty, "\(again.stderr)")
        #expect(try sql(db, "SELECT count(DISTINCT walk_id) FROM walk_roams") == [["3"]])
    }

    /// An output that cannot be written is one line and at least exit 3 (UNKNOWN; this walk's
    /// CRITICAL outranks it, as everywhere); the others are still written and the report printed.
    @Test func outputsThatCannotBeWrittenAreOneLineEach() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notADatabase = dir.appendingPathComponent("notes.txt")
        try "field notes, not a database\n".write(to: notADatabase, atomically: true, encoding: .utf8)
        let page = dir.appendingPathComponent("walk.html").path
        let r = try pushdiag("walk", "--replay", walk, "--history", notADatabase.path, "--html", page)
        #expect(r.status == 2, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--history") && lines[0].contains(notADatabase.path), "\(r.stderr)")
        #expect(r.stdout.contains("roams:") && FileManager.default.fileExists(atPath: page))
        #expect(try String(contentsOf: notADatabase, encoding: .utf8) == "field notes, not a database\n")

        let db = dir.appendingPathComponent("h.db").path
        let missing = dir.appendingPathComponent("no/such/dir/walk.html").path
        let h = try pushdiag("walk", "--replay", walk, "--history", db, "--html", missing)
        #expect(h.status == 2 && h.stderr.contains("--html") && h.stderr.contains(missing), "\(h.stderr)")
        #expect(try sql(db, "SELECT count(*) FROM walks") == [["1"]])
    }
}

/// `walk --html` in a real browser: headless Chromium renders the page; the test reads the DOM
/// it built and the screenshot it took, against the walk's JSON.
@Suite(.serialized, .enabled(if: TestPaths.which("chromium") != nil, "chromium is not installed"))
struct WalkHTMLTests {
    /// Every match of `pattern`'s first group in `text`.
    func all(_ pattern: String, _ text: String) throws -> [String] {
        let re = try NSRegularExpression(pattern: pattern)
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test func chromiumDrawsTheTimeline() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("walk.html")
        let r = try pushdiag("walk", "--replay", TestPaths.fixtures.appendingPathComponent("lab-walk").path, "--html", page.path, "--format", "json")
        #expect(r.status == 2, "\(r.stderr)")
        let report = try json(r.stdout)
        let roams = try #require(report["roams"] as? [[String: Any]])
        let places = try #require(report["locations"] as? [[String: Any]])
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") }, "self-contained: no fetches")
        #expect(!html.contains("<script") && !html.contains("src="))

        let chromium = TestPaths.which("chromium")!
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        let dom = try run(chromium, flags + ["--dump-dom", "file://\(page.path)"], timeout: 60).stdout
        for id in ["signal", "rtt"] { #expect(dom.contains("<svg id=\"\(id)\""), "the \(id) chart") }
        #expect(dom.contains("-67 dBm") && dom.contains("-70 dBm"), "the iPhone's signal limits")
        // One marker per roam in each chart, coloured by the roam's grade, in time order.
        let grades = try all("<line class=\"roam (ok|warning|critical)", dom)
        #expect(grades == (roams + roams).map { $0["grade"] as? String ?? "" }, "\(grades)")
        let xs = try all("<line class=\"roam [a-z ]+\" x1=\"([0-9.]+)\"", dom).compactMap(Double.init).prefix(roams.count)
        #expect(Array(xs) == xs.sorted())
        // Places as bands in the order they were named; each roam's marker lies in its place's band.
        let bands = try all("<rect class=\"place\" data-place=\"([^\"]*)\" x=\"([0-9.]+)\"", dom)
        let bandX = try all("<rect class=\"place\" data-place=\"[^\"]*\" x=\"([0-9.]+)\"", dom).compactMap(Double.init)
        let bandW = try all("<rect class=\"place\" data-place=\"[^\"]*\" x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"", dom).compactMap(Double.init)
        let perChart = bands.count / 2
        #expect(Array(bands.prefix(perChart)) == places.map { $0["name"] as? String ?? "" })
        for (x, roam) in zip(xs, roams) {
            let i = try #require(bands.prefix(perChart).firstIndex(of: roam["location"] as? String ?? ""))
            #expect(x >= bandX[i] - 0.01 && x <= bandX[i] + bandW[i] + 0.01, "roam at \(x) outside \(roam["location"] ?? "")")
        }
        // The tables: a row (and a row of reasons) per roam, a row per place.
        let table = try #require(dom.components(separatedBy: "id=\"roams-table\"").dropFirst().first?.components(separatedBy: "</table>").first)
        #expect(table.components(separatedBy: "<tr class=\"why").count - 1 == roams.count)
        let placeTable = try #require(dom.components(separatedBy: "id=\"places-table\"").dropFirst().first?.components(separatedBy: "</table>").first)
        #expect(placeTable.components(separatedBy: "<tr>").count - 2 == places.count)
        #expect(dom.contains("id=\"findings\""))

        let png = dir.appendingPathComponent("shot.png")
        _ = try run(chromium, flags + ["--window-size=1000,1400", "--screenshot=\(png.path)", "file://\(page.path)"], timeout: 60)
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.count > 10_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG of the rendered page")
    }
}
