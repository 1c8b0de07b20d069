import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// `pushdiag survey` from the bundled recordings, with the responder as the push server.
@Suite(.serialized)
struct SurveyTests {
    /// The window asked for is the window given: a survey holding a push connection lasts it
    /// (it ended a second or two early), and a server that never answers costs at most one
    /// heartbeat timeout beyond it (it took 6.5 s for 2 s). Checked by what the survey did, not
    /// by how long it took: a loaded machine may start or schedule any process late, so no
    /// bound on wall-clock time is asserted, only the window's lower bound.
    @Test func theDurationAskedForIsHonoured() throws {
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"))
        let t0 = ContinuousClock.now
        let r = try pushdiag("survey", "--server", "127.0.0.1:\(port)", "--duration", "3s", "--format", "json")
        #expect(ContinuousClock.now - t0 >= .seconds(3))
        let held = try json(r.stdout)
        #expect((held["duration_seconds"] as? Double ?? 0) >= 3, "the survey's own window: \(held["duration_seconds"] ?? "none")")
        // One heartbeat a second from start to end (a 3 s window sends three, and nothing after).
        let h = try #require((held["heartbeats"] as? [[String: Any]])?.first)
        #expect(h["sent"] as? Int == 3 && h["received"] as? Int == 3, "one heartbeat a second: \(h)")
        // Accepts and never answers. The first answer is due one heartbeat timeout (2 s) after
        // the heartbeat went out, so no sooner than the window's end: the survey sends that one
        // and nothing after, and its session ends cancelled by the window (it sent three,
        // waiting out each one's timeout), whatever the machine's load.
        let silent = freePort()
        let listener = try TCPListener(Endpoint(host: "127.0.0.1", port: silent))
        let s = try pushdiag("survey", "--server", "127.0.0.1:\(silent)", "--duration", "2s", "--format", "json")
        withExtendedLifetime(listener) {}
        #expect(s.status == 2, "nothing answered: critical")
        let waited = try json(s.stdout)
        #expect((waited["duration_seconds"] as? Double ?? 0) >= 2)
        let unanswered = try #require((waited["heartbeats"] as? [[String: Any]])?.first)
        #expect(unanswered["sent"] as? Int == 1 && unanswered["received"] as? Int == 0, "one heartbeat, its answer due at the window's end: \(unanswered)")
        let states = (unanswered["states"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }
        #expect(states.last == "cancelled", "the window's end stopped the session: \(states)")
        // Holding the window after every part has ended costs no CPU (it spun at 100%: 3 s for 3 s).
        // Counted against a 1 s window of the same binary, which costs its start as well (a debug
        // build's argument parser checks survey's option groups: about 0.3 s of it).
        let refused = freePort()
        func cpuSeconds(_ window: String) throws -> Double? {
            let r = try run("/usr/bin/time", ["-f", "%U %S", TestPaths.binary.path, "survey", "--server", "127.0.0.1:\(refused)", "--duration", window])
            let times = r.stderr.split(separator: "\n").last.map { $0.split(separator: " ").compactMap { Double($0) } } ?? []
            return times.count == 2 ? times.reduce(0, +) : nil
        }
        let held1s = try #require(try cpuSeconds("1s"))
        let held3s = try #require(try cpuSeconds("3s"))
        #expect(held3s - held1s < 0.8, "user and system seconds over a 3 s window: \(held3s), over a 1 s one \(held1s)")
    }

    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    func survey(_ extra: [String], server: Bool = true) throws -> (RunResult, Background?) {
        var args = [
            "survey", "--interface", "wlan2", "--replay", fixture("wifi-utilization-57pct.pcap"), "--capture", fixture("lab-hwsim0-beacons.pcap"), "--duration",
            "3s",
        ]
        var responder: Background?
        if server {
            let port = freePort()
            let b = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"])
            #expect(b.wait(for: "listening on"))
            responder = b
            args += ["--server", "127.0.0.1:\(port)"]
        }
        return (try pushdiag(args + extra), responder)
    }

    /// A push server that refuses connections is the finding (devices cannot connect either);
    /// a name this machine cannot resolve means the check could not run.
    @Test func refusedServerIsCriticalUnresolvableIsUnknown() throws {
        let closed = freePort()
        let (r, _) = try survey(["--server", "127.0.0.1:\(closed)", "--server", "no-such-host.invalid:3000", "--format", "json"], server: false)
        #expect(r.status == 2, "\(r.stderr)")
        let checks = try #require(try json(r.stdout)["checks"] as? [[String: Any]])
        let refused = try #require(checks.first { $0["check"] as? String == "heartbeat" && $0["subject"] as? String == "127.0.0.1:\(closed)" })
        #expect(refused["status"] as? String == "critical")
        #expect(
            (refused["hint"] as? String)?.contains("connection refused") == true && (refused["hint"] as? String)?.contains("devices cannot connect") == true)
        let unresolvable = try #require(checks.first { $0["check"] as? String == "heartbeat" && $0["subject"] as? String == "no-such-host.invalid:3000" })
        #expect(unresolvable["status"] as? String == "unknown" && (unresolvable["hint"] as? String)?.contains("cannot resolve") == true)
    }

    @Test func verdictTableFromRecordings() throws {
        let (r, responder) = try survey(["--format", "json"])
        defer { responder?.stop() }
        #expect(r.status == 2, "\(r.stderr)")
        let j = try json(r.stdout)
        #expect(j["status"] as? String == "critical")
        let checks = try #require(j["checks"] as? [[String: Any]])
        for c in checks {
            for k in ["check", "status", "subject", "value", "unit", "threshold", "hint"] { #expect(c.keys.contains(k), "checks[].\(k)") }
        }
        let util = try #require(checks.first { $0["check"] as? String == "channel_utilization" && $0["status"] as? String == "critical" })
        #expect(util["value"] as? Double == 57 && (util["hint"] as? String)?.contains("less used channel") == true)
        #expect(checks.contains { $0["check"] as? String == "heartbeat" && $0["status"] as? String == "ok" })
        #expect(checks.contains { $0["check"] as? String == "route" && $0["status"] as? String == "ok" })
        #expect(checks.contains { $0["check"] as? String == "roaming" && $0["status"] as? String == "ok" })
        #expect(checks.contains { $0["check"] as? String == "frame_retries" })
        #expect(j["wifi"] is [String: Any] && j["capture"] is [String: Any] && (j["heartbeats"] as? [Any])?.count == 1 && j["routes"] is [String: Any])
    }

    /// The wifi part's own findings in a survey (its JSON's wifi.findings) are graded on the
    /// survey's ranges, as its checks are, also on a range no one number says: the recording's
    /// 57% busy channel inside @50:60 is critical in both, inside @60:70 in neither.
    @Test func theWifiPartsFindingsAreGradedOnTheSurveysRanges() throws {
        for (critical, expected) in [("@50:60", "critical"), ("@60:70", "ok")] {
            let (r, _) = try survey(["--format", "json", "--utilization-warning", "~:", "--utilization-critical", critical], server: false)
            let j = try json(r.stdout)
            let check = (j["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "channel_utilization" && $0["value"] as? Double == 57 }
            #expect(check?["status"] as? String == expected, "\(critical): \(String(describing: check))")
            let own = ((j["wifi"] as? [String: Any])?["findings"] as? [[String: Any]])?.first { $0["check"] as? String == "channel_utilization" }
            #expect((own?["severity"] as? String ?? "ok") == expected, "\(critical): \(String(describing: own))")
            if expected == "critical" {
                #expect(
                    own?["threshold"] is NSNull && (own?["message"] as? String)?.hasSuffix("inside the critical range @50:60") == true,
                    "\(String(describing: own))")
            }
        }
        // A range that alerts outside itself is said so.
        let (outside, _) = try survey(["--format", "json", "--utilization-critical", "10:50"], server: false)
        let wifi = (try json(outside.stdout)["wifi"] as? [String: Any])?["findings"] as? [[String: Any]]
        let said = wifi?.first { $0["check"] as? String == "channel_utilization" && $0["value"] as? Double == 57 }?["message"] as? String
        #expect(said?.hasSuffix("outside the critical range 10:50") == true, "\(String(describing: said))")
        // The capture part too (--capture): it graded on the defaults, whatever the survey's limits.
        let r = try pushdiag(
            "survey", "--capture", fixture("retries-above-15pct.pcap"), "--duration", "1s", "--format", "json", "--retransmission-warning", "~:",
            "--retransmission-critical", "@10:30")
        let j = try json(r.stdout)
        let retries = ((j["capture"] as? [String: Any])?["findings"] as? [[String: Any]])?.filter { $0["check"] as? String == "frame_retries" } ?? []
        #expect(!retries.isEmpty, "\(r.stderr)")
        for f in retries {
            #expect(
                f["severity"] as? String == "critical" && f["threshold"] is NSNull
                    && (f["message"] as? String)?.hasSuffix("inside the critical range @10:30") == true, "\(f)")
        }
        let check = (j["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "frame_retries" }
        #expect(check?["status"] as? String == "critical", "\(String(describing: check))")
    }

    @Test func nagiosAndPrometheusFormats() throws {
        let (n, responder) = try survey(["--format", "nagios"])
        defer { responder?.stop() }
        let line = try #require(n.stdout.split(separator: "\n").first)
        #expect(line.hasPrefix("PUSHDIAG CRITICAL - channel_utilization wlan2 channel 1 CRITICAL 57"))
        #expect(line.contains("'channel_utilization_wlan2_channel_1'=57%;32;40;0;100"), "\(line)")
        let (p, _) = try survey(["--format", "prometheus"], server: false)
        #expect(p.stdout.contains("pushdiag_channel_utilization_ratio{interface=\"wlan2\",frequency_mhz=\"2412\",source=\"survey\",trust=\"measured\"} 0.57"))
        #expect(p.stdout.contains("# TYPE pushdiag_check_status gauge"))
        if let promtool = TestPaths.which("promtool") {
            let dir = try TestPaths.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("survey.prom")
            try p.stdout.write(to: file, atomically: true, encoding: .utf8)
            let check = try run("/bin/sh", ["-c", "\(promtool) check metrics < \(file.path)"])
            #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
        }
    }

    /// The heartbeats' round trips are a histogram with the exporter's buckets (one name, one
    /// type): the +Inf bucket is the _count, one line per bucket.
    @Test func heartbeatRoundTripsAreAHistogramAsInTheExporter() throws {
        let (p, responder) = try survey(["--format", "prometheus"])
        defer { responder?.stop() }
        let lines = p.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE pushdiag_heartbeat_rtt_seconds histogram"), "\(p.stdout)")
        #expect(!p.stdout.contains("quantile="))
        let count = lines.first { $0.hasPrefix("pushdiag_heartbeat_rtt_seconds_count{") }?.split(separator: " ").last.flatMap { Double($0) }
        let inf = lines.first { $0.hasPrefix("pushdiag_heartbeat_rtt_seconds_bucket{") && $0.contains("le=\"+Inf\"") }?.split(separator: " ").last
        #expect(count != nil && count! >= 1 && inf.flatMap { Double($0) } == count, "\(p.stdout)")
        let buckets = lines.filter { $0.hasPrefix("pushdiag_heartbeat_rtt_seconds_bucket{") }
        #expect(buckets.count == RTTHistogram.bucketsSeconds.count + 1)
    }

    @Test func skippedChecksDoNotSetTheExitCode() throws {
        let r = try pushdiag(
            "survey", "--interface", "wlan2", "--replay", fixture("wifi-retries-20pct.pcap"), "--duration", "1s", "--retransmission-critical", "25",
            "--utilization-warning", "@0:100", "--format", "json")
        let j = try json(r.stdout)
        let checks = try #require(j["checks"] as? [[String: Any]])
        #expect(checks.filter { $0["status"] as? String == "skipped" }.count == 3, "heartbeat, route and frame_retries are skipped")
        let retrans = try #require(checks.first { $0["check"] as? String == "retransmissions" })
        #expect(retrans["status"] as? String == "warning" && retrans["value"] as? Double == 20, "20% is above 12, within 25")
        // "@0:100" alerts inside 0…100: any utilisation warns (a Monitoring Plugins range).
        #expect(checks.contains { $0["check"] as? String == "channel_utilization" && $0["status"] as? String != "ok" } || r.status >= 1)
        let bad = try pushdiag("survey", "--utilization-critical", "40:10")
        #expect(bad.status == 3 && bad.stderr.contains("is not a range"))
    }

    @Test(.enabled(if: access("/sys/class/ieee80211", F_OK) != 0, "this kernel has cfg80211: the survey without nl80211 is checked where there is none"))
    func noWifiHereIsUnknownWithTheReason() throws {
        let r = try pushdiag("survey", "--duration", "1s", "--format", "json")
        let checks = try #require(try json(r.stdout)["checks"] as? [[String: Any]])
        #expect(r.status == 3)
        #expect(checks.contains { $0["status"] as? String == "unknown" && ($0["hint"] as? String)?.contains("nl80211 is not available") == true })
    }
}
