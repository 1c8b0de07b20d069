import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `--join-limits` end to end: a responder whose own heartbeats come every 400 ms, graded against
/// the limits of the lab's join report (fixtures/lab-join.json) with a NAT idle timeout added, by
/// heartbeat and by survey; and the files that are not such limits, one line each and exit 3.
@Suite(.serialized) struct JoinLimitsCommandTests {
    /// fixtures/lab-join.json as join writes it with --find-ap-idle --idle-timeout NAT and no rung
    /// kept: its limits are its own BSS Max Idle Period and `nat`.
    static func limits(nat: Double, in dir: URL) throws -> (path: String, bss: Double) {
        var j = try json(String(contentsOf: TestPaths.fixtures.appendingPathComponent("lab-join.json"), encoding: .utf8))
        let bss = try #require(((j["cycles"] as? [[String: Any]]) ?? []).compactMap { $0["bss_max_idle_s"] as? Double }.last)
        let limits = [["source": "bss_max_idle", "seconds": bss], ["source": "path_idle_timeout", "seconds": nat]].sorted {
            ($0["seconds"] as! Double) < ($1["seconds"] as! Double)
        }
        j["ap_idle"] = [
            "rungs": [] as [Any], "kept_s": NSNull(), "dropped_after_s": NSNull(), "dropped_reason": NSNull(), "limits": limits,
            "safe_interval_s": min(bss, nat), "interrupted": false,
        ]
        let path = dir.appendingPathComponent("join-limits.json").path
        try JSONSerialization.data(withJSONObject: j).write(to: URL(fileURLWithPath: path))
        return (path, bss)
    }

    static func temporary() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pushdiag-joinlimits-cli-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func heartbeatAndSurveyGradeTheServersSpacingAgainstTheSafeInterval() throws {
        let dir = try Self.temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        let nat = 0.6
        let (file, bss) = try Self.limits(nat: nat, in: dir)
        let safe = min(bss, nat)
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--heartbeat-interval", "400ms"])
        #expect(server.wait(for: "listening on"), "responder did not start: \(server.output)")
        defer { server.stop() }

        let r = try pushdiag([
            "heartbeat", "127.0.0.1:\(port)", "--register", "ward-3", "--join-limits", file, "--count", "5", "--interval", "300ms", "--format", "json",
        ])
        let j = try json(r.stdout)
        let c = try #require(j["safe_interval"] as? [String: Any], "\(r.stdout)")
        // The spacing the server's heartbeats had, as the report measured it, against the safe interval.
        let spacing = try #require((j["server_heartbeats"] as? [String: Any])?["interval_ms"] as? [String: Any])
        let measured = try #require(spacing["max"] as? Double) / 1000
        // The spacing to the millisecond, its share of the safe interval to 0.0001%, graded.
        let longest = NumberText.rounded(measured, places: 1000)
        let share = NumberText.rounded(longest * 100 / safe, places: 10_000)
        let expected = share >= 100 ? "critical" : share > 50 ? "warning" : "ok"
        #expect(c["server_longest_s"] as? Double == longest && c["percent"] as? Double == share && c["severity"] as? String == expected, "\(c)")
        #expect(r.status == (expected == "ok" ? 0 : expected == "warning" ? 1 : 2), "\(r.stdout)")
        let l = try #require(c["limits"] as? [String: Any])
        #expect(l["safe_interval_s"] as? Double == safe && l["safe_source"] as? String == "path_idle_timeout" && l["interface"] as? String == "wlan2")
        let sources = ((l["limits"] as? [[String: Any]]) ?? []).map { ($0["source"] as? String ?? "", $0["seconds"] as? Double) }
        #expect(sources.map(\.0) == ["path_idle_timeout", "bss_max_idle", "ap_kept"] && sources[1].1 == bss && sources[2].1 == nil, "\(sources)")
        let text = try pushdiag(["heartbeat", "127.0.0.1:\(port)", "--register", "ward-3", "--join-limits", file, "--count", "3", "--interval", "300ms"])
        #expect(
            text.stdout.contains("NAT idle timeout \(DurationText.format(nat))") && text.stdout.contains("BSS Max Idle advertised")
                && text.stdout.contains("AP kept UNKNOWN"), "\(text.stdout)")

        // survey, the limits from the configuration: the check in seconds, its hint naming the limits.
        let config = dir.appendingPathComponent("site.toml").path
        try "join_limits = \"\(file)\"\n[[server]]\nhost = \"127.0.0.1\"\nport = \(port)\nregister = \"ward-3\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let s = try pushdiag(["survey", "--config", config, "--duration", "3s", "--format", "json"])
        let checks = (try json(s.stdout)["checks"] as? [[String: Any]]) ?? []
        let check = try #require(checks.first { $0["check"] as? String == "safe_interval" }, "\(s.stdout)")
        let value = try #require(check["value"] as? Double)
        let graded = NumberText.rounded(value * 100 / safe)
        #expect(check["status"] as? String == (graded >= 100 ? "critical" : graded > 50 ? "warning" : "ok") && check["unit"] as? String == "seconds")
        #expect(
            check["threshold"] as? String == "\(NumberText.format(safe / 2)) / \(NumberText.format(safe))"
                && (check["hint"] as? String ?? "").contains("BSS Max Idle advertised"), "\(check)")
        let nagios = try pushdiag(["survey", "--config", config, "--duration", "2s", "--format", "nagios"])
        #expect(nagios.stdout.contains("safe_interval"), "\(nagios.stdout)")
        let prom = try pushdiag(["survey", "--config", config, "--duration", "2s", "--format", "prometheus"])
        #expect(prom.stdout.contains("pushdiag_check_status{check=\"safe_interval\""), "\(prom.stdout)")
        // config check reads the limits as the survey would; a safe_interval limit is used with
        // them, and named unused (still valid, exit 0) without them or an idle_timeout.
        let serverTable = "[[server]]\nhost = \"127.0.0.1\"\nport = \(port)\n"
        try "join_limits = \"\(file)\"\n[thresholds]\nsafe_interval_warning = \"40\"\n\(serverTable)".write(toFile: config, atomically: true, encoding: .utf8)
        let checked = try pushdiag(["config", "check", "--config", config])
        #expect(checked.status == 0 && checked.stdout.contains("join limits: \(file)") && checked.stdout.contains("NAT idle timeout"), "\(checked.stdout)")
        #expect(checked.stdout.contains("  safe_interval_warning: 40\n"), "\(checked.stdout)")
        try "[thresholds]\nsafe_interval_warning = \"40\"\n\(serverTable)".write(toFile: config, atomically: true, encoding: .utf8)
        let unused = try pushdiag(["config", "check", "--config", config])
        #expect(
            unused.status == 0
                && unused.stdout.contains("  safe_interval_warning: 40 (not used: safe_interval_warning goes with join_limits or a server's idle_timeout"),
            "\(unused.stdout)")
        try "join_limits = \"\(TestPaths.fixtures.appendingPathComponent("lab-join.json").path)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try pushdiag(["config", "check", "--config", config])
        #expect(refused.status == 3 && refused.stderr.contains("has no ap_idle"), "\(refused.stderr)")
    }

    @Test func filesThatAreNotJoinLimitsAreOneLineAndExit3() throws {
        let dir = try Self.temporary()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A history of the lab's join replayed, which ran no ladder.
        let db = dir.appendingPathComponent("history.db").path
        let replay = try pushdiag("join", "--replay", TestPaths.fixtures.appendingPathComponent("lab-join").path, "--history", db, "--format", "json")
        #expect(replay.status != 3, "\(replay.stderr)")
        let garbage = dir.appendingPathComponent("garbage.json").path
        try "{\"interface\": 3".write(toFile: garbage, atomically: true, encoding: .utf8)
        let labJoin = TestPaths.fixtures.appendingPathComponent("lab-join.json").path
        let missing = dir.appendingPathComponent("missing.json").path
        for (file, says) in [
            (labJoin, "has no ap_idle"), (missing, "no such file"), (garbage, "not a join report"), (db, "no join on wlan2 in the history has ap_idle"),
        ] {
            let s = try pushdiag(["survey", "--interface", "wlan2", "--join-limits", file, "--duration", "1s"])
            let lines = s.stderr.split(separator: "\n")
            #expect(s.status == 3 && lines.count == 1 && lines[0].contains(file) && lines[0].contains(says), "survey \(file): \(s.stderr)")
            let h = try pushdiag(["heartbeat", "127.0.0.1:1", "--register", "x", "--join-limits", file])
            #expect(h.status == 3 && h.stderr.contains(file), "heartbeat \(file): \(h.stderr)")
        }
        let unregistered = try pushdiag(["heartbeat", "127.0.0.1:1", "--join-limits", labJoin])
        #expect(unregistered.status == 3 && unregistered.stderr.contains("--join-limits goes with --register"), "\(unregistered.stderr)")
        // The safe_interval limits without --join-limits or an idle timeout: one line, exit 3.
        let alone = try pushdiag(["heartbeat", "127.0.0.1:1", "--register", "x", "--safe-interval-warning", "40"])
        #expect(alone.status == 3 && alone.stderr.contains("--safe-interval-warning goes with --join-limits or --idle-timeout"), "\(alone.stderr)")
        let surveyAlone = try pushdiag(["survey", "--interface", "wlan2", "--safe-interval-critical", "90", "--duration", "1s"])
        let said = surveyAlone.stderr.split(separator: "\n")
        #expect(
            surveyAlone.status == 3 && said.count == 1
                && said.first?.contains("--safe-interval-critical goes with --join-limits (or join_limits in the configuration) or a server's idle_timeout")
                    == true,
            "\(surveyAlone.stderr)")
    }
}
