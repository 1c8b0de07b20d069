import Foundation
import TestSupport
import Testing

/// Every numeric option of every command (found in the commands' own --help, so a new option is
/// swept too), with what a new user might type: 0, -1, 1e18, 1e308, nan, inf and garbage. Each
/// run ends by itself with a documented exit code and a readable first line: never a trap, a
/// crash, a backtrace or a hang.
@Suite(.serialized)
struct NumericOptionSweepTests {
    static let values = ["0", "-1", "1e18", "1e308", "nan", "inf", "garbage"]
    static let numeric = ["N", "D", "PCT", "MS", "RATIO", "BYTES", "S", "RANGE", "LIST", "DBM"]

    /// The options of `command` whose value is a number, a duration or a range.
    func numericOptions(_ command: [String]) throws -> [String] {
        let help = try pushdiag(command + ["--help"]).stdout
        let pattern = try Regex("(--[a-z-]+) <(" + Self.numeric.joined(separator: "|") + ")>")
        var seen: [String] = []
        for m in help.matches(of: pattern) {
            let name = String(help[m.range].split(separator: " ")[0])
            if !seen.contains(name) { seen.append(name) }
        }
        return seen
    }

    @Test func everyNumericOptionOfEveryCommand() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = { (name: String) in TestPaths.fixtures.appendingPathComponent(name).path }
        // What each command needs to start, and to end quickly on this machine.
        let commands: [([String], [String])] = [
            (["capture"], [fixture("roam-ft.pcap")]),
            (["wifi"], ["--replay", fixture("lab-wifi.pcap"), "--interface", "wlan2"]),
            (["watch"], ["--replay", fixture("lab-watch-roams.pcap")]),
            (["heartbeat"], ["127.0.0.1:\(freePort())", "--count", "2", "--connect-timeout", "1s"]),
            (["survey"], ["--interface", "wlan2", "--replay", fixture("lab-wifi.pcap"), "--duration", "1s"]),
            (
                ["report", "run"],
                ["--interface", "wlan2", "--replay", fixture("lab-wifi.pcap"), "--duration", "1s", "--history", dir.appendingPathComponent("h.db").path]
            ),
            (["report", "html"], ["--history", dir.appendingPathComponent("h.db").path, "--output", dir.appendingPathComponent("h.html").path]),
            (["walk"], ["--replay", fixture("lab-walk")]),
            // Not a wireless interface: a value join takes ends at once with exit 3.
            (["join"], ["--interface", "lo", "127.0.0.1:\(freePort())", "--cycle-timeout", "1s"]),
        ]
        // The runs go six at a time (a run waiting out its second's --duration leaves its core to
        // the others; on the debug binary each run also spends 0.07 to 0.5 s of CPU in the
        // argument parser's own checks: 118 s so, 270 s one after another; make test runs the
        // release binary); report's each write a history of their own, and report html reads one
        // made first and writes a page of its own.
        let history = dir.appendingPathComponent("h.db").path
        let made = try run(
            TestPaths.binary.path, ["report", "run", "--interface", "wlan2", "--replay", fixture("lab-wifi.pcap"), "--duration", "1s", "--history", history])
        // UNKNOWN (3) at most: the recording's window sent one frame, too few to judge retries.
        #expect((0...3).contains(made.status) && FileManager.default.fileExists(atPath: history), "the history report html reads: \(made.stderr)")
        var jobs: [[String]] = []
        for (command, base) in commands {
            let options = try numericOptions(command)
            #expect(!options.isEmpty, "\(command) has numeric options")
            for option in options {
                for value in Self.values {
                    let own = dir.appendingPathComponent("\(jobs.count)").path
                    let args = base.map {
                        $0 == history && command == ["report", "run"] ? own + ".db" : $0 == dir.appendingPathComponent("h.html").path ? own + ".html" : $0
                    }
                    jobs.append(command + args + [option, value])
                }
            }
        }
        let results = runAll(jobs.map { (TestPaths.binary.path, $0) }, width: 6, timeout: 30)
        for (args, result) in zip(jobs, results) {
            let r = try result.get()
            let option = args[args.count - 2]
            let value = args[args.count - 1]
            let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            let said = "pushdiag \(args.joined(separator: " ")) → \(r.status)\(r.signalled ? " (signalled)" : ""): \(r.stderr.prefix(400))"
            #expect(!r.signalled && (0...3).contains(r.status), "\(said)")
            #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack trace") && !r.stderr.contains("backtrace"), "\(said)")
            #expect(first.count <= 300, "\(said)")
            if r.status == 3 && first.hasPrefix("Error:") {
                #expect(first.contains(option) || first.contains(value) || first.contains("--"), "a usage error names what it refuses: \(said)")
            }
        }
        let runs = results.count
        #expect(runs > 150)
    }

    /// A negative number follows its option like any other (argument-parser would otherwise take
    /// "-1" for an option and say the value is missing): accepted where it makes sense, refused
    /// by name where it does not.
    @Test func negativeNumbersAreValuesNotOptions() throws {
        let walk = TestPaths.fixtures.appendingPathComponent("lab-walk").path
        let signal = try pushdiag("walk", "--replay", walk, "--signal-warning", "-65", "--signal-critical", "-75", "--format", "json")
        #expect((0...3).contains(signal.status) && !signal.stderr.contains("Missing value"), "\(signal.stderr)")
        let count = try pushdiag("heartbeat", "127.0.0.1:\(freePort())", "--count", "-1")
        let first = count.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(count.status != 0 && !first.contains("Missing value") && first.contains("--count"), "\(first)")
    }

    /// The responder runs until stopped: a value it takes keeps it running (and SIGTERM ends it
    /// cleanly); one it cannot take is refused at once.
    @Test func theRespondersNumericOptions() throws {
        for option in try numericOptions(["responder"]) {
            for value in Self.values {
                let port = freePort()
                let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", option, value])
                let end = Date().addingTimeInterval(5)
                while !server.output.contains("listening on") && server.process.isRunning && Date() < end { usleep(10_000) }
                let started = server.output.contains("listening on")
                if started {
                    server.process.terminate()
                    server.process.waitUntilExit()
                    #expect(server.process.terminationStatus == 0, "responder \(option) \(value) ended with \(server.process.terminationStatus)")
                } else {
                    server.process.waitUntilExit()
                    let out = server.output
                    #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 3, "responder \(option) \(value): \(out)")
                    #expect(!out.contains("Fatal error") && !out.isEmpty, "responder \(option) \(value): \(out)")
                }
                server.stop()
            }
        }
    }
}

/// The values that trapped (exit 132) before durations were bounded: refused with the option and
/// the largest value allowed.
struct DurationLimitTests {
    @Test func tooLongDurationsNameTheLargestAllowed() throws {
        let watch = try pushdiag("watch", "--roam-window", "1e10")
        #expect(watch.status == 3 && watch.stderr.hasPrefix("Error: --roam-window: '1e10' is longer than the largest allowed, 24d"), "\(watch.stderr)")
        let heartbeat = try pushdiag("heartbeat", "127.0.0.1:9", "--timeout", "25d")
        #expect(heartbeat.status == 3 && heartbeat.stderr.hasPrefix("Error: --timeout: '25d' is longer than the largest allowed, 24d"), "\(heartbeat.stderr)")
        let html = try pushdiag("report", "html", "--history", "/nonexistent.db", "--output", "/tmp/x.html", "--since", "300000d")
        #expect(html.status == 3 && html.stderr.hasPrefix("Error: --since: '300000d' is longer than the largest allowed, 3650d"), "\(html.stderr)")
        let schedule = try pushdiag("heartbeat", "127.0.0.1:9", "--reconnect-schedule", "1,1e300")
        #expect(schedule.status == 3 && schedule.stderr.contains("--reconnect-schedule"), "\(schedule.stderr)")
    }

    /// More simulated devices than this machine can open files for: said up front, with the limit.
    @Test func moreClientsThanTheOpenFileLimitIsRefusedUpFront() throws {
        let r = try pushdiag("heartbeat", "127.0.0.1:9", "--clients", "1000000000000")
        #expect(r.status == 3 && r.stderr.contains("--clients: at most") && r.stderr.contains("open-file limit"), "\(r.stderr)")
    }
}
