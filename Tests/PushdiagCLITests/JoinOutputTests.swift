import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `join --html`, `--history` and `--textfile` on the lab's recorded rejoins (fixtures/lab-join),
/// each checked against the JSON of the same run, not against numbers written here.
@Suite struct JoinOutputTests {
    static let recording = TestPaths.fixtures.appendingPathComponent("lab-join").path

    /// Every match of `pattern`'s groups in `text`.
    static func all(_ pattern: String, _ text: String) throws -> [[String]] {
        let re = try NSRegularExpression(pattern: pattern)
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { m in
            (1..<m.numberOfRanges).map { i in Range(m.range(at: i), in: text).map { String(text[$0]) } ?? "" }
        }
    }

    static func ms(_ v: Any?) -> String { (v as? Double).map { "\(NumberText.format($0)) ms" } ?? "–" }

    /// The page's waterfalls and tables against the report: a bar per step measured at its start
    /// and as long as it took, on one scale for every cycle; the status in words for the others,
    /// with no number; push-ready marked; the summary and the groups as the JSON gives them.
    /// `page` is the file as written or the DOM a browser built from it.
    static func expectPage(_ page: String, matches report: [String: Any]) throws {
        let cycles = try #require(report["cycles"] as? [[String: Any]])
        #expect(cycles.count == 3)
        var ratios: [Double] = []
        var clamped: [Double] = []
        for c in cycles {
            let n = try #require(c["cycle"] as? Int)
            let section = try #require(
                page.components(separatedBy: "id=\"cycle-\(n)\"").dropFirst().first?.components(separatedBy: "</section>").first, "cycle \(n)")
            let steps = try #require(c["steps"] as? [[String: Any]])
            let ok = steps.filter { $0["status"] as? String == "ok" }
            let bars = try all(
                "<rect class=\"step ok [a-z]+\" data-step=\"([a-z_]+)\" data-offset-ms=\"([0-9.]+)\" data-duration-ms=\"([0-9.]+)\" x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"",
                section)
            #expect(bars.map { $0[0] } == ok.map { $0["name"] as? String ?? "" }, "cycle \(n): \(bars)")
            for (bar, s) in zip(bars, ok) {
                let offset = try #require(s["offset_ms"] as? Double)
                let duration = try #require(s["duration_ms"] as? Double)
                #expect(bar[1] == NumberText.format(offset) && bar[2] == NumberText.format(duration), "\(bar) vs \(s)")
                let x = try #require(Double(bar[3]))
                let width = try #require(Double(bar[4]))
                if offset > 0 { ratios.append((x - 130) / offset) }
                // A bar too short to see is drawn 1 px wide: not on the scale, and shorter than it.
                if width > 1 { ratios.append(width / duration) } else { clamped.append(duration) }
            }
            let words = try all("<text class=\"step-status ([a-z_]+)\" data-step=\"([a-z_]+)\"", section)
            let others = steps.filter { $0["status"] as? String != "ok" }
            #expect(words.map { $0[1] } == others.map { $0["name"] as? String ?? "" } && words.map { $0[0] } == others.map { $0["status"] as? String ?? "" })
            // A step without a time has none in its row either.
            for s in others {
                let name = s["name"] as? String ?? ""
                let row = try #require(try all("<tr class=\"not-measured\" data-step=\"\(name)\">(.*?)</tr>", section).first?.first, "\(name)'s row")
                #expect(row.components(separatedBy: "<td class=\"num\">–</td>").count == 3 && !row.contains(" ms<"), "\(row)")
            }
            let ready = try all("<line class=\"push-ready\" data-push-ready-ms=\"([0-9.]+)\"", section).map { $0[0] }
            #expect(ready == [NumberText.format(try #require(c["push_ready_ms"] as? Double))])
        }
        // One scale: x and width both proportional to the milliseconds, the same factor everywhere.
        let lo = try #require(ratios.min())
        let hi = try #require(ratios.max())
        #expect(hi - lo < 0.01 * hi, "\(ratios)")
        #expect(clamped.allSatisfy { $0 * hi <= 1.0001 }, "\(clamped)")
        let summary = try #require(report["summary"] as? [[String: Any]])
        let table = try #require(page.components(separatedBy: "id=\"summary-table\"").dropFirst().first?.components(separatedBy: "</table>").first)
        for s in summary {
            let name = s["name"] as? String ?? ""
            let d = s["durations"] as? [String: Any] ?? [:]
            let statuses = s["statuses"] as? [String: Int] ?? [:]
            let cells = try #require(try all("<tr data-step=\"\(name)\">(.*?)</tr>", table).first?.first).components(separatedBy: "<td")
            let values = try cells.dropFirst().map { try all(">([^<]*)</td>", "<td" + $0).first?.first ?? "" }
            let expected =
                [name] + JoinStepStatus.allCases.map { String(statuses[$0.rawValue] ?? -1) } + [ms(d["p50_ms"]), ms(d["p95_ms"]), ms(d["max_ms"])]
            #expect(values == expected, "\(name)")
        }
        let groups = try #require(report["groups"] as? [[String: Any]])
        let graded = try all("<tr class=\"[a-z]+\" data-group=\"([a-z_-]+)\">.*?<td class=\"grade\">([A-Z]+)</td>", page)
        let expected =
            [["push-ready", (report["push_ready_severity"] as? String ?? "unknown").uppercased()]]
            + groups.map { [$0["group"] as? String ?? "", ($0["severity"] as? String ?? "unknown").uppercased()] }
        #expect(graded == expected)
        #expect(page.contains("id=\"status\" class=\"status \(report["status"] as? String ?? "")\""))
    }

    @Test func thePageDrawsTheRunsJSON() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("join.html")
        let r = try pushdiag("join", "--replay", Self.recording, "--format", "json", "--html", page.path)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org/2000/svg") }, "self-contained: no fetches")
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains("<link"))
        try Self.expectPage(html, matches: try json(r.stdout))
        // The detail text, escaped.
        #expect(html.contains("push.lab → 10.40.0.1") && html.contains("the push made again"))
        #expect(!FileManager.default.fileExists(atPath: page.path + ".tmp-\(getpid())"))
    }

    /// The textfile, checked by promtool, its values the JSON's in seconds; a step never measured
    /// has its statuses and no quantile.
    @Test(.enabled(if: TestPaths.which("promtool") != nil, "promtool is not installed"))
    func theTextfileIsTheRunsJSONInSeconds() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let prom = dir.appendingPathComponent("join.prom")
        let r = try pushdiag("join", "--replay", Self.recording, "--format", "json", "--textfile", prom.path)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let check = try run("/bin/sh", ["-c", "\(TestPaths.which("promtool")!) check metrics < \(prom.path)"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let text = try String(contentsOf: prom, encoding: .utf8)
        let report = try json(r.stdout)
        let base = ["interface": report["interface"] as? String ?? "", "target": report["server"] as? String ?? ""]
        func close(_ a: Double?, _ b: Double?) -> Bool { a != nil && b != nil && abs(a! - b!) < 1e-9 }
        let cycles = try #require(report["cycles"] as? [[String: Any]])
        let ready = cycles.compactMap { $0["push_ready_ms"] as? Double }
        #expect(Exposition.value(text, "pushdiag_join_cycles", base.merging(["result": "push_ready"]) { $1 }) == Double(ready.count))
        #expect(Exposition.value(text, "pushdiag_join_cycles", base.merging(["result": "failed"]) { $1 }) == Double(cycles.count - ready.count))
        #expect(Exposition.value(text, "pushdiag_join_status", base) == 0 && report["status"] as? String == "ok")
        let p = try #require(report["push_ready"] as? [String: Any])
        for (q, key) in [("0.5", "p50_ms"), ("0.95", "p95_ms"), ("1", "max_ms")] {
            #expect(
                close(Exposition.value(text, "pushdiag_join_push_ready_seconds", base.merging(["quantile": q]) { $1 }), (p[key] as? Double).map { $0 / 1000 }))
        }
        #expect(close(Exposition.value(text, "pushdiag_join_push_ready_seconds_sum", base), ready.reduce(0, +) / 1000))
        #expect(Exposition.value(text, "pushdiag_join_push_ready_seconds_count", base) == Double(ready.count))
        for s in try #require(report["summary"] as? [[String: Any]]) {
            let name = try #require(s["name"] as? String)
            let d = try #require(s["durations"] as? [String: Any])
            let labels = base.merging(["step": name]) { $1 }
            if let p50 = d["p50_ms"] as? Double {
                #expect(close(Exposition.value(text, "pushdiag_join_step_seconds", labels.merging(["quantile": "0.5"]) { $1 }), p50 / 1000), "\(name)")
                #expect(close(Exposition.value(text, "pushdiag_join_step_seconds", labels.merging(["quantile": "1"]) { $1 }), (d["max_ms"] as? Double)! / 1000))
                #expect(Exposition.value(text, "pushdiag_join_step_seconds_count", labels) == Double(d["count"] as? Int ?? -1))
            } else {
                #expect(Exposition.series(text, "pushdiag_join_step_seconds", labels).isEmpty, "\(name): no time, no quantile")
                #expect(Exposition.series(text, "pushdiag_join_step_seconds_count", labels).isEmpty)
            }
            for (status, n) in try #require(s["statuses"] as? [String: Int]) {
                #expect(Exposition.value(text, "pushdiag_join_step_cycles", labels.merging(["status": status]) { $1 }) == Double(n), "\(name) \(status)")
            }
        }
        for g in try #require(report["groups"] as? [[String: Any]]) {
            let labels = base.merging(["group": g["group"] as? String ?? ""]) { $1 }
            let d = try #require(g["durations"] as? [String: Any])
            #expect(close(Exposition.value(text, "pushdiag_join_group_seconds", labels.merging(["quantile": "0.95"]) { $1 }), (d["p95_ms"] as? Double)! / 1000))
            #expect(Exposition.value(text, "pushdiag_join_group_status", labels) == (g["severity"] as? String == "ok" ? 0 : -1))
        }
        // One HELP and one TYPE per family.
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(Set(types).count == types.count && types.allSatisfy { $0.hasPrefix("pushdiag_join_") })
    }

    @Test func aTextfileNotEndingInPromIsRefused() throws {
        try JoinCommandTests.expectOneLine(["join", "--replay", Self.recording, "--textfile", "/tmp/join.txt"], saying: "--textfile")
        try JoinCommandTests.expectOneLine(["join", "--replay", Self.recording, "--html", ""], saying: "--html needs a file name")
    }
}

/// `join --history`: the run, its cycles and their steps appended to report's SQLite history in
/// one transaction; read back with the sqlite3 tool, not with our own code.
@Suite(.enabled(if: TestPaths.which("sqlite3") != nil, "sqlite3 is not installed"))
struct JoinHistoryTests {
    func sql(_ db: String, _ query: String) throws -> [[String]] {
        let r = try run(TestPaths.which("sqlite3")!, ["-separator", "|", db, query])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    /// sqlite3's text for a JSON value: NULL prints nothing.
    func cell(_ v: Any?) -> String {
        switch v {
        case let s as String: return s
        case let b as Bool: return b ? "1" : "0"
        case let n as NSNumber: return n.stringValue
        default: return ""
        }
    }

    /// Rows equal to the expected cells, numbers compared as numbers (sqlite3 prints the REAL 0 as
    /// 0.0, the JSON as 0).
    /// (Written as loops: the one expression it was took the type checker 7 s.)
    func same(_ rows: [[String]], _ expected: [[String]]) -> Bool {
        guard rows.count == expected.count else { return false }
        for (a, b) in zip(rows, expected) {
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where x != y {
                let number: Double? = Double(x)
                guard let number, number == Double(y) else { return false }
            }
        }
        return true
    }

    @Test func runsCyclesAndStepsAreRows() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("history.db").path
        let first = try pushdiag("join", "--replay", JoinOutputTests.recording, "--format", "json", "--history", db)
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        let second = try pushdiag("join", "--replay", JoinOutputTests.recording, "--format", "json", "--history", db, "--push-ready-warning", "1000")
        #expect(second.status == 1 && second.stderr.isEmpty, "\(second.stderr)")
        let reports = [try json(first.stdout), try json(second.stdout)]

        let runs = try sql(
            db,
            "SELECT id, started, status, interface, server, mode, cycles, push_ready_cycles, push_ready_p50_ms, push_ready_p95_ms, push_ready_max_ms, push_ready_severity, slowest FROM joins ORDER BY id"
        )
        #expect(runs.count == 2)
        for (i, (row, r)) in zip(runs, reports).enumerated() {
            let cycles = r["cycles"] as? [[String: Any]] ?? []
            let p = r["push_ready"] as? [String: Any] ?? [:]
            let expected = [
                "\(i + 1)", cell(cycles.first?["start"]), cell(r["status"]), cell(r["interface"]), cell(r["server"]), cell(r["mode"]), "\(cycles.count)",
                "\(cycles.filter { $0["push_ready_ms"] as? Double != nil }.count)", cell(p["p50_ms"]), cell(p["p95_ms"]), cell(p["max_ms"]),
                cell(r["push_ready_severity"]), cell(r["slowest"]),
            ]
            #expect(same([row], [expected]), "\(row) vs \(expected)")
        }
        // The second run, graded with a lower limit: its own grade, on the same times.
        #expect(runs.map { $0[2] } == ["ok", "warning"] && runs[0][8] == runs[1][8])
        // The stored report is the run's JSON.
        #expect(
            try sql(db, "SELECT json_extract(report, '$.cycles[1].push_ready_ms') FROM joins WHERE id = 2") == [
                [cell((reports[1]["cycles"] as? [[String: Any]])?[1]["push_ready_ms"])]
            ])

        for (i, r) in reports.enumerated() {
            let cycles = try #require(r["cycles"] as? [[String: Any]])
            let rows = try sql(
                db,
                "SELECT cycle, start, trigger, push_ready_ms, slowest, bssid, bss_max_idle_s, address_before, address, address_changed, severity FROM join_cycles WHERE join_id = \(i + 1) ORDER BY rowid"
            )
            #expect(rows.count == cycles.count)
            for (row, c) in zip(rows, cycles) {
                let keys = [
                    "cycle", "start", "trigger", "push_ready_ms", "slowest", "bssid", "bss_max_idle_s", "address_before", "address", "address_changed",
                    "severity",
                ]
                #expect(same([row], [keys.map { cell(c[$0]) }]), "\(row)")
            }
            let steps = try sql(db, "SELECT cycle, step, start, offset_ms, duration_ms, status, detail FROM join_steps WHERE join_id = \(i + 1) ORDER BY rowid")
            let expected = cycles.flatMap { c in
                (c["steps"] as? [[String: Any]] ?? []).map { s in
                    [cell(c["cycle"]), cell(s["name"]), cell(s["start"]), cell(s["offset_ms"]), cell(s["duration_ms"]), cell(s["status"]), cell(s["detail"])]
                }
            }
            #expect(steps.count == 3 * JoinStep.allCases.count && same(steps, expected), "\(zip(steps, expected).filter { $0 != $1 })")
        }
        // A step not measured is NULL, never 0.
        #expect(try sql(db, "SELECT count(*) FROM join_steps WHERE status <> 'ok' AND (duration_ms IS NOT NULL OR offset_ms IS NOT NULL)") == [["0"]])
        #expect(try sql(db, "SELECT count(*) FROM join_steps WHERE status = 'not_used' AND duration_ms IS NULL") == [["18"]])
        #expect(try sql(db, "PRAGMA integrity_check") == [["ok"]])
    }

    /// A history written before join existed (report's and walk's tables, a survey in it) gains
    /// join's tables, keeps what it had, and takes the run.
    @Test func oldHistoriesGainJoinsTables() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("old.db").path
        _ = try sql(
            db,
            """
            CREATE TABLE runs (id INTEGER PRIMARY KEY, started TEXT NOT NULL, status TEXT NOT NULL, duration_seconds REAL NOT NULL, report TEXT NOT NULL,
              interrupted INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE checks (run_id INTEGER NOT NULL REFERENCES runs(id), check_name TEXT NOT NULL, subject TEXT NOT NULL, status TEXT NOT NULL,
              value REAL, unit TEXT);
            INSERT INTO runs VALUES (1, '2026-01-01T00:00:00Z', 'ok', 10, '{}', 0);
            INSERT INTO checks VALUES (1, 'heartbeat', 'push:3000', 'ok', 20, 'ms');
            """)
        let r = try pushdiag("join", "--replay", JoinOutputTests.recording, "--format", "json", "--history", db)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try sql(db, "SELECT count(*) FROM runs") == [["1"]] && (try sql(db, "SELECT value FROM checks")) == [["20.0"]])
        #expect(try sql(db, "SELECT count(*) FROM joins") == [["1"]] && (try sql(db, "SELECT count(*) FROM join_cycles")) == [["3"]])
        #expect(try sql(db, "SELECT count(*) FROM walks") == [["0"]])
    }

    /// An output that cannot be written is one line naming it and exit 3 (this run is OK); the
    /// others are still written and the report printed.
    @Test func outputsThatCannotBeWrittenAreOneLineEach() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notADatabase = dir.appendingPathComponent("notes.txt")
        try "field notes, not a database\n".write(to: notADatabase, atomically: true, encoding: .utf8)
        let page = dir.appendingPathComponent("join.html").path
        let prom = dir.appendingPathComponent("join.prom").path
        let r = try pushdiag("join", "--replay", JoinOutputTests.recording, "--history", notADatabase.path, "--html", page, "--textfile", prom)
        #expect(r.status == 3, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("--history") && lines[0].contains(notADatabase.path), "\(r.stderr)")
        #expect(r.stdout.contains("push-ready") && FileManager.default.fileExists(atPath: page) && FileManager.default.fileExists(atPath: prom))
        #expect(try String(contentsOf: notADatabase, encoding: .utf8) == "field notes, not a database\n")

        let db = dir.appendingPathComponent("h.db").path
        let missingPage = dir.appendingPathComponent("no/such/dir/join.html").path
        let missingProm = dir.appendingPathComponent("no/such/dir/join.prom").path
        let h = try pushdiag(
            "join", "--replay", JoinOutputTests.recording, "--history", db, "--html", missingPage, "--textfile", missingProm, "--format", "json")
        let hl = h.stderr.split(separator: "\n")
        #expect(h.status == 3 && hl.count == 2, "\(h.stderr)")
        #expect(hl.first?.contains("--html") == true && hl.first?.contains(missingPage) == true, "\(h.stderr)")
        #expect(hl.last?.contains("--textfile") == true && hl.last?.contains(missingProm) == true, "\(h.stderr)")
        #expect(try json(h.stdout)["status"] as? String == "ok")
        #expect(try sql(db, "SELECT count(*) FROM joins") == [["1"]])
    }
}

/// `join --html` in a real browser: headless Chromium builds the page's DOM, checked as the file
/// is against the run's JSON, and takes a screenshot.
@Suite(.serialized, .enabled(if: TestPaths.which("chromium") != nil, "chromium is not installed"))
struct JoinHTMLBrowserTests {
    @Test func chromiumDrawsTheWaterfalls() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("join.html")
        let r = try pushdiag("join", "--replay", JoinOutputTests.recording, "--html", page.path, "--format", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let report = try json(r.stdout)
        let chromium = TestPaths.which("chromium")!
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.appendingPathComponent("profile").path)"]
        let dom = try run(chromium, flags + ["--dump-dom", "file://\(page.path)"], timeout: 60).stdout
        for n in 1...3 { #expect(dom.contains("<svg id=\"waterfall-\(n)\""), "cycle \(n)'s waterfall") }
        try JoinOutputTests.expectPage(dom, matches: report)

        let png = dir.appendingPathComponent("shot.png")
        _ = try run(chromium, flags + ["--window-size=1000,1400", "--screenshot=\(png.path)", "file://\(page.path)"], timeout: 60)
        let bytes = [UInt8](try Data(contentsOf: png))
        #expect(bytes.count > 10_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG of the rendered page")
    }
}
