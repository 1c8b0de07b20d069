import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `heartbeat --find-idle-timeout` against a real responder whose connections stop answering
/// (SIGSTOP: the kernel still holds them, nothing replies, a black hole) or go away (the process
/// killed: the kernel closes them) part-way through the ladder. The lab does the same through
/// a conntrack firewall with a short established timeout.
@Suite(.serialized) struct IdleTimeoutTests {
    func responder(_ port: UInt16) throws -> Background {
        let b = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)"])
        #expect(b.wait(for: "listening on"), "responder did not start: \(b.output)")
        return b
    }

    /// Runs the finder in the background, does `meanwhile` `after` seconds after every rung's
    /// connection is up (not after the process started: a slow start must not move the rungs
    /// against the fault), returns its JSON.
    func find(_ port: UInt16, ladder: String, after: Double, _ meanwhile: () -> Void) throws -> [String: Any] {
        let dir = try TestPaths.temporaryDirectory()
        let out = dir.appendingPathComponent("out.json")
        let p = Process()
        p.executableURL = TestPaths.binary
        p.arguments = ["heartbeat", "127.0.0.1:\(port)", "--find-idle-timeout", "--ladder", ladder, "--max", "4s", "--timeout", "1s", "--format", "json"]
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = FileHandle.nullDevice
        try p.run()
        let rungs = ladder.split(separator: ",").count
        try #require(waitTCP(port: port, count: rungs), "the finder did not open its \(rungs) connections")
        usleep(UInt32(after * 1e6))
        meanwhile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 1, "a rung died: WARNING")
        return try json(String(contentsOf: out, encoding: .utf8))
    }

    func outcomes(_ r: [String: Any]) -> [Double: String] {
        var m: [Double: String] = [:]
        for g in r["rungs"] as? [[String: Any]] ?? [] { m[g["idle_s"] as? Double ?? -1] = g["outcome"] as? String }
        return m
    }

    @Test func aServerThatStopsAnsweringIsABlackHole() throws {
        let port = freePort()
        let server = try responder(port)
        defer {
            kill(server.process.processIdentifier, SIGCONT)
            server.stop()
        }
        let r = try find(port, ladder: "1s,2.5s,4s", after: 1.8) { kill(server.process.processIdentifier, SIGSTOP) }
        #expect(outcomes(r) == [1: "survived", 2.5: "black_hole", 4: "black_hole"], "\(r)")
        #expect(r["longest_survived_s"] as? Double == 1 && r["shortest_died_s"] as? Double == 2.5 && r["died"] as? String == "black_hole")
        let messages = (r["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }.joined()
        #expect(messages.contains("heartbeat interval must be shorter than 1s"), "\(messages)")
    }

    @Test func aServerThatGoesAwayClosesTheIdleConnections() throws {
        let port = freePort()
        let server = try responder(port)
        defer { server.stop() }
        let r = try find(port, ladder: "1s,3s", after: 1.8) {
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
        }
        let o = outcomes(r)
        #expect(o[1] == "survived", "\(r)")
        #expect(o[3] == "closed" || o[3] == "reset", "the kernel closed the dead server's end: \(r)")
    }

    /// On a terminal (util-linux's script) the progress line names each rung as it ends and the
    /// next one due; on a pipe there is none.
    @Test(.enabled(if: TestPaths.which("script") != nil, "script (util-linux) is not installed"))
    func eachRungOnTheProgressLineAsItEnds() throws {
        let port = freePort()
        let server = try responder(port)
        defer { server.stop() }
        let tty = try pushdiagOnATerminal(["heartbeat", "127.0.0.1:\(port)", "--find-idle-timeout", "--ladder", "1s,2s"])
        #expect(tty.status == 0, "\(tty.stdout)")
        let lines = tty.stdout.components(separatedBy: "\r\u{1B}[K")
        #expect(lines.contains { $0.hasPrefix("2 idle, next 1s ") && $0.hasSuffix(", last 2s") }, "\(tty.stdout.debugDescription)")
        #expect(lines.contains { $0.hasPrefix("survived 1s; 1 idle, next 2s ") }, "\(tty.stdout.debugDescription)")
        // One terminal row: the ended rungs are summed up, not listed.
        #expect(!lines.dropLast().contains { $0.count > 80 }, "\(tty.stdout.debugDescription)")
        let pipe = try pushdiag(["heartbeat", "127.0.0.1:\(port)", "--find-idle-timeout", "--ladder", "0.5s"])
        #expect(pipe.status == 0 && !pipe.stderr.contains("\u{1B}") && !pipe.stdout.contains("\u{1B}"), "\(pipe.stderr)")
    }

    /// A ladder of one's own is the whole search: no 60-minute rung added behind it.
    @Test func aLadderWithoutMaxEndsWhereItEnds() throws {
        let port = freePort()
        let server = try responder(port)
        defer { server.stop() }
        let r = try pushdiag(["heartbeat", "127.0.0.1:\(port)", "--find-idle-timeout", "--ladder", "1s,0.5s", "--format", "json"])
        let j = try json(r.stdout)
        #expect(r.status == 0 && outcomes(j) == [0.5: "survived", 1: "survived"], "\(r.stdout) \(r.stderr)")
    }

    /// What was found, given back: a registered device judges the server's heartbeat spacing
    /// against the path's idle timeout.
    @Test func theServersIntervalIsJudgedAgainstTheIdleTimeout() throws {
        let port = freePort()
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--heartbeat-interval", "400ms"])
        #expect(server.wait(for: "listening on"), "responder did not start: \(server.output)")
        defer { server.stop() }
        func run(_ idle: String, _ more: [String] = []) throws -> (Int32, [String: Any]) {
            let r = try pushdiag(
                [
                    "heartbeat", "127.0.0.1:\(port)", "--register", "ward-3", "--idle-timeout", idle, "--count", "5", "--interval", "300ms", "--format", "json",
                ] + more)
            return (r.status, try json(r.stdout))
        }
        // 400 ms apart, more than half of 0.6 s: WARNING, with the server's spacing measured.
        let (status, j) = try run("0.6s")
        let f = (j["findings"] as? [[String: Any]] ?? []).first { $0["check"] as? String == "idle_timeout" }
        let longest = f?["value"] as? Double ?? -1
        #expect(status == 1 && f?["severity"] as? String == "warning" && longest >= 0.35 && longest < 0.6, "\(j)")
        // The threshold passed is the warning one, half the timeout (it gave the timeout itself).
        #expect(f?["threshold"] as? Double == 0.3 && longest > 0.3, "\(String(describing: f))")
        #expect((j["server_heartbeats"] as? [String: Any])?["path_idle_timeout_s"] as? Double == 0.6)
        // The safe_interval row's flags grade it as they grade the safe interval: a 40% warning
        // is 0.24 s of 0.6 s (it took the defaults whatever the flags said).
        let (ownStatus, own) = try run("0.6s", ["--safe-interval-warning", "40"])
        let g = (own["findings"] as? [[String: Any]] ?? []).first { $0["check"] as? String == "idle_timeout" }
        #expect(ownStatus == 1 && g?["severity"] as? String == "warning" && g?["threshold"] as? Double == 0.24, "\(own)")
        #expect((g?["message"] as? String)?.contains("more than 40% of the 600ms") == true, "\(String(describing: g))")
        // Under half of 5 s: no finding.
        let (okStatus, ok) = try run("5s")
        #expect(okStatus == 0 && !((ok["findings"] as? [[String: Any]] ?? []).contains { $0["check"] as? String == "idle_timeout" }), "\(ok)")
        let bad = try pushdiag(["heartbeat", "127.0.0.1:\(port)", "--idle-timeout", "5m"])
        #expect(bad.status == 3 && bad.stderr.contains("--idle-timeout goes with --register"), "\(bad.stderr)")
    }

    @Test func badLaddersAreOneLine() throws {
        for (args, says) in [
            (["--find-idle-timeout", "--ladder", "1s,,2s"], "--ladder"), (["--find-idle-timeout", "--ladder", "nan"], "--ladder"),
            (["--find-idle-timeout", "--max", "0"], "--max"), (["--max", "5m"], "go with --find-idle-timeout"),
            (["--find-idle-timeout", "--clients", "2"], "cannot be combined"),
            // Flags that would do nothing: idle connections register none, simulated devices neither.
            (["--find-idle-timeout", "--register", "x", "--idle-timeout", "1s"], "--register goes with a single connection, not with --find-idle-timeout"),
            (
                ["--clients", "2", "--register", "x", "--idle-timeout", "1s", "--safe-interval-warning", "40"],
                "--register goes with a single connection, not with --clients"
            ),
        ] {
            let r = try pushdiag(["heartbeat", "127.0.0.1:1"] + args)
            #expect(r.status == 3 && r.stderr.contains(says), "\(args): \(r.stderr)")
        }
    }
}
