import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// `pushdiag exporter` as an operator runs it: real responders as push servers, curl as the
/// client, promtool to lint the exposition, and Debian's Prometheus scraping it with the
/// shipped alert rules.
@Suite(.serialized) struct ExporterTests {
    func responder(_ port: UInt16, _ extra: [String] = []) throws -> Background {
        let b = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"] + extra)
        #expect(b.wait(for: "listening on"), "responder did not start: \(b.output)")
        return b
    }

    func exporter(_ port: UInt16, _ args: [String]) throws -> Background {
        let b = try Background(TestPaths.binary.path, ["exporter", "--listen", "127.0.0.1:\(port)"] + args)
        #expect(b.wait(for: "listening on"), "exporter did not start: \(b.output)")
        return b
    }

    /// GET (or another method) with curl: the status and the body.
    func http(_ url: String, method: String = "GET") throws -> (status: Int, body: String) {
        let r = try run("/usr/bin/curl", ["-s", "-X", method, "-o", "-", "-w", "\n%{http_code}", "--max-time", "20", url], timeout: 30)
        var lines = r.stdout.components(separatedBy: "\n")
        let status = Int(lines.popLast() ?? "") ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    func value(_ exposition: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        Exposition.value(exposition, name, labels)
    }

    func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            usleep(100_000)
        }
        return try condition()
    }

    @Test func heldSessionsAreCountedAndPromtoolFindsNothingToSay() throws {
        let pushPort = freePort()
        let server = try responder(pushPort)
        defer { server.stop() }
        let port = freePort()
        let e = try exporter(port, ["--server", "127.0.0.1:\(pushPort)", "--interval", "100ms"])
        var metrics = ""
        #expect(
            try eventually(15) {
                metrics = try http("http://127.0.0.1:\(port)/metrics").body
                return (value(metrics, "pushdiag_heartbeats_answered_total") ?? 0) >= 5
            }, "no heartbeats answered: \(metrics)\n\(e.output)")
        let target = ["target": "127.0.0.1:\(pushPort)", "protocol": "simplepush"]
        let sent = try #require(value(metrics, "pushdiag_heartbeats_sent_total", target))
        let answered = try #require(value(metrics, "pushdiag_heartbeats_answered_total", target))
        #expect(value(metrics, "pushdiag_session_up", target) == 1)
        #expect(value(metrics, "pushdiag_heartbeats_lost_total", target) == 0)
        #expect(answered <= sent && sent <= answered + 1, "one heartbeat at most in flight")
        #expect(value(metrics, "pushdiag_heartbeat_rtt_seconds_count", target) == answered)
        #expect(value(metrics, "pushdiag_heartbeat_rtt_seconds_bucket", target.merging(["le": "+Inf"]) { a, _ in a }) == answered)
        #expect(value(metrics, "pushdiag_exporter_build_info") == 1)
        // Every cause's stall series exists from the start; with no interface followed nothing
        // but none_seen can explain one.
        let causes = ["disconnect", "roam", "radar", "channel_switch", "own_scan", "link_change", "none_seen"]
        let stalls = causes.map { value(metrics, "pushdiag_stalls_total", target.merging(["cause": $0]) { a, _ in a }) }
        #expect(stalls.allSatisfy { $0 != nil } && stalls.dropLast().allSatisfy { $0 == 0 }, "\(stalls)")
        #expect(value(metrics, "pushdiag_exporter_config_last_reload_successful") == 1)

        // promtool's linter: names, units, counters' _total, help on every family.
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("metrics.txt")
        try metrics.write(to: file, atomically: true, encoding: .utf8)
        let lint = try run("/bin/sh", ["-c", "promtool check metrics < '\(file.path)'"])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "promtool: \(lint.stdout)\(lint.stderr)")

        // SIGTERM: a clean stop, the session closed, exit 0.
        kill(e.process.processIdentifier, SIGTERM)
        e.process.waitUntilExit()
        #expect(e.process.terminationStatus == 0)
        #expect(e.output.contains("push 127.0.0.1:\(pushPort): cancelled") && e.output.contains("stopped"), "\(e.output)")
        #expect(e.output.components(separatedBy: "ready (").count == 2, "one ready line for one connection: \(e.output)")
    }

    @Test func prometheusScrapesItAndTheShippedAlertsFire() throws {
        guard let prometheus = TestPaths.which("prometheus") else {
            Issue.record("prometheus is not installed (make test installs it)")
            return
        }
        let steadyPort = freePort()
        let lossyPort = freePort()
        let steady = try responder(steadyPort)
        defer { steady.stop() }
        let lossy = try responder(lossyPort, ["--drop", "0.5", "--seed", "7"])
        defer { lossy.stop() }
        // A registered device whose server sends heartbeats every second, on a path said to
        // forget idle connections after 1.5 s: more than half of it.
        let chattyPort = freePort()
        let chatty = try responder(chattyPort, ["--heartbeat-interval", "1s"])
        defer { chatty.stop() }
        let dir = try TestPaths.temporaryDirectory()
        try """
        [exporter]
        interval = "200ms"
        [[server]]
        host = "127.0.0.1"
        port = \(steadyPort)
        [[server]]
        host = "127.0.0.1"
        port = \(lossyPort)
        [[server]]
        host = "127.0.0.1"
        port = \(chattyPort)
        register = "ward-3"
        idle_timeout = "1.5s"
        """.write(to: dir.appendingPathComponent("pushdiag.toml"), atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--config", dir.appendingPathComponent("pushdiag.toml").path])
        defer { e.stop() }

        // The shipped rules as they are, but for their `for:` waits (minutes on a site).
        let shipped = try String(contentsOf: TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-exporter-alerts.yml"), encoding: .utf8)
        let rules = shipped.replacing(/for: \d+[smh]/, with: "for: 0s")
        #expect(rules != shipped)
        try rules.write(to: dir.appendingPathComponent("rules.yml"), atomically: true, encoding: .utf8)
        let promPort = freePort()
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files: ["\(dir.path)/rules.yml"]
        scrape_configs:
          - job_name: pushdiag
            static_configs:
              - targets: ["127.0.0.1:\(port)"]
        """.write(to: dir.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let p = try Background(
            prometheus,
            [
                "--config.file=\(dir.path)/prometheus.yml", "--storage.tsdb.path=\(dir.path)/data", "--web.listen-address=127.0.0.1:\(promPort)",
            ])
        defer { p.stop() }
        #expect(p.wait(for: "Server is ready to receive web requests", seconds: 30), "prometheus did not start: \(p.output)")
        let api = "http://127.0.0.1:\(promPort)/api/v1"

        func query(_ q: String) throws -> [[String: Any]] {
            let encoded = q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q
            let r = try json(try http("\(api)/query?query=\(encoded)").body)
            #expect(r["status"] as? String == "success", "query \(q): \(r)")
            return (r["data"] as? [String: Any])?["result"] as? [[String: Any]] ?? []
        }
        let allUp = try eventually(30) { try query("pushdiag_session_up == 1").count == 3 }
        #expect(allUp, "Prometheus did not scrape the three sessions up: \(e.output)")
        // Every panel of the shipped dashboard is a query Prometheus accepts.
        let dashboard = try json(String(contentsOf: TestPaths.root.appendingPathComponent("contrib/grafana/pushdiag-exporter.json"), encoding: .utf8))
        for panel in dashboard["panels"] as? [[String: Any]] ?? [] {
            for t in panel["targets"] as? [[String: Any]] ?? [] {
                _ = try query((t["expr"] as? String ?? "").replacingOccurrences(of: "$instance", with: ".*"))
            }
        }

        // The steady server dies; the lossy one drops half its answers.
        steady.stop()
        func firing() throws -> [(String, String)] {
            let r = try json(try http("\(api)/alerts").body)
            let alerts = (r["data"] as? [String: Any])?["alerts"] as? [[String: Any]] ?? []
            return alerts.compactMap { a in
                guard a["state"] as? String == "firing", let l = a["labels"] as? [String: Any] else { return nil }
                return (l["alertname"] as? String ?? "", l["target"] as? String ?? "")
            }
        }
        var seen: [(String, String)] = []
        let fired = try eventually(60) {
            seen = try firing()
            return seen.contains { $0 == ("PushSessionDown", "127.0.0.1:\(steadyPort)") }
                && seen.contains { $0 == ("PushHeartbeatLoss", "127.0.0.1:\(lossyPort)") }
                && seen.contains { $0 == ("PushServerIntervalNearIdleTimeout", "127.0.0.1:\(chattyPort)") }
        }
        #expect(fired, "alerts firing: \(seen)\n\(e.output)")
        // 1 s apart is under the 1.5 s itself: the critical one stays quiet.
        #expect(!seen.contains { $0.0 == "PushServerIntervalOutlivesIdleTimeout" }, "\(seen)")
        let gap = try query("pushdiag_server_heartbeat_last_gap_seconds{target=\"127.0.0.1:\(chattyPort)\"}")
        let gapValue = Double(((gap.first?["value"] as? [Any])?.last as? String) ?? "") ?? -1
        #expect(gapValue > 0.8 && gapValue < 1.5, "the server's 1 s interval as the exporter saw it: \(gap)")
        let lost = try query("pushdiag_heartbeats_lost_total{target=\"127.0.0.1:\(lossyPort)\"}")
        #expect(!lost.isEmpty)
    }

    @Test func sighupReloadsWithoutDroppingWhatDidNotChange() throws {
        let aPort = freePort()
        let bPort = freePort()
        let a = try responder(aPort)
        let b = try responder(bPort)
        defer { b.stop() }
        let dir = try TestPaths.temporaryDirectory()
        let config = dir.appendingPathComponent("pushdiag.toml")
        func write(_ ports: [UInt16], extra: String = "") throws {
            let servers = ports.map { "[[server]]\nhost = \"127.0.0.1\"\nport = \($0)\n" }.joined(separator: "\n")
            try ("[exporter]\ninterval = \"200ms\"\n\(extra)\n" + servers).write(to: config, atomically: true, encoding: .utf8)
        }
        try write([aPort])
        let port = freePort()
        let e = try exporter(port, ["--config", config.path])
        defer { e.stop() }
        let aTarget = ["target": "127.0.0.1:\(aPort)"]
        let bTarget = ["target": "127.0.0.1:\(bPort)"]
        #expect(try eventually(10) { value(try http("http://127.0.0.1:\(port)/metrics").body, "pushdiag_session_up", aTarget) == 1 })

        // A second server: it is started, the first goes on (the same connection).
        try write([aPort, bPort])
        kill(e.process.processIdentifier, SIGHUP)
        #expect(try eventually(10) { value(try http("http://127.0.0.1:\(port)/metrics").body, "pushdiag_session_up", bTarget) == 1 }, "\(e.output)")
        var m = try http("http://127.0.0.1:\(port)/metrics").body
        #expect(value(m, "pushdiag_session_up", aTarget) == 1)
        #expect(value(m, "pushdiag_session_losses_total", aTarget) == 0)
        #expect(e.output.contains("reloaded: 2 push session(s)") && e.output.contains("1 unchanged"), "\(e.output)")

        // A broken file: the running configuration stays, and the metrics say the reload failed.
        try "[exporter]\ninterval = \"soon\"\n".write(to: config, atomically: true, encoding: .utf8)
        kill(e.process.processIdentifier, SIGHUP)
        #expect(try eventually(10) { value(try http("http://127.0.0.1:\(port)/metrics").body, "pushdiag_exporter_config_last_reload_successful") == 0 })
        m = try http("http://127.0.0.1:\(port)/metrics").body
        #expect(value(m, "pushdiag_session_up", aTarget) == 1 && value(m, "pushdiag_session_up", bTarget) == 1)
        #expect(e.output.contains("reload failed, keeping the running configuration: \(config.path):2: exporter.interval:"), "\(e.output)")

        // The first server leaves the file: its session is closed and its series go.
        try write([bPort])
        kill(e.process.processIdentifier, SIGHUP)
        #expect(try eventually(10) { value(try http("http://127.0.0.1:\(port)/metrics").body, "pushdiag_session_up", aTarget) == nil })
        m = try http("http://127.0.0.1:\(port)/metrics").body
        #expect(value(m, "pushdiag_session_up", bTarget) == 1 && value(m, "pushdiag_exporter_config_last_reload_successful") == 1)
        // The responder served the first server's session on one connection through it all.
        a.process.interrupt()
        a.process.waitUntilExit()
        #expect(a.output.contains("served 1 connection,"), "\(a.output)")
    }

    /// The server's heartbeats are paced per connection: after the server went away and came back,
    /// the gap histogram holds the gaps on each connection, not one across the outage (it did,
    /// from the last heartbeat before the loss to the first after).
    @Test func theServerHeartbeatGapStartsAgainAfterAReconnect() throws {
        let pushPort = freePort()
        var server = try responder(pushPort, ["--heartbeat-interval", "300ms"])
        let dir = try TestPaths.temporaryDirectory()
        let config = dir.appendingPathComponent("pushdiag.toml")
        try """
        [exporter]
        interval = "200ms"
        [[server]]
        host = "127.0.0.1"
        port = \(pushPort)
        register = "ward-3"
        """.write(to: config, atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--config", config.path])
        defer { e.stop() }
        let target = ["target": "127.0.0.1:\(pushPort)"]
        let gaps = "pushdiag_server_heartbeat_gap_seconds_count"
        var m = ""
        #expect(
            try eventually(15) {
                m = try http("http://127.0.0.1:\(port)/metrics").body
                return (value(m, gaps, target) ?? 0) >= 2
            }, "\(m)")
        server.stop()
        sleep(2)
        server = try responder(pushPort, ["--heartbeat-interval", "300ms"])
        defer { server.stop() }
        #expect(
            try eventually(20) {
                m = try http("http://127.0.0.1:\(port)/metrics").body
                return value(m, "pushdiag_session_up", target) == 1 && (value(m, "pushdiag_session_losses_total", target) ?? 0) >= 1
            }, "\(e.output)")
        let before = value(m, gaps, target) ?? 0
        #expect(
            try eventually(15) {
                m = try http("http://127.0.0.1:\(port)/metrics").body
                return (value(m, gaps, target) ?? 0) >= before + 2
            }, "\(m)")
        let underASecond = value(m, "pushdiag_server_heartbeat_gap_seconds_bucket", target.merging(["le": "1.0"]) { a, _ in a })
        #expect(
            underASecond != nil && underASecond == value(m, gaps, target),
            "a gap across the outage was counted: \(m.split(separator: "\n").filter { $0.contains("server_heartbeat_gap") })")
    }

    @Test func probesAreOneShotAndBounded() throws {
        let pushPort = freePort()
        let slow = try responder(pushPort, ["--delay", "1500ms"])
        defer { slow.stop() }
        let dir = try TestPaths.temporaryDirectory()
        try "[exporter]\nprobe_allow = [\"127.0.0.1\"]\n".write(to: dir.appendingPathComponent("pushdiag.toml"), atomically: true, encoding: .utf8)
        let port = freePort()
        let e = try exporter(port, ["--max-probes", "1", "--config", dir.appendingPathComponent("pushdiag.toml").path])
        defer { e.stop() }
        let base = "http://127.0.0.1:\(port)"

        // One probe holds the only slot for 1.5 s; a second at the same time is refused.
        let first = try Background("/usr/bin/curl", ["-s", "\(base)/probe?target=127.0.0.1:\(pushPort)&count=1&timeout=5s"])
        #expect(try eventually(5) { value(try http("\(base)/metrics").body, "pushdiag_exporter_probes_in_flight") == 1 })
        let refused = try http("\(base)/probe?target=127.0.0.1:\(pushPort)&count=1")
        #expect(refused.status == 503 && refused.body.contains("max_probes"), "\(refused)")
        first.process.waitUntilExit()
        let answer = first.output
        // Answered, but 1.5 s is above the round-trip critical limit (1 s): not a success.
        #expect(value(answer, "probe_heartbeats_answered") == 1, "\(answer)")
        #expect((value(answer, "probe_heartbeat_rtt_seconds", ["stat": "median"]) ?? 0) >= 1.5, "the server's delay is in the round trip")
        #expect((value(answer, "probe_duration_seconds") ?? 0) >= 1.5)
        #expect(value(answer, "probe_status") == 2 && value(answer, "probe_success") == 0, "\(answer)")
        #expect(value(try http("\(base)/metrics").body, "pushdiag_exporter_probes_refused_total", ["reason": "max_probes"]) == 1)
        let fastPort = freePort()
        let fast = try responder(fastPort)
        defer { fast.stop() }
        let ok = try http("\(base)/probe?target=127.0.0.1:\(fastPort)&count=3&interval=10ms")
        #expect(ok.status == 200 && value(ok.body, "probe_success") == 1 && value(ok.body, "probe_heartbeats_answered") == 3, "\(ok)")

        // Nobody there: a failed probe, not an HTTP error.
        let dead = try http("\(base)/probe?target=127.0.0.1:\(freePort())&count=1")
        #expect(dead.status == 200 && value(dead.body, "probe_success") == 0, "\(dead)")
        // Bad requests are one line naming the parameter.
        for (query, says) in [
            ("", "target is missing"), ("target=127.0.0.1:1&count=0", "count: '0'"), ("target=127.0.0.1:1&count=nan", "count: 'nan'"),
            ("target=127.0.0.1:1&protocol=smtp", "protocol: 'smtp'"), ("target=127.0.0.1:1&colour=red", "unknown parameter colour"),
            ("target=%zz", "percent-encoded"), ("target=127.0.0.1:1&timeout=-1s", "timeout"), ("target=127.0.0.1:1&pin=abc", "go with tls=1"),
        ] {
            let r = try http("\(base)/probe?\(query)")
            #expect(r.status == 400 && r.body.contains(says) && r.body.split(separator: "\n").count == 1, "\(query): \(r)")
        }
        #expect(try http("\(base)/nowhere").status == 404)
        #expect(try http("\(base)/metrics", method: "POST").status == 405)
        #expect(try http("\(base)/-/healthy").body.trimmingCharacters(in: .whitespacesAndNewlines) == "OK")
        #expect(try http("\(base)/").body.contains("/probe?target="))
    }

    /// /probe connects only where the configuration allows (#31): the servers, and probe_allow's
    /// networks and names. A refusal is a 403 with one line, counted by reason, logged once per
    /// target, and the target is neither connected to nor, when its name or address already
    /// fails, resolved.
    @Test func probesGoOnlyWhereTheConfigurationAllows() throws {
        let serverPort = freePort()
        let server = try responder(serverPort)
        defer { server.stop() }
        let networkPort = freePort()
        let network = try responder(networkPort)
        defer { network.stop() }
        // Listeners where a refused probe would connect: nothing may arrive.
        let trapPort = freePort()
        let traps =
            [try TCPListener(Endpoint(host: "127.0.0.1", port: trapPort)), try TCPListener(Endpoint(host: "127.0.0.2", port: trapPort))]
            + [try? TCPListener(Endpoint(host: "::1", port: trapPort))].compactMap { $0 }
        let laterPort = freePort()
        let later = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.2:\(laterPort)"])
        defer { later.stop() }
        #expect(later.wait(for: "listening on"), "\(later.output)")

        let dir = try TestPaths.temporaryDirectory()
        let config = dir.appendingPathComponent("pushdiag.toml")
        func write(_ allow: String) throws {
            try "[exporter]\ninterval = \"200ms\"\nprobe_allow = [\(allow)]\n[[server]]\nhost = \"127.0.0.1\"\nport = \(serverPort)\n".write(
                to: config, atomically: true, encoding: .utf8)
        }
        try write("\"10.0.0.0/8\", \"127.0.0.1:\(networkPort)\"")
        let port = freePort()
        let e = try exporter(port, ["--config", config.path])
        defer { e.stop() }
        let base = "http://127.0.0.1:\(port)"
        #expect(e.output.contains("/probe to the servers and 2 probe_allow rule(s)"), "\(e.output)")

        // A configured server, and an address a network allows with the port: probed.
        for target in ["127.0.0.1:\(serverPort)", "127.0.0.1:\(networkPort)"] {
            let ok = try http("\(base)/probe?target=\(target)&count=1")
            #expect(ok.status == 200 && value(ok.body, "probe_success") == 1, "\(target): \(ok)")
        }

        // Refused: by address, by port, and a name no name rule allows whose address is outside
        // (localhost resolves to loopback alone; which comes first is the resolver's order).
        let loopback = try Resolver.addresses("localhost").get()[0]
        let refusals = [
            ("127.0.0.2:\(trapPort)", "not_allowed", "not a configured push server and outside probe_allow"),
            (
                "127.0.0.1:\(trapPort)", "not_allowed",
                "not a configured push server, and probe_allow's 127.0.0.1:\(networkPort) does not allow port \(trapPort)"
            ),
            (
                "localhost:\(trapPort)", "resolved_outside",
                "not a configured push server nor a probe_allow name, and it resolves to \(loopback), outside probe_allow's networks for port \(trapPort)"
            ),
            ("127.0.0.2:\(laterPort)", "not_allowed", "not a configured push server and outside probe_allow"),
        ]
        for (target, _, why) in refusals {
            for _ in 0..<2 {
                let r = try http("\(base)/probe?target=\(target)&count=1")
                #expect(r.status == 403 && r.body == "probe: target \(target) is not allowed: \(why)\n", "\(target): \(r)")
            }
            #expect(e.output.components(separatedBy: "probe: target \(target) is not allowed").count == 2, "logged once: \(e.output)")
        }
        var m = try http("\(base)/metrics").body
        for reason in ProbeRefusal.Reason.allCases.map(\.rawValue) {
            let expected = refusals.filter { $0.1 == reason }.count * 2
            #expect(value(m, "pushdiag_exporter_probes_refused_total", ["reason": reason]) == Double(expected), "\(reason): \(m)")
        }
        #expect(traps.allSatisfy { $0.accept() == nil }, "a refused probe connected")

        // A bad entry on reload: the running list stays, and the log names the entry.
        try write("\"10.0.0.0/33\"")
        kill(e.process.processIdentifier, SIGHUP)
        #expect(try eventually(10) { value(try http("\(base)/metrics").body, "pushdiag_exporter_config_last_reload_successful") == 0 })
        #expect(
            e.output.contains("reload failed, keeping the running configuration: \(config.path):3: exporter.probe_allow: '10.0.0.0/33': prefix length '33'"),
            "\(e.output)")
        #expect(try http("\(base)/probe?target=127.0.0.1:\(networkPort)&count=1").status == 200)
        #expect(try http("\(base)/probe?target=127.0.0.2:\(laterPort)&count=1").status == 403)

        // A good one: what it allows is probed from then on.
        try write("\"127.0.0.0/8:\(laterPort)\"")
        kill(e.process.processIdentifier, SIGHUP)
        #expect(try eventually(10) { value(try http("\(base)/metrics").body, "pushdiag_exporter_config_last_reload_successful") == 1 })
        let now = try http("\(base)/probe?target=127.0.0.2:\(laterPort)&count=1")
        #expect(now.status == 200 && value(now.body, "probe_success") == 1, "\(now)")
        #expect(try http("\(base)/probe?target=127.0.0.1:\(networkPort)&count=1").status == 403, "no longer allowed")
        m = try http("\(base)/metrics").body
        #expect(value(m, "pushdiag_exporter_probes_refused_total", ["reason": "not_allowed"]) == 8)
        #expect(traps.allSatisfy { $0.accept() == nil }, "a refused probe connected")

        // At start, a bad entry is a configuration error: exit 3, the entry named.
        try write("\"push.ward-b.internal\"")
        let bad = try pushdiag("exporter", "--listen", "127.0.0.1:\(freePort())", "--config", config.path)
        #expect(bad.status == 3 && bad.stderr.contains("exporter.probe_allow: 'push.ward-b.internal': a host-name rule needs a port"), "\(bad.stderr)")
    }

    @Test func wifiFromARecordingIsWhatWifiSays() throws {
        for fixture in ["wifi-utilization-57pct", "wifi-retries-20pct", "driver-radio-wide", "wifi-weak-signal"] {
            let file = TestPaths.fixtures.appendingPathComponent("\(fixture).pcap").path
            let expected = try json(try pushdiag("wifi", "--replay", file, "--format", "json").stdout)
            let port = freePort()
            let e = try exporter(port, ["--interface", "wlan2", "--replay", file])
            #expect(e.wait(for: "no more samples"), "\(e.output)")
            let m = try http("http://127.0.0.1:\(port)/metrics").body
            e.stop()
            #expect(value(m, "pushdiag_wifi_up", ["interface": "wlan2"]) == 1)
            let pairs: [(String, String, String, String)] = [
                ("pushdiag_channel_utilization_ratio", "channel_utilization_percent", "channel_utilization_source", "utilization"),
                ("pushdiag_retransmission_ratio", "retransmission_percent", "retransmission_source", "retransmission"),
            ]
            for (metric, key, sourceKey, what) in pairs {
                if let percent = expected[key] as? Double, let source = expected[sourceKey] as? String {
                    let v = try #require(value(m, metric, ["interface": "wlan2", "source": source]), "\(fixture): \(metric) \(m)")
                    #expect(abs(v - percent / 100) < 1e-9, "\(fixture): \(metric) \(v) against wifi's \(percent)%")
                    #expect(value(m, "pushdiag_wifi_value_unknown", ["value": what]) == nil)
                } else {
                    #expect(value(m, metric) == nil, "\(fixture): no \(metric) where wifi has none")
                    #expect(value(m, "pushdiag_wifi_value_unknown", ["value": what]) == 1, "\(fixture): \(what) said unknown")
                }
            }
            #expect(value(m, "pushdiag_signal_dbm") == (expected["signal_dbm"] as? Double), "\(fixture)")
            // Through the iPhone's eyes: the lens's rules on the scan entries wifi lists (the
            // recordings' entries were seen within the last second), or said unknown.
            let lensUnknown = value(m, "pushdiag_wifi_value_unknown", ["value": "iphone_lens"])
            if fixture == "wifi-weak-signal" { #expect(lensUnknown == nil, "\(fixture): the lens said unknown: \(m)") }
            if lensUnknown == nil, let own = expected["signal_dbm"] as? Double {
                let bss = expected["bss"] as? [[String: Any]] ?? []
                let others = bss.filter { $0["current"] as? Bool != true && $0["ssid"] as? String == expected["ssid"] as? String }
                    .compactMap { $0["signal_dbm"] as? Double }
                let best = others.max()
                #expect(value(m, "pushdiag_iphone_candidate_margin_db", ["interface": "wlan2"]) == best.map { $0 - own }, "\(fixture): \(m)")
                for (traffic, margin) in [("true", 8.0), ("false", 12.0)] {
                    let roams = own < -70 && (best.map { $0 - own >= margin } ?? false)
                    #expect(value(m, "pushdiag_iphone_would_roam", ["interface": "wlan2", "traffic": traffic]) == (roams ? 1 : 0), "\(fixture): \(m)")
                }
                #expect(value(m, "pushdiag_roaming_coverage_bss") == Double((others + [own]).filter { $0 >= -67 }.count), "\(fixture)")
                let cochannel = bss.filter {
                    $0["current"] as? Bool != true && $0["frequency_mhz"] as? Int == expected["frequency_mhz"] as? Int
                        && ($0["signal_dbm"] as? Double ?? -200) >= -82
                }
                #expect(value(m, "pushdiag_cochannel_bss") == Double(cochannel.count), "\(fixture)")
            }
        }

        // Roams: as many as watch finds in the same recording, each graded.
        let roams = TestPaths.fixtures.appendingPathComponent("lab-watch-roams.pcap").path
        let watched = try pushdiag("watch", "--interface", "wlan2", "--replay", roams, "--format", "jsonl").stdout
        let expectedRoams = watched.split(separator: "\n").filter { $0.contains("\"event\":\"roam\"") || $0.contains("\"event\": \"roam\"") }.count
        #expect(expectedRoams > 0)
        let port = freePort()
        let e = try exporter(port, ["--interface", "wlan2", "--replay", roams])
        defer { e.stop() }
        #expect(e.wait(for: "no more events"), "\(e.output)")
        let m = try http("http://127.0.0.1:\(port)/metrics").body
        let graded = Exposition.series(m, "pushdiag_roams_total").map(\.value).reduce(0, +)
        // Every series is labelled with its grade and result (the recording's roams are 802.11r).
        #expect(Exposition.series(m, "pushdiag_roams_total").allSatisfy { $0.labels.contains("grade=\"") && $0.labels.contains("result=\"") })
        let fast = Exposition.series(m, "pushdiag_roams_total", ["result": "fast_transition"]).map(\.value).reduce(0, +)
        #expect(Int(fast) == expectedRoams, "\(m)")
        #expect(Int(graded) == expectedRoams, "\(m)")
        // Each roam's log line ends with its grade and its reasons in words, as the walk's report
        // says them: an ok one "within the limits".
        let logged = e.output.split(separator: "\n").filter { $0.contains("wifi wlan2: roam ") }
        #expect(logged.count == expectedRoams, "\(e.output)")
        let ok = Exposition.series(m, "pushdiag_roams_total", ["grade": "ok"]).map(\.value).reduce(0, +)
        #expect(logged.filter { $0.hasSuffix(", ok: within the limits") }.count == Int(ok) && ok > 0, "\(e.output)")
        #expect(!logged.contains { $0.contains(": [") || $0.hasSuffix(": ") }, "\(e.output)")
        // One number for a roam's gap: the line's is watch's gap_ms to the hundredth, and a reason
        // naming the gap names the same digits (it said 195.4 beside 195.45).
        let gaps = try watched.split(separator: "\n").map { try json(String($0)) }.filter { $0["event"] as? String == "roam" }.map { $0["gap_ms"] as? Double }
        func after(_ marker: String, in line: Substring) -> String? {
            line.range(of: marker).map { String(line[$0.upperBound...].prefix { $0 != " " }) }
        }
        #expect(gaps.count == logged.count, "\(watched)")
        // The histogram holds the gaps watch reported, no more: a roam without one is not a 0.
        let reported = gaps.compactMap { $0 }
        #expect(value(m, "pushdiag_roam_gap_seconds_count") == Double(reported.count))
        #expect(
            value(m, "pushdiag_roam_gap_seconds_sum").map { NumberText.rounded($0, places: 1e6) }
                == NumberText.rounded(reported.reduce(0, +) / 1000, places: 1e6))
        for (line, gap) in zip(logged, gaps) {
            let said = after(", gap ", in: line)
            #expect(said.flatMap(Double.init).map { abs($0 - (gap ?? .nan)) <= 0.005 } ?? (gap == nil), "\(line) against \(gap as Any)")
            if let reason = after("link gap ", in: line) { #expect(reason == said, "\(line)") }
        }
        #expect(logged.contains { $0.contains("link gap ") }, "a roam of the recording is graded on its gap: \(e.output)")
    }

    /// Failed 802.11r attempts, counted by stage as watch reports them on the same recording:
    /// walk-ft-failed-keys (the keys never held, rejoined within the roam window: also a roam) and
    /// lab-walk-ft-refused-late (a lab run of 2026-11-27, kept as it came: ap2 refused the FT
    /// authentication, status 53, and the station joined its old AP again 15.6 s later, past the
    /// window: only the connect carries it, and no roam counts it). Then the shipped rule, as
    /// promtool evaluates it over the series the exporter gave.
    @Test func failedFastTransitionsAreCountedByStageAndTheShippedAlertFires() throws {
        var late = ""
        for name in ["walk-ft-failed-keys", "lab-walk-ft-refused-late"] {
            let pcap = TestPaths.fixtures.appendingPathComponent(name + "/nl80211.pcap").path
            let watched = try pushdiag("watch", "--interface", "wlan2", "--replay", pcap, "--format", "jsonl").stdout
            var expected: [String: Double] = [:]
            var roamed = 0.0
            for line in watched.split(separator: "\n") {
                let event = try json(String(line))
                guard let f = event["fast_transition_failure"] as? [String: Any], let stage = f["stage"] as? String else { continue }
                expected[stage, default: 0] += 1
                if event["event"] as? String == "roam" { roamed += 1 }
            }
            #expect(expected == (name == "walk-ft-failed-keys" ? ["keys": 1] : ["authentication": 1]), "\(name): \(watched)")
            // watch's summary counts them as the exporter does.
            let summary = try json(String(watched.split(separator: "\n").last ?? ""))
            #expect(summary["fast_transition_failures"] as? Int == 1, "\(name): \(summary)")
            let port = freePort()
            let e = try exporter(port, ["--interface", "wlan2", "--replay", pcap])
            defer { e.stop() }
            #expect(e.wait(for: "no more events"), "\(e.output)")
            let m = try http("http://127.0.0.1:\(port)/metrics").body
            for stage in FastTransitionFailure.Stage.allCases.map(\.rawValue) {
                #expect(value(m, "pushdiag_fast_transition_failures_total", ["stage": stage]) == expected[stage] ?? 0, "\(name) \(stage): \(m)")
            }
            let failedRoams = Exposition.series(m, "pushdiag_roams_total", ["result": "fast_transition_failed"]).map(\.value).reduce(0, +)
            #expect(failedRoams == roamed && roamed == (name == "walk-ft-failed-keys" ? 1 : 0), "\(name): \(m)")
            // The late connect is in the log too, with the outage and the refusal.
            if name == "lab-walk-ft-refused-late" {
                #expect(e.output.contains("ms down: 802.11r failed: FT authentication refused by 02:00:00:00:01:00, status 53"), "\(e.output)")
                late = m
            }
        }

        // The shipped rule over those series as a scrape would give them an hour long: the
        // counter at 0, then at the exporter's value from minute 40; evaluated at minute 90.
        let series = Exposition.series(late, "pushdiag_fast_transition_failures_total").map { s in
            (name: "pushdiag_fast_transition_failures_total{instance=\"ward-3\",\(s.labels.dropFirst())", values: "0x40 \(NumberText.format(s.value))x60")
        }
        #expect(series.count == FastTransitionFailure.Stage.allCases.count, "\(late)")
        let test = try promtoolTestRules(
            rules: TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-exporter-alerts.yml"), series: series,
            alerts: """
                - eval_time: 90m
                  alertname: WiFiFastTransitionsFailing
                  exp_alerts:
                    - exp_labels: {severity: warning, instance: ward-3, interface: wlan2, stage: authentication}
                      exp_annotations:
                        summary: "ward-3 wlan2: 1 802.11r fast transition(s) failed at the authentication stage in the last hour"
                        description: "The target AP refused the fast transition (authentication, reassociation) or its keys never held (keys): the station joined again some other way, or not at once, and an iOS push provider starts again from nothing after such a rejoin. Common causes: R0KH/R1KH lists or mobility-domain settings that differ between the APs. pushdiag watch on this interface names the AP."
                """)
        #expect(test.passed, "\(test.output)")
    }

    @Test func badFlagsAreOneLineAndExit3() throws {
        let taken = freePort()
        let server = try responder(taken)
        defer { server.stop() }
        for (args, says) in [
            (["--listen", "nowhere"], "--listen"), (["--listen", "127.0.0.1:99999"], "--listen"), (["--max-probes", "0"], "--max-probes"),
            (["--max-probes", "-1"], "--max-probes"), (["--max-probes", "1e18"], "max-probes"), (["--interval", "0"], "--interval"),
            (["--interval", "nan"], "--interval"), (["--wifi-interval", "garbage"], "--wifi-interval"), (["--interface", ""], "--interface"),
            (["--listen", "127.0.0.1:\(taken)"], "cannot listen on 127.0.0.1:\(taken)"), (["--config", "/nonexistent.toml"], "/nonexistent.toml"),
            (["--replay", "/nonexistent.pcap"], "/nonexistent.pcap"), (["--pin", "x"], "--tls"),
        ] {
            let r = try pushdiag(["exporter"] + (args.first == "--listen" ? [] : ["--listen", "127.0.0.1:\(freePort())"]) + args)
            #expect(r.status == 3 && !r.signalled, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains(says), "\(args): \(r.stderr)")
        }
    }

    /// The exporter's retransmission ratio is each --wifi-interval's: its alert counts the frames
    /// over the alert's span, so a link sending a few frames an interval still alerts (10 a
    /// minute, 20% retried), and one sending almost none (2 a minute) does not.
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func theRetransmissionAlertCountsFramesOverItsSpan() throws {
        let rules = TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-exporter-alerts.yml")
        func series(frames: Int) -> [(name: String, values: String)] {
            [
                ("pushdiag_retransmission_ratio{instance=\"ward-3\",interface=\"wlan2\",source=\"station_retries\",trust=\"measured\"}", "0.2x30"),
                ("pushdiag_retransmission_frames{instance=\"ward-3\",interface=\"wlan2\"}", "\(frames)x30"),
            ]
        }
        let fires = try retransmissionAlertTest(
            rules: rules, series: series(frames: 10), firesWith: "ward-3 wlan2: 20% of frames retransmitted (station_retries)")
        #expect(fires.passed, "\(fires.output)")
        let quiet = try retransmissionAlertTest(rules: rules, series: series(frames: 2), firesWith: nil)
        #expect(quiet.passed, "\(quiet.output)")
    }

    @Test func theShippedUnitAndRulesAreValid() throws {
        let rules = try run(
            "/usr/bin/promtool", ["check", "rules", TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-exporter-alerts.yml").path])
        #expect(rules.status == 0, "\(rules.stdout)\(rules.stderr)")
        let dir = try TestPaths.temporaryDirectory()
        // The secured form names its certificates, key and password file, which promtool wants to see.
        var scrape = try String(contentsOf: TestPaths.root.appendingPathComponent("contrib/prometheus/prometheus-scrape.yml"), encoding: .utf8)
        #expect(scrape.contains("scheme: https") && scrape.contains("tls_config:") && scrape.contains("basic_auth:"), "the secured form")
        for name in ["exporters-ca.crt", "prometheus.crt", "prometheus.key", "password"] {
            #expect(scrape.contains("/etc/prometheus/pushdiag/\(name)"))
            try "".write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        scrape = scrape.replacingOccurrences(of: "/etc/prometheus/pushdiag/", with: dir.path + "/")
        try ("global:\n  scrape_interval: 15s\n" + scrape).write(to: dir.appendingPathComponent("p.yml"), atomically: true, encoding: .utf8)
        let config = try run("/usr/bin/promtool", ["check", "config", dir.appendingPathComponent("p.yml").path])
        #expect(config.status == 0, "\(config.stdout)\(config.stderr)")
        guard let analyze = TestPaths.which("systemd-analyze") else { return }
        let unit = try String(contentsOf: TestPaths.root.appendingPathComponent("contrib/systemd/pushdiag-exporter.service"), encoding: .utf8)
        try unit.replacingOccurrences(of: "/usr/local/bin/pushdiag", with: TestPaths.binary.path).replacingOccurrences(
            of: "Documentation=man:pushdiag(1)\n", with: ""
        )
        .write(to: dir.appendingPathComponent("pushdiag-exporter.service"), atomically: true, encoding: .utf8)
        let verify = try run(analyze, ["verify", dir.appendingPathComponent("pushdiag-exporter.service").path])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")
    }
}

/// The exporter's stalls from rtnetlink (#29 item 4): a session across a veth pair between two
/// network namespaces, the exporter following the veth (`--interface`: no Wi-Fi, so only its
/// carrier and address changes are followed), and the client's address removed and added back a
/// second later. The heartbeats in flight meanwhile wait for TCP's retransmission and count as
/// `pushdiag_stalls_total{cause="link_change"}`; none did before.
@Suite(
    .serialized,
    .enabled(if: getuid() == 0 && TestPaths.which("ip") != nil && TestPaths.which("curl") != nil, "needs root, iproute2 for network namespaces, and curl"))
struct ExporterNamespaceTests {
    /// The exporter on an IPv6 address: its listening line brackets it, and /probe's rate is
    /// kept per client address and per /64 (twice an address's: `ClientShares`): a client that
    /// spends its burst is refused, another address of its /64 has a burst of its own until the
    /// /64's is spent, and another /64 is untouched. Real curl from real source addresses, in a
    /// namespace.
    @Test func anIPv6ClientCountsByItsAddressAndItsSlash64() throws {
        let ip = TestPaths.which("ip")!
        let curl = TestPaths.which("curl")!
        let pair = try VethNamespaces(tag: "r", subnet: 203)
        defer { pair.remove() }
        let ns = pair.server
        for a in ["2001:db8:7::1", "2001:db8:7::2", "2001:db8:7::3", "2001:db8:7::4", "2001:db8:8::2"] {
            try pair.run(["netns", "exec", ns, "ip", "-6", "addr", "add", "\(a)/64", "dev", "lo", "nodad"])
        }
        let exporter = try Background(ip, ["netns", "exec", ns, TestPaths.binary.path, "exporter", "--listen", "[2001:db8:7::1]:9466"])
        defer { exporter.stop() }
        #expect(exporter.wait(for: "listening on [2001:db8:7::1]:9466"), "an IPv6 address and its port, bracketed: \(exporter.output)")
        let url = "http://[2001:db8:7::1]:9466/probe?target=192.0.2.1:3000"
        // One curl, its transfers back to back (`--next`): the burst from ::2, then ten from ::3
        // (the same /64) and ten from another /64, each from its own source address.
        func from(_ source: String, _ count: Int) -> [String] {
            ["-s", "-o", "/dev/null", "-w", "%{http_code} \(source)\\n", "--interface", source] + Array(repeating: url, count: count)
        }
        let burst = Int(ClientRateLimit.burst) + 5
        let args =
            from("2001:db8:7::2", burst) + ["--next"] + from("2001:db8:7::3", 10) + ["--next"] + from("2001:db8:7::4", 15) + ["--next"]
            + from("2001:db8:8::2", 10)
        let r = try run(ip, ["netns", "exec", ns, curl] + args, timeout: 30)
        var codes: [String: [String]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let f = line.split(separator: " ")
            if f.count == 2 { codes[String(f[1]), default: []].append(String(f[0])) }
        }
        let first = codes["2001:db8:7::2"] ?? []
        #expect(first.count == burst && first.last == "429" && first.first != "429", "\(first)")
        for other in ["2001:db8:7::3", "2001:db8:8::2"] {
            let c = codes[other] ?? []
            #expect(c.count == 10 && !c.contains("429") && !c.contains("000"), "\(other) has a burst of its own: \(c)")
        }
        // The /64's burst (40) spent: the third address gets what is left, 10 (a token comes back
        // every 100 ms, so a slow machine may see one or two more).
        let third = codes["2001:db8:7::4"] ?? []
        #expect(third.count == 15 && (3...5).contains(third.filter { $0 == "429" }.count), "the /64's share spent: \(third)")
        #expect(exporter.output.contains("2001:db8:7::2 asks more often"), "the log names the client: \(exporter.output)")
    }

    @Test func anAddressChangeIsALinkChangeStall() throws {
        let ip = TestPaths.which("ip")!
        let pair = try VethNamespaces(tag: "x", subnet: 202)
        defer { pair.remove() }
        let (srv, cli, vx1) = (pair.server, pair.client, pair.clientDevice)
        let server = try Background(ip, ["netns", "exec", srv, TestPaths.binary.path, "responder", "--listen", "10.202.0.1:3000"])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"))
        let exporter = try Background(
            ip,
            [
                "netns", "exec", cli, TestPaths.binary.path, "exporter", "--listen", "127.0.0.1:9466", "--server", "10.202.0.1:3000", "--interval", "100ms",
                "--interface", vx1,
            ])
        defer { exporter.stop() }
        #expect(exporter.wait(for: "listening on"), "\(exporter.output)")
        func stalls(_ cause: String) throws -> Double? {
            let r = try run(ip, ["netns", "exec", cli, TestPaths.which("curl")!, "-s", "--max-time", "5", "http://127.0.0.1:9466/metrics"], timeout: 10)
            return Exposition.value(r.stdout, "pushdiag_stalls_total", ["cause": cause])
        }
        // Three seconds of heartbeats (their p95), every cause at 0.
        usleep(3_000_000)
        #expect(try stalls("link_change") == 0, "\(exporter.output)")
        _ = try run(ip, ["netns", "exec", cli, "ip", "addr", "del", "10.202.0.2/24", "dev", vx1])
        usleep(1_000_000)
        _ = try run(ip, ["netns", "exec", cli, "ip", "addr", "add", "10.202.0.2/24", "dev", vx1])
        var seen: Double?
        for _ in 0..<50 {
            seen = try stalls("link_change")
            if (seen ?? 0) >= 1 { break }
            usleep(200_000)
        }
        #expect((seen ?? 0) >= 1, "link_change stalls \(seen.map { "\($0)" } ?? "absent"): \(exporter.output)")
        #expect(exporter.output.contains("wifi \(vx1) changes: following"), "\(exporter.output)")
    }
}
