import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag report` for cron: the SQLite history (read back with the sqlite3 command line),
/// the Prometheus textfile (checked by promtool and read by a real node_exporter), overlapping
/// runs and runs killed midway.
@Suite(.serialized)
struct ReportTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    func reportArgs(_ dir: URL) -> [String] {
        [
            "report", "--interface", "wlan2", "--replay", fixture("wifi-utilization-57pct.pcap"), "--duration", "1s",
            "--history", dir.appendingPathComponent("history.db").path, "--textfile", dir.appendingPathComponent("pushdiag.prom").path,
        ]
    }

    func sql(_ db: URL, _ query: String) throws -> String {
        try run(TestPaths.which("sqlite3")!, [db.path, query]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: TestPaths.which("sqlite3") != nil && TestPaths.which("promtool") != nil, "needs sqlite3 and promtool"))
    func historyAndTextfile() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try pushdiag(reportArgs(dir))
        #expect(r.status == 2 && r.stdout.hasPrefix("PUSHDIAG CRITICAL"), "\(r.stderr)")
        let db = dir.appendingPathComponent("history.db")
        #expect(try sql(db, "SELECT status FROM runs") == "critical")
        #expect(try sql(db, "SELECT value FROM checks WHERE check_name = 'channel_utilization' AND status = 'critical'") == "57.0")
        let prom = dir.appendingPathComponent("pushdiag.prom")
        let check = try run("/bin/sh", ["-c", "\(TestPaths.which("promtool")!) check metrics < \(prom.path)"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(
            try String(contentsOf: prom, encoding: .utf8).contains(
                "pushdiag_channel_utilization_ratio{interface=\"wlan2\",frequency_mhz=\"2412\",source=\"survey\",trust=\"measured\"} 0.57"))
        // A second run appends.
        _ = try pushdiag(reportArgs(dir))
        #expect(try sql(db, "SELECT count(*) FROM runs") == "2")
        #expect(try sql(db, "PRAGMA integrity_check") == "ok")
    }

    @Test(
        .enabled(
            if: TestPaths.which("prometheus-node-exporter") != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
            "needs prometheus-node-exporter"))
    func nodeExporterReadsTheTextfile() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every part at once, so that checks of the same kind meet: the SSID's roaming support from
        // the scan and from the capture, a server given twice, two servers on one host (one route).
        // node_exporter refuses a whole textfile with a series in it twice.
        let closed = freePort()
        let other = freePort()
        _ = try pushdiag(
            reportArgs(dir) + [
                "--capture", fixture("lab-hwsim0-beacons.pcap"),
                "--server", "127.0.0.1:\(closed)", "--server", "127.0.0.1:\(closed)", "--server", "127.0.0.1:\(other)",
            ])
        let port = freePort()
        let exporter = try Background(
            TestPaths.which("prometheus-node-exporter")!,
            [
                "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(dir.path)",
            ])
        defer { exporter.stop() }
        #expect(exporter.wait(for: "Listening on"), "\(exporter.output)")
        let scrape = try run(
            "/usr/bin/python3",
            ["-c", "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1]).read().decode())", "http://127.0.0.1:\(port)/metrics"])
        #expect(
            scrape.stdout.contains("pushdiag_channel_utilization_ratio{frequency_mhz=\"2412\",interface=\"wlan2\",source=\"survey\",trust=\"measured\"} 0.57"),
            "\(scrape.stdout.suffix(2000))")
        #expect(scrape.stdout.contains("node_textfile_scrape_error 0"))
        // A series twice does not show in the scrape (node_exporter keeps the first and answers
        // 200) but in its log, on every scrape.
        let log = exporter.output
        #expect(!log.contains("was collected before"), "\(log.suffix(1500))")
        #expect(scrape.stdout.contains("pushdiag_check_status{check=\"roaming\",subject=\"ward-3, 2 BSS (scan)\"} 0"))
        #expect(scrape.stdout.contains("pushdiag_check_status{check=\"roaming\",subject=\"ward-3, 2 BSS (capture)\"} 0"))
        // Each server once, its host's route once.
        let text = try String(contentsOf: dir.appendingPathComponent("pushdiag.prom"), encoding: .utf8)
        let series = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        #expect(Set(series).count == series.count, "\(series)")
        #expect(series.filter { $0.hasPrefix("pushdiag_check_status{check=\"heartbeat\"") }.count == 2)
        #expect(series.filter { $0.hasPrefix("pushdiag_check_status{check=\"route\"") }.count == 1)
    }

    @Test(.enabled(if: TestPaths.which("sqlite3") != nil && TestPaths.which("promtool") != nil, "needs sqlite3 and promtool"))
    func overlappingAndKilledRuns() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Four at once: every run lands, the database stays whole.
        let runs = try (0..<4).map { _ in try Background(TestPaths.binary.path, reportArgs(dir)) }
        for b in runs { b.process.waitUntilExit() }
        let db = dir.appendingPathComponent("history.db")
        #expect(try sql(db, "SELECT count(*) FROM runs") == "4")
        // Killed at various moments: nothing written is lost, nothing half-written shows.
        for delay in [100_000, 600_000, 900_000, 1_000_000, 1_050_000, 1_100_000, 1_200_000] {
            let b = try Background(TestPaths.binary.path, reportArgs(dir))
            usleep(UInt32(delay))
            kill(b.process.processIdentifier, SIGKILL)
            b.process.waitUntilExit()
        }
        let count = Int(try sql(db, "SELECT count(*) FROM runs")) ?? 0
        #expect(count >= 4 && count <= 11)
        #expect(try sql(db, "PRAGMA integrity_check") == "ok")
        #expect(try sql(db, "SELECT count(*) FROM runs WHERE id NOT IN (SELECT run_id FROM checks)") == "0", "a run is stored with its checks or not at all")
        let prom = dir.appendingPathComponent("pushdiag.prom")
        let check = try run("/bin/sh", ["-c", "\(TestPaths.which("promtool")!) check metrics < \(prom.path)"])
        #expect(check.status == 0, "the textfile is a whole old or new one")
        // SIGTERM midway through a survey that holds heartbeats for 5 s: it stops early, what it
        // has is still written whole, and the run is marked interrupted.
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"))
        let before = Int(try sql(db, "SELECT count(*) FROM runs")) ?? 0
        let b = try Background(TestPaths.binary.path, reportArgs(dir) + ["--duration", "5s", "--server", "127.0.0.1:\(port)"])
        // Midway: its heartbeat connection is up (however long its start took), then a moment.
        try #require(waitTCP(port: port), "the survey did not connect to the server")
        usleep(500_000)
        let asked = Date()
        b.process.terminate()
        b.process.waitUntilExit()
        #expect(Date().timeIntervalSince(asked) < 3, "the survey stopped at the signal, not at the end of its 5 s")
        #expect(try sql(db, "PRAGMA integrity_check") == "ok")
        let again = try run("/bin/sh", ["-c", "\(TestPaths.which("promtool")!) check metrics < \(prom.path)"])
        #expect(again.status == 0)
        #expect(Int(try sql(db, "SELECT count(*) FROM runs")) == before + 1)
        #expect(try sql(db, "SELECT interrupted FROM runs ORDER BY id DESC LIMIT 1") == "1")
        #expect(try sql(db, "SELECT json_extract(report, '$.interrupted') FROM runs ORDER BY id DESC LIMIT 1") == "1")
        #expect(try sql(db, "SELECT count(*) FROM runs WHERE interrupted = 0") == "\(before)", "the runs that ended normally are not marked")
    }

    /// Each output stands alone: a history that cannot be opened does not cost the textfile.
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func aFailedHistoryStillWritesTheTextfile() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let prom = dir.appendingPathComponent("pushdiag.prom")
        let r = try pushdiag(
            "report", "--interface", "wlan2", "--replay", fixture("wifi-retries-20pct.pcap"), "--duration", "1s",
            "--history", dir.path, "--textfile", prom.path)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("pushdiag: history: cannot open the history \(dir.path)"), "\(r.stderr)")
        #expect(r.status == 2 || r.status == 3, "the worst of the survey and UNKNOWN for the failed output")
        #expect(FileManager.default.fileExists(atPath: prom.path), "the textfile was written all the same")
        let check = try run("/bin/sh", ["-c", "\(TestPaths.which("promtool")!) check metrics < \(prom.path)"])
        #expect(check.status == 0)
    }

    /// A history that is not a database, under a survey that is OK: the status line says
    /// UNKNOWN and why, as the exit code does (it said "PUSHDIAG OK" and exited 3), and the
    /// diagnosis names the history once ("history: history …" before).
    @Test func aFailedOutputMakesTheStatusLineUnknown() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("notdb.sqlite")
        try Data("not a database at all, just text\n".utf8).write(to: db)
        let r = try pushdiag("report", "--interface", "wlan2", "--replay", fixture("driver-ath10k.pcap"), "--duration", "1s", "--history", db.path)
        #expect(r.status == 3)
        #expect(r.stdout.hasPrefix("PUSHDIAG UNKNOWN - history \(db.path): file is not a database; 5 checks OK |"), "\(r.stdout)")
        #expect(r.stderr == "pushdiag: history \(db.path): file is not a database\n", "\(r.stderr)")
    }

    /// A full disk while writing the textfile: one line, exit 3, the previous file kept.
    @Test(.enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
    func fullDiskKeepsThePreviousTextfile() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mnt = dir.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mnt, withIntermediateDirectories: true)
        let mount = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.path])
        try #require(mount.status == 0, "root could not mount a 64 KiB tmpfs: \(mount.stderr)")
        defer { _ = try? run("/bin/umount", [mnt.path]) }
        let prom = mnt.appendingPathComponent("pushdiag.prom")
        // A survey that only warns (57% busy against a critical range of 60), so a failed write
        // shows as UNKNOWN.
        let args = [
            "report", "--interface", "wlan2", "--replay", TestPaths.fixtures.appendingPathComponent("wifi-utilization-57pct.pcap").path,
            "--duration", "1s", "--utilization-critical", "60", "--textfile", prom.path,
        ]
        let first = try pushdiag(args)
        #expect(first.status == 1, "\(first.stdout)")
        let before = try String(contentsOf: prom, encoding: .utf8)
        // Fill the file system, leaving less than a textfile needs.
        let filler = mnt.appendingPathComponent("filler")
        _ = try run("/bin/dd", ["if=/dev/zero", "of=\(filler.path)", "bs=1k", "count=100"])
        let second = try pushdiag(args)
        #expect(second.status == 3 && second.stderr.contains("no space left on device") && second.stderr.contains("previous file is kept"), "\(second.stderr)")
        #expect(try String(contentsOf: prom, encoding: .utf8) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: mnt.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "no temporary file left behind")
    }
}

struct ContribTests {
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func alertRulesAreValid() throws {
        let r = try run(TestPaths.which("promtool")!, ["check", "rules", TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-alerts.yml").path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("SUCCESS: 6 rules found"))
    }

    /// The shipped retransmission alert over the textfile of a replayed window of 1000 frames,
    /// 20% retried: it fires; the same ratio over 10 frames, which wifi and survey do not judge
    /// (--min-frames), does not.
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func theRetransmissionAlertNeedsEnoughFrames() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let prom = dir.appendingPathComponent("pushdiag.prom")
        let r = try pushdiag(
            "report", "--interface", "wlan2", "--replay", TestPaths.fixtures.appendingPathComponent("wifi-retries-20pct.pcap").path, "--duration", "1s",
            "--textfile", prom.path)
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        let text = try String(contentsOf: prom, encoding: .utf8)
        let ratio = try #require(Exposition.series(text, "pushdiag_retransmission_ratio").first, "\(text)")
        let frames = try #require(Exposition.value(text, "pushdiag_retransmission_frames", ["interface": "wlan2"]), "\(text)")
        #expect(ratio.value == 0.2 && frames == 1000, "\(text)")
        func series(frames: Double) -> [(name: String, values: String)] {
            [
                ("pushdiag_retransmission_ratio{instance=\"ward-3\",\(ratio.labels.dropFirst())", "\(NumberText.format(ratio.value))x30"),
                ("pushdiag_retransmission_frames{instance=\"ward-3\",interface=\"wlan2\"}", "\(NumberText.format(frames))x30"),
            ]
        }
        let rules = TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-alerts.yml")
        let fires = try retransmissionAlertTest(rules: rules, series: series(frames: frames), firesWith: "ward-3 wlan2: 20% of frames retransmitted")
        #expect(fires.passed, "\(fires.output)")
        let few = try retransmissionAlertTest(rules: rules, series: series(frames: 10), firesWith: nil)
        #expect(few.passed, "\(few.output)")
    }

    /// A dead push server in the textfile pages someone: no "0% lost" for heartbeats never sent,
    /// a success series that names the server, and the shipped rules fire on exactly that data
    /// (promtool test rules over the series pushdiag wrote).
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func aDeadPushServerFiresItsAlert() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = freePort()
        let prom = dir.appendingPathComponent("pushdiag.prom")
        let r = try pushdiag(
            "report", "--interface", "wlan2", "--replay", TestPaths.fixtures.appendingPathComponent("lab-wifi.pcap").path, "--duration", "1s",
            "--server", "127.0.0.1:\(port)", "--textfile", prom.path)
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        let text = try String(contentsOf: prom, encoding: .utf8)
        let target = "127.0.0.1:\(port)"
        #expect(text.contains("pushdiag_probe_success{check=\"heartbeat\",target=\"\(target)\"} 0"), "\(text)")
        #expect(!text.contains("pushdiag_heartbeat_loss_ratio"), "nothing was sent: no loss ratio")
        let promtool = TestPaths.which("promtool")!
        let lint = try run("/bin/sh", ["-c", "\(promtool) check metrics < \(prom.path)"])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "promtool: \(lint.stdout)\(lint.stderr)")
        // Every sample of the textfile as a series held for 30 minutes.
        let series = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line -> (name: String, values: String) in
            let cut = line.lastIndex(of: " ")!
            // As node_exporter's scrape gives them: with the probe's instance label.
            var name = String(line[..<cut])
            if let brace = name.firstIndex(of: "{") {
                name.insert(contentsOf: "instance=\"ward-3\",", at: name.index(after: brace))
            } else {
                name += "{instance=\"ward-3\"}"
            }
            return (name, "\(line[line.index(after: cut)...])x30")
        }
        let test = try promtoolTestRules(
            rules: TestPaths.root.appendingPathComponent("contrib/prometheus/pushdiag-alerts.yml"), series: series,
            alerts: """
                - eval_time: 15m
                  alertname: PushServerDown
                  exp_alerts:
                    - exp_labels: {severity: critical, check: heartbeat, instance: ward-3, target: "\(target)"}
                      exp_annotations:
                        summary: "ward-3: push server \(target) does not hold a heartbeat connection"
                        description: "It refuses, does not answer, fails TLS or loses heartbeats: devices on this site miss their pushes. Check it with: pushdiag heartbeat \(target)"
                - eval_time: 15m
                  alertname: PushHeartbeatLoss
                  exp_alerts: []
                """)
        #expect(test.passed, "\(test.output)")
    }

    @Test(.enabled(if: TestPaths.which("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func systemdUnitsParse() throws {
        let dir = TestPaths.root.appendingPathComponent("contrib/systemd")
        let r = try run(TestPaths.which("systemd-analyze")!, ["verify", "--man=no", dir.appendingPathComponent("pushdiag-report.timer").path])
        #expect(!r.stderr.contains("Unknown") && !r.stderr.contains("bad-setting"), "\(r.stderr)")
    }
}

extension ReportTests {
    /// A history whose runs table another tool or schema made: a NULL report, a start in 9999 (past
    /// what nanoseconds hold) stopped `report html` (a force-unwrap, an overflow: a crash hunt of
    /// 2026-11-29). Such rows are left out and counted; the readable ones are drawn.
    @Test(.enabled(if: TestPaths.which("sqlite3") != nil, "needs sqlite3"))
    func aHistoryWithRowsNoRunWroteIsDrawnWithoutThem() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db")
        _ = try sql(db, "CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT, status TEXT, duration_seconds REAL, report TEXT)")
        let made = try pushdiag(reportArgs(dir))
        #expect((0...2).contains(made.status), "\(made.stderr)")
        _ = try sql(
            db,
            "INSERT INTO runs(started, status, duration_seconds, report) VALUES ('2099-01-01T00:00:00Z', 'ok', 1, NULL), ('9999-12-31T23:59:59Z', 'ok', 1, (SELECT report FROM runs LIMIT 1))"
        )
        #expect(try sql(db, "SELECT count(*) FROM runs") == "3")
        let page = dir.appendingPathComponent("report.html")
        let r = try run(TestPaths.binary.path, ["report", "html", "--history", db.path, "--since", "1h", "--output", page.path], timeout: 30)
        #expect(!r.signalled && r.status == 0, "\(r.status): \(r.stderr.suffix(400))")
        #expect(r.stdout.contains("1 survey (2 stored runs not readable, left out)"), "\(r.stdout)")
    }
}

/// `report html` in a real browser: headless Chromium renders the page; the test reads the DOM
/// it built and the screenshot it took.
@Suite(.serialized, .enabled(if: TestPaths.which("chromium") != nil, "chromium is not installed"))
struct ReportHTMLTests {
    @Test func chromiumRendersTheCharts() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db").path
        for f in ["wifi-utilization-57pct.pcap", "wifi-retries-20pct.pcap"] {
            _ = try pushdiag(
                "report", "--interface", "wlan2", "--replay", TestPaths.fixtures.appendingPathComponent(f).path,
                "--capture", TestPaths.fixtures.appendingPathComponent("roam-ft.pcap").path, "--duration", "1s", "--history", db)
        }
        let page = dir.appendingPathComponent("report.html")
        // A history that does not exist is said so (it was created empty and drawn, exit 0).
        let none = dir.appendingPathComponent("none.db").path
        let missing = try pushdiag("report", "html", "--history", none, "--output", page.path)
        #expect(missing.status == 3 && missing.stderr.contains("no history at \(none)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: none) && !FileManager.default.fileExists(atPath: page.path))
        // A --config that does not load is said so, as every command says it (it ended in "give
        // --history"); one that loads gives its history.
        let noConfig = try pushdiag("report", "html", "--config", dir.appendingPathComponent("none.toml").path, "--output", page.path)
        #expect(noConfig.status == 3 && noConfig.stderr.contains("none.toml: cannot read"), "\(noConfig.stderr)")
        let withHistory = try pushdiag("report", "html", "--history", db, "--config", dir.appendingPathComponent("none.toml").path, "--output", page.path)
        #expect(withHistory.status == 3 && withHistory.stderr.contains("none.toml: cannot read"), "given, it is read: \(withHistory.stderr)")
        let toml = dir.appendingPathComponent("site.toml")
        try "[report]\nhistory = \"\(db)\"\n".write(to: toml, atomically: true, encoding: .utf8)
        #expect(try pushdiag("report", "html", "--config", toml.path, "--since", "1h", "--output", page.path).status == 0)
        let r = try pushdiag("report", "html", "--history", db, "--since", "1h", "--output", page.path)
        #expect(r.status == 0 && r.stdout.contains("2 surveys"), "\(r.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(
            !html.contains("http://") || html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") },
            "self-contained: no fetches")

        let chromium = TestPaths.which("chromium")!
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        let dom = try run(chromium, flags + ["--dump-dom", "file://\(page.path)"], timeout: 60)
        for id in ["utilization", "retransmissions", "heartbeat-rtt", "roams"] {
            #expect(dom.stdout.contains("<svg id=\"\(id)\""), "the browser's DOM has the \(id) chart")
        }
        #expect(dom.stdout.contains("40% (Apple)") && dom.stdout.contains("15% (Apple)"), "the limit lines")
        #expect(dom.stdout.contains("<polyline"), "data series drawn")
        #expect(dom.stdout.contains("id=\"worst-hours\""), "the worst hours table")

        let png = dir.appendingPathComponent("shot.png")
        _ = try run(chromium, flags + ["--window-size=1000,1400", "--screenshot=\(png.path)", "file://\(page.path)"], timeout: 60)
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.count > 10_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG of the rendered page")
        let width = Int(bytes[16]) << 24 | Int(bytes[17]) << 16 | Int(bytes[18]) << 8 | Int(bytes[19])
        #expect(width == 1000)
    }
}
