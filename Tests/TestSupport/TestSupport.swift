import Foundation

/// Paths and process helpers shared by the tests that read files or run the binary.
public enum TestPaths {
    /// The package root, found from this file's path.
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let fixtures = root.appendingPathComponent("fixtures")
    /// `../shared/pcaps` beside the project, when present.
    public static let sharedPcaps = root.deletingLastPathComponent().appendingPathComponent("shared/pcaps")
    public static var hasSharedPcaps: Bool { FileManager.default.fileExists(atPath: sharedPcaps.appendingPathComponent("oracle.tsv").path) }

    /// The `pushdiag` executable the tests run: `PUSHDIAG_BINARY` when set (`make test` sets it
    /// to the release build, the binary users install), else the one built beside the test bundle.
    public static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["PUSHDIAG_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return debugBinary
    }()

    /// The `pushdiag` built beside the test bundle (a debug build under `swift test`).
    public static let debugBinary: URL = {
        var candidates: [URL] = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL]
        candidates += [Bundle.main.bundleURL.deletingLastPathComponent()]
        for dir in candidates {
            let u = dir.appendingPathComponent("pushdiag")
            if FileManager.default.isExecutableFile(atPath: u.path) { return u }
        }
        return root.appendingPathComponent(".build/debug/pushdiag")
    }()

    public static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    public static func temporaryDirectory() throws -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("pushdiag-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    /// A copy of the fixture directory `name` in a temporary directory, to mend or break.
    public static func copyOfFixture(_ name: String) throws -> URL {
        let dir = try temporaryDirectory().appendingPathComponent(name)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: dir)
        return dir
    }
}

public struct RunResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Terminated by a signal (a crash), not an exit.
    public var signalled: Bool
}

/// pushdiag with these arguments on a terminal: a pseudo-terminal from util-linux's script,
/// TERM=xterm; what the terminal showed (stdout and stderr together) is the result's stdout.
/// The arguments are joined by spaces for script -c: none may hold one. Callers skip without
/// script (`TestPaths.which("script")`).
public func pushdiagOnATerminal(_ arguments: [String]) throws -> RunResult {
    let command = ([TestPaths.binary.path] + arguments).joined(separator: " ")
    return try run(TestPaths.which("script")!, ["-qefc", command, "/dev/null"], environment: ["TERM": "xterm", "PATH": "/usr/bin:/bin"])
}

/// Runs a program with a time limit; a run that exceeds it is killed and reported as signalled.
/// Output goes through temporary files, so a large report cannot fill a pipe and stall.
public func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60, environment: [String: String]? = nil) throws -> RunResult {
    let dir = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let outURL = dir.appendingPathComponent("out")
    let errURL = dir.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(2000) }
    if p.isRunning { p.terminate() }
    p.waitUntilExit()
    try out.close()
    try err.close()
    return RunResult(
        status: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
        signalled: p.terminationReason == .uncaughtSignal)
}

/// Runs many programs, at most `width` at a time (a run waiting out its `--duration` leaves its
/// core to the others), each as `run` would; the results in the order of `jobs`. A job that
/// could not be started is its error.
public func runAll(_ jobs: [(executable: String, arguments: [String])], width: Int = 6, timeout: TimeInterval = 60) -> [Result<RunResult, any Error>] {
    final class Slots: @unchecked Sendable {
        let lock = NSLock()
        var results: [Result<RunResult, any Error>?]
        init(_ n: Int) { results = Array(repeating: nil, count: n) }
    }
    let slots = Slots(jobs.count)
    let gate = DispatchSemaphore(value: max(1, width))
    let group = DispatchGroup()
    for (i, job) in jobs.enumerated() {
        gate.wait()
        group.enter()
        Thread.detachNewThread {
            let r = Result { try run(job.executable, job.arguments, timeout: timeout) }
            slots.lock.withLock { slots.results[i] = r }
            gate.signal()
            group.leave()
        }
    }
    group.wait()
    return slots.results.map { $0! }
}

public func pushdiag(_ arguments: String...) throws -> RunResult {
    try run(TestPaths.binary.path, arguments)
}

public func pushdiag(_ arguments: [String]) throws -> RunResult {
    try run(TestPaths.binary.path, arguments)
}

public func json(_ text: String) throws -> [String: Any] {
    let obj = try JSONSerialization.jsonObject(with: Data(text.utf8))
    guard let d = obj as? [String: Any] else { throw NotAnObject(text: String(text.prefix(200))) }
    return d
}

/// JSON that is not an object where one was expected.
public struct NotAnObject: Error, CustomStringConvertible {
    public var text: String
    public var description: String { "not a JSON object: \(text)" }
}

/// Reading a Prometheus text exposition (what /metrics served) in tests.
public enum Exposition {
    /// The series of `name` whose labels include every one of `labels`: (labels text, value).
    public static func series(_ exposition: String, _ name: String, _ labels: [String: String] = [:]) -> [(labels: String, value: Double)] {
        var out: [(String, Double)] = []
        for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            let metric = series.prefix { $0 != "{" }
            guard metric == name, labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            if let v = Double(line[line.index(after: space)...]) { out.append((String(series.dropFirst(metric.count)), v)) }
        }
        return out
    }

    /// The value of the first such series.
    public static func value(_ exposition: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        series(exposition, name, labels).first?.value
    }
}

/// promtool's unit test of alerting rules (`promtool test rules`): the shipped `rules` file over
/// `series` (a series each: its name with labels, and its values in promtool's expanding
/// notation, one a minute), with `alerts` the `alert_rule_test` entries written from column 0.
/// Passed when promtool says SUCCESS; the output includes the spec it ran.
public func promtoolTestRules(rules: URL, series: [(name: String, values: String)], alerts: String) throws -> (passed: Bool, output: String) {
    guard let promtool = TestPaths.which("promtool") else { return (false, "promtool is not installed") }
    let dir = try TestPaths.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = series.map { "      - series: '\($0.name)'\n        values: '\($0.values)'" }
    let tests = alerts.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }
    let spec =
        (["rule_files: [\(rules.path)]", "evaluation_interval: 1m", "tests:", "  - interval: 1m", "    input_series:"] + input
        + ["    alert_rule_test:"] + tests).joined(separator: "\n") + "\n"
    let file = dir.appendingPathComponent("rules-test.yml")
    try spec.write(to: file, atomically: true, encoding: .utf8)
    let r = try run(promtool, ["test", "rules", file.path])
    return (r.status == 0 && r.stdout.contains("SUCCESS"), r.stdout + r.stderr + "\n" + spec)
}

/// A shipped rules file's WiFiRetransmissionsHigh alert over `series` (a ratio of station
/// retries on ward-3's wlan2 and its frames), evaluated at 20 minutes: firing with `summary`,
/// or silent when `summary` is nil (`promtoolTestRules`).
public func retransmissionAlertTest(
    rules: URL, series: [(name: String, values: String)], firesWith summary: String?
) throws -> (
    passed: Bool, output: String
) {
    let expected =
        summary.map {
            """
              exp_alerts:
                - exp_labels: {severity: critical, instance: ward-3, interface: wlan2, source: station_retries, trust: measured}
                  exp_annotations:
                    summary: "\($0)"
                    description: "Apple's guidance: retransmissions no more than 15% of traffic."
            """
        } ?? "  exp_alerts: []"
    return try promtoolTestRules(rules: rules, series: series, alerts: "- eval_time: 20m\n  alertname: WiFiRetransmissionsHigh\n" + expected)
}

/// Two network namespaces joined by a veth pair on 10.`subnet`.0.0/24: the client's end
/// `clientDevice` (.2) in `client`, the server's `serverDevice` (.1) in `server`, both up with
/// their loopbacks. `remove()` deletes both namespaces (and the pair with them). Needs root.
public struct VethNamespaces {
    public let server: String
    public let client: String
    public let clientDevice: String
    public let serverDevice: String
    public let clientAddress: String
    public let serverAddress: String
    let ip: String

    /// Why a namespace or the pair could not be made: the command and its error.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init(tag: String, subnet: Int) throws {
        guard let ip = TestPaths.which("ip") else { throw Failure(description: "iproute2's ip is not installed") }
        self.ip = ip
        (server, client) = ("pd\(tag)srv-\(getpid())", "pd\(tag)cli-\(getpid())")
        (clientDevice, serverDevice) = ("v\(tag)c", "v\(tag)s")
        (clientAddress, serverAddress) = ("10.\(subnet).0.2", "10.\(subnet).0.1")
        for cmd in [["netns", "add", server], ["netns", "add", client]] { try run(cmd) }
        do {
            for cmd in [
                ["netns", "exec", client, "ip", "link", "add", "name", clientDevice, "type", "veth", "peer", "name", serverDevice],
                ["netns", "exec", client, "ip", "link", "set", serverDevice, "netns", server],
                ["netns", "exec", client, "ip", "addr", "add", "\(clientAddress)/24", "dev", clientDevice],
                ["netns", "exec", server, "ip", "addr", "add", "\(serverAddress)/24", "dev", serverDevice],
                ["netns", "exec", client, "ip", "link", "set", clientDevice, "up"],
                ["netns", "exec", client, "ip", "link", "set", "lo", "up"],
                ["netns", "exec", server, "ip", "link", "set", serverDevice, "up"],
                ["netns", "exec", server, "ip", "link", "set", "lo", "up"],
            ] {
                try run(cmd)
            }
        } catch {
            remove()
            throw error
        }
    }

    /// `ip ARGS`, which must succeed.
    public func run(_ args: [String]) throws {
        let r = try TestSupport.run(ip, args)
        guard r.status == 0 else { throw Failure(description: "ip \(args.joined(separator: " ")): \(r.stderr)") }
    }

    public func remove() {
        _ = try? TestSupport.run(ip, ["netns", "del", server])
        _ = try? TestSupport.run(ip, ["netns", "del", client])
    }
}
