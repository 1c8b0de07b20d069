import Foundation
import PushdiagCore
import PushdiagIO
import Testing

/// The configuration file: the example in the repository, errors with line and key, and flags
/// winning over the file.
@Suite(.serialized)
struct ConfigTests {
    @Test func theExampleIsValid() throws {
        let r = try pushdiag("config", "check", "--config", TestPaths.root.appendingPathComponent("pushdiag.toml.example").path)
        #expect(r.status == 0 && r.stdout.contains("push server: push.example.internal:3000 simplepush"), "\(r.stderr)")
    }

    @Test(arguments: [
        ("interface = \n", 1, "not valid TOML"),
        ("interface = \"wlan0\"\nduraton = \"30s\"\n", 2, "duraton: unknown key"),
        ("[thresholds]\nloss_critical = \"x\"\n", 2, "thresholds.loss_critical: 'x' is not a range"),
        ("[[server]]\nhost = \"p\"\nport = 70000\n", 3, "server.port: expected a port number"),
        ("[[server]]\nport = 3000\n", 1, "server.host: every [[server]] needs a host"),
        ("[report]\ntextfile = \"/tmp/x.txt\"\n", 2, "report.textfile: node_exporter reads only files ending in .prom"),
        ("duration = \"soon\"\n", 1, "duration: 'soon' is not a duration"),
    ] as [(String, Int?, String)])
    func errorsNameTheLineAndKey(text: String, line: Int?, words: String) throws {
        do {
            _ = try ConfigLoader.parse(text, file: "site.toml")
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.line == line && error.description.contains(words), "\(error)")
            #expect(error.description.hasPrefix("site.toml"))
        }
    }

    @Test func configuredServersAndThresholdsFlagsWin() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"))
        let file = dir.appendingPathComponent("pushdiag.toml")
        try """
        interface = "wlan2"
        duration = "3s"
        [[server]]
        host = "127.0.0.1"
        port = \(port)
        [thresholds]
        utilization_critical = "60"
        """.write(to: file, atomically: true, encoding: .utf8)
        let replay = TestPaths.fixtures.appendingPathComponent("wifi-utilization-57pct.pcap").path
        let r = try pushdiag("survey", "--config", file.path, "--replay", replay, "--format", "json")
        let checks = try #require(try json(r.stdout)["checks"] as? [[String: Any]])
        let util = try #require(checks.first { $0["check"] as? String == "channel_utilization" && $0["value"] as? Double == 57 })
        #expect(util["status"] as? String == "warning" && util["threshold"] as? String == "32 / 60", "the file's critical range")
        #expect(checks.contains { $0["check"] as? String == "heartbeat" && $0["subject"] as? String == "127.0.0.1:\(port)" && $0["status"] as? String == "ok" })
        // A flag wins over the file.
        let f = try pushdiag("survey", "--config", file.path, "--replay", replay, "--utilization-critical", "50", "--format", "json")
        let fchecks = try #require(try json(f.stdout)["checks"] as? [[String: Any]])
        #expect(fchecks.contains { $0["check"] as? String == "channel_utilization" && $0["status"] as? String == "critical" })
        // A missing explicit file is one line, exit 3.
        let missing = try pushdiag("survey", "--config", dir.appendingPathComponent("none.toml").path)
        #expect(missing.status == 3 && missing.stderr.contains("cannot read"))
    }
}

/// Damaged configuration files (the example, with bytes flipped, cut and repeated): a result or
/// one line with file and line, never a crash. (This test found toml++ aborting on a damaged
/// header; pushdiag has parsed TOML itself since. FuzzConfig drives the same path with libFuzzer.)
struct ConfigCorruptionTests {
    @Test func damagedFilesNeverCrash() throws {
        let example = [UInt8](try Data(contentsOf: TestPaths.root.appendingPathComponent("pushdiag.toml.example")))
        var state: UInt64 = 0xC0FFEE
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % max(n, 1)
        }
        var outcomes: [String: Int] = [:]
        for round in 0..<3000 {
            var b = example
            switch round % 3 {
            case 0: for _ in 0..<(1 + random(8)) { b[random(b.count)] = UInt8(truncatingIfNeeded: random(256)) }
            case 1: b = Array(b.prefix(random(b.count)))
            default:
                let a = random(b.count), n = random(200)
                b.insert(contentsOf: b[a..<min(b.count, a + n)], at: random(b.count))
            }
            let text = String(decoding: b, as: UTF8.self)
            if let keep = ProcessInfo.processInfo.environment["PUSHDIAG_KEEP_CONFIG"] { try? Data(text.utf8).write(to: URL(fileURLWithPath: keep)) }
            do {
                _ = try ConfigLoader.parse(text, file: "damaged.toml")
                outcomes["valid", default: 0] += 1
            } catch {
                #expect(error.description.hasPrefix("damaged.toml"), "\(error)")
                #expect(!error.description.contains("\n"), "one line")
                outcomes["error", default: 0] += 1
            }
        }
        #expect((outcomes["error"] ?? 0) > 100 && (outcomes["valid"] ?? 0) > 100, "\(outcomes)")
    }
}

/// pushdiag's TOML parser where tomllib cannot judge it: lines of values and errors, limits, and
/// the files that once crashed pushdiag.
struct TOMLParserTests {
    @Test(arguments: [
        ("[\n", 1, "expected a key, saw the end of the line"),
        ("a = 1\n[ \u{E9}]\n", 2, "expected a key, saw '\u{E9}'"),
        ("a = 1\r\nb = 2\r\nb = 3\r\n", 3, "b is defined twice (first on line 2)"),
        ("x = \"\"\"\n\n\n\"\"\"\ny = [\n1,\n2\n}", 8, "expected ',' or ']' in the array, saw '}'"),
        ("a = 1\n\n\u{0}b", 3, "expected a key, a [table] or a comment, saw control character 0x0"),
        ("[a]\nb = 1\n[a]\n", 3, "[a]: the table is declared already (line 1)"),
        ("a = 1 # \u{7F}\n", 1, "control character 0x7F in a comment"),
        ("a = \"\\q\"\n", 1, "unknown escape \\q"),
        ("a = 99999999999999999999\n", 1, "99999999999999999999 does not fit in 64 bits"),
        ("a = 2023-02-29\n", 1, "2023-02-29 is not a date"),
        ("a = 1\rb = 2\n", 1, "a carriage return without a line feed"),
        // What FuzzConfig found aborting toml++ (a header with no key after a byte order mark; a
        // '}' where an array expects a value), now ordinary errors.
        ("\u{FEFF} [\n[ ]\n]\n", 1, "expected a key, saw the end of the line"),
        ("x = [\n\n\n}],\nI[[\n\n", 4, "expected a value, saw '}'"),
    ] as [(String, Int, String)])
    func errorsHaveTheirLine(text: String, line: Int, message: String) {
        do {
            _ = try TOML.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.line == line && error.message == message, "\(error)")
        }
    }

    @Test func valuesKeepTheirLines() throws {
        let t = try TOML.parse("\u{FEFF}a = 1\r\n\r\n[[server]]\nhost = \"h\"\n\n[[server]]\n  port = 3\n[x.y]\nz.w = true\n")
        #expect(t.line(of: "a") == 1 && t["a"] == .integer(1))
        let servers = try #require(t["server"]?.array)
        #expect(servers.count == 2 && servers[0].table?.headerLine == 3 && servers[1].table?.headerLine == 6)
        #expect(servers[0].table?.line(of: "host") == 4 && servers[1].table?.line(of: "port") == 7)
        let y = try #require(t["x"]?.table?["y"]?.table)
        #expect(y.headerLine == 8 && y["z"]?.table?["w"] == .boolean(true) && y.line(of: "z") == 9)
    }

    /// Nesting beyond the limit is refused, not a stack overflow.
    @Test func deepNestingIsRefused() {
        for open in ["[", "{a="] {
            let text = "a = " + String(repeating: open, count: 100_000)
            #expect(throws: TOMLError.self) { try TOML.parse(text) }
        }
        let key = (0..<10_000).map { "k\($0)" }.joined(separator: ".")
        #expect(throws: TOMLError.self) { try TOML.parse("[\(key)]\n") }
        #expect(throws: TOMLError.self) { try TOML.parse("\(key) = 1\n") }
        #expect((try? TOML.parse("a = " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
    }

    /// The damaged example that aborted pushdiag inside toml++ (pushdiag 2026-11 and before).
    @Test func theFileThatAbortedIsOneLine() throws {
        let r = try pushdiag("config", "check", "--config", TestPaths.fixtures.appendingPathComponent("config-header-not-a-key.toml").path)
        #expect(r.status == 3 && !r.signalled, "\(r.stderr)")
        #expect(r.stderr.hasSuffix("config-header-not-a-key.toml:16: not valid TOML: expected a key, saw '\u{FFFD}'\n"), "\(r.stderr)")
    }

    /// Bytes that are not UTF-8 are named with their line instead of being replaced.
    @Test func invalidUTF8IsNamed() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("latin1.toml")
        try Data("interface = \"wlan0\"\n# caf".utf8 + [0xE9] + Data("\n".utf8)).write(to: file)
        let r = try pushdiag("config", "check", "--config", file.path)
        #expect(r.status == 3 && r.stderr.hasSuffix("latin1.toml:2: not valid TOML: byte 0xE9 is not UTF-8 text\n"), "\(r.stderr)")
    }
}
