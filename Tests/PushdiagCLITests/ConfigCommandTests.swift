import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The configuration file: the example in the repository, errors with line and key, and flags
/// winning over the file.
@Suite(.serialized)
struct ConfigTests {
    @Test func theExampleIsValid() throws {
        let r = try pushdiag("config", "check", "--config", TestPaths.root.appendingPathComponent("pushdiag.toml.example").path)
        #expect(r.status == 0 && r.stdout.contains("push server: push.example.internal:3000 simplepush"), "\(r.stderr)")
    }

    @Test(
        arguments: [
            ("interface = \n", 1, "not valid TOML"),
            ("interface = \"wlan0\"\nduraton = \"30s\"\n", 2, "duraton: unknown key"),
            ("[thresholds]\nloss_critical = \"x\"\n", 2, "thresholds.loss_critical: 'x' is not a range"),
            ("[[server]]\nhost = \"p\"\nport = 70000\n", 3, "server.port: expected a port number"),
            ("[[server]]\nport = 3000\n", 1, "server.host: every [[server]] needs a host"),
            ("[report]\ntextfile = \"/tmp/x.txt\"\n", 2, "report.textfile: node_exporter reads only files ending in .prom"),
            ("duration = \"soon\"\n", 1, "duration: 'soon' is not a duration"),
            // What survey refused but config check let through:
            ("[[server]]\nhost = \"p\"\nprotocol = \"tcp\"\n", 1, "server.port: server p: no port, and the tcp protocol has no default port"),
            ("[[server]]\nhost = \"p\"\ntls = true\npin = \"abc\"\n", 4, "server.pin: 'abc' is not a base64 SHA-256"),
            (
                "[[server]]\nhost = \"p\"\ntls = true\nca_file = \"/nonexistent/ca.pem\"\n", 1,
                "server.ca_file: server p: cannot read the CA file /nonexistent/ca.pem: no such file or directory (ENOENT)"
            ),
            ("[[server]]\nhost = \"p\"\nca_file = \"/etc/hostname\"\n", 3, "server.ca_file: goes with tls = true"),
        ] as [(String, Int?, String)])
    func errorsNameTheLineAndKey(text: String, line: Int?, words: String) throws {
        // config check refuses exactly what a survey would: one line with the file, line and key.
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("site.toml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let r = try pushdiag("config", "check", "--config", file.path)
        #expect(r.status == 3 && r.stderr.hasPrefix("pushdiag: \(file.path)\(line.map { ":\($0)" } ?? ""): ") && r.stderr.contains(words), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        let survey = try pushdiag("survey", "--config", file.path, "--duration", "1s")
        #expect(survey.status == 3 && survey.stderr == r.stderr, "survey refuses it the same way: \(survey.stderr)")
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

/// `config check` on files the TOML parser refuses: one line with file and line, exit 3.
struct ConfigCheckTOMLTests {
    /// A directory given as the configuration was read as an empty file and passed.
    @Test func aDirectoryIsNotAConfigurationFile() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try pushdiag("config", "check", "--config", dir.path)
        #expect(r.status == 3 && r.stderr == "pushdiag: \(dir.path): is a directory, not a configuration file\n", "\(r.stderr)")
    }

    /// Every file a command reads whole (a configuration, a web configuration, join limits, a
    /// recording's log) refuses a directory, and a file or device past its bound, in one line
    /// naming it, exit 3: a directory read as nothing named a stale errno ("success"), and
    /// /dev/zero as join limits filled memory. /dev/null and a pipe read as files do.
    @Test func aFileReadWholeRefusesADirectoryAndTooMuch() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let join = try TestPaths.copyOfFixture("lab-join")
        try FileManager.default.removeItem(at: join.appendingPathComponent("join.jsonl"))
        try FileManager.default.createDirectory(at: join.appendingPathComponent("join.jsonl"), withIntermediateDirectories: false)
        let walk = try TestPaths.copyOfFixture("lab-walk")
        try FileManager.default.removeItem(at: walk.appendingPathComponent("push.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: walk.appendingPathComponent("push.jsonl").path, withDestinationPath: "/dev/zero")
        let big = dir.appendingPathComponent("big.toml")
        try Data(repeating: UInt8(ascii: "#"), count: (1 << 20) + 1).write(to: big)
        let wifi = TestPaths.fixtures.appendingPathComponent("wifi-utilization-57pct.pcap").path
        let cases: [([String], String)] = [
            (["config", "check", "--config", "/dev/zero"], "/dev/zero: larger than 1 MiB; not a configuration file"),
            (["config", "check", "--config", big.path], "big.toml: larger than 1 MiB; not a configuration file"),
            (["exporter", "--web-config", dir.path], "\(dir.path): is a directory, not a web configuration file"),
            (["exporter", "--web-config", "/dev/zero"], "/dev/zero: larger than 1 MiB; not a web configuration file"),
            (
                ["survey", "--interface", "wlan2", "--replay", wifi, "--duration", "1s", "--join-limits", "/dev/zero"],
                "/dev/zero: larger than 64 MiB; not a join report"
            ),
            (["join", "--replay", join.path], "join.jsonl: is a directory, not a join log"),
            (["walk", "--replay", walk.path], "push.jsonl: larger than 64 MiB; not a push log"),
        ]
        for (args, said) in cases {
            let r = try run(TestPaths.binary.path, args, timeout: 30)
            #expect(r.status == 3 && r.stderr.contains(said) && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.status) \(r.stderr)")
        }
        // /dev/null is an empty configuration (a way past the default file), and join limits
        // come through a pipe as from the file (read once: a pipe cannot be read twice).
        #expect(try run(TestPaths.binary.path, ["config", "check", "--config", "/dev/null"]).status == 0)
        let report = TestPaths.fixtures.appendingPathComponent("join-report.json").path
        let config = dir.appendingPathComponent("piped.toml")
        try "join_limits = \"/dev/stdin\"\n".write(to: config, atomically: true, encoding: .utf8)
        let piped = try run("/bin/sh", ["-c", "cat '\(report)' | '\(TestPaths.binary.path)' config check --config '\(config.path)'"])
        let direct = try run("/bin/sh", ["-c", "'\(TestPaths.binary.path)' config check --config '\(config.path)' < '\(report)'"])
        // Read whole both ways, as a join report (one without ap_idle): not "not valid JSON".
        #expect(piped.stderr.contains("has no ap_idle") && direct.stderr.contains("has no ap_idle"), "piped: \(piped.stderr) direct: \(direct.stderr)")
    }

    /// [walk] and [join] limits that contradict each other are refused by config check as the
    /// walk and the join refuse them (config check said "valid"), and the walk names the file.
    @Test func contradictingWalkAndJoinLimitsAreRefusedByCheck() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (table, body, said) in [
            ("walk", "signal_warning = -120\nsignal_critical = 0", "walk thresholds: signal_critical (0) must not be above signal_warning (-120)"),
            (
                "join", "push_ready_warning = 9000\npush_ready_critical = 100",
                "join thresholds: push_ready_warning (9000) must not be above push_ready_critical (100)"
            ),
        ] {
            let file = dir.appendingPathComponent("\(table).toml")
            try "[\(table)]\n\(body)\n".write(to: file, atomically: true, encoding: .utf8)
            let r = try pushdiag("config", "check", "--config", file.path)
            #expect(r.status == 3 && r.stderr == "pushdiag: \(file.path): \(said)\n", "\(r.stderr)")
            let run = try pushdiag(table, "--interface", "wlan9", "--config", file.path, "10.0.0.1:3000")
            #expect(run.status != 0 && run.stderr.contains("\(file.path): \(said)"), "\(run.stderr)")
        }
        // A flag for another limit beside: the file's contradiction still names the file.
        let walk = dir.appendingPathComponent("walk.toml").path
        let run = try pushdiag("walk", "--interface", "wlan9", "--config", walk, "--ft-gap-warning", "100", "10.0.0.1:3000")
        #expect(run.status != 0 && run.stderr.contains("\(walk): walk thresholds: signal_critical (0)"), "\(run.stderr)")
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
