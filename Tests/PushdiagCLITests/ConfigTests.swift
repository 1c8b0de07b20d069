import Foundation
import PushdiagCore
import PushdiagIO
import Testing
import TOMLKit

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
        ("[[server]]\nport = 3000\n", nil, "server.host: every [[server]] needs a host"),
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
/// one line with file and line, never a crash. The TOML parser itself (toml++ via TOMLKit) is
/// not built with libFuzzer here; this drives it and pushdiag's checks from the outside.
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

/// The guard in front of toml++ (TOMLHeaderCheck): headers toml++ would abort on are reported with
/// their line; brackets inside strings, multi-line strings and arrays are left to the parser.
struct TOMLHeaderGuardTests {
    @Test(arguments: [
        ("[\n", 1, "the end of the line"),
        ("a = 1\n[ \u{E9}]\n", 2, "'\u{E9}'"),
        ("[[ #x\n", 1, "'#'"),
        ("[=]\n", 1, "'='"),
        ("x = '''\n[#'''\n[\u{1}]\n", 3, "control character 0x1"),
        ("x = \"\"\"\n\\\"\"\"\n[#]\"\"\"\n\n[.]\n", 5, "'.'"),
        // Found by FuzzConfig: a byte order mark, which the parser skips; a lone carriage return.
        ("\u{FEFF} [\n[ ]\n]\n", 1, "the end of the line"),
        ("[\rx]\n", 1, "a carriage return"),
        ("a = 1\n\n\u{0}b", 3, "NUL"),
    ] as [(String, Int, String)])
    func headersTomlppWouldAbortOn(text: String, line: Int, found: String) throws {
        let problem = try #require(TOMLHeaderCheck.firstProblem(in: Array(text.utf8)))
        #expect(problem.line == line && problem.found == found, "\(problem)")
        #expect(throws: ConfigError.self) { try ConfigLoader.parse(text, file: "x.toml") }
    }

    /// Valid TOML with brackets where a header cannot be: the guard passes it and toml++ parses it.
    @Test(arguments: [
        "x = \"[#\"\n[ok]\n",
        "x = '[='\n[ \"quoted key\" ]\n[[ 'lit' ]]\n",
        "x = \"\"\"\n[\u{E9}\n[\n\"\"\"\n",
        "x = '''\n[#\n''''\n[t]\n",
        "x = [\n[{a=1}], [ ]\n]\n",
        "x = { a = [\n] }\n[-_0]\n",
        "# [=]\n  [t.u]  # [#\n",
        "\u{FEFF}[t]\n",
    ])
    func validFilesPass(text: String) throws {
        #expect(TOMLHeaderCheck.firstProblem(in: Array(text.utf8)) == nil)
        _ = try TOMLTable(string: text)
    }

    /// The damaged example that aborted pushdiag inside toml++ before the guard.
    @Test func theFileThatAbortedIsOneLine() throws {
        let r = try pushdiag("config", "check", "--config", TestPaths.fixtures.appendingPathComponent("config-header-not-a-key.toml").path)
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.hasSuffix("config-header-not-a-key.toml:16: not valid TOML: table header: expected a key after '[', saw '\u{FFFD}'\n"), "\(r.stderr)")
    }
}
