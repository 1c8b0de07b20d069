import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

/// heartbeat's other modes: --find-idle-timeout, --clients (load) and --clients --storm.
extension HeartbeatCommand {
    /// `--ramp`, at once when not given (it goes with --clients).
    var rampSeconds: Double { get throws { try ramp.map { try parseDuration($0, option: "--ramp") } ?? 0 } }

    /// --find-idle-timeout's refusals: --max and --ladder without it, and what it cannot go with.
    func validateIdleMode() throws {
        guard idleLadder.enabled else {
            if idleLadder.stray { throw ValidationError("--max and --ladder go with --find-idle-timeout") }
            return
        }
        if clients != nil { throw ValidationError("--find-idle-timeout and --clients cannot be combined") }
        // A rung's second heartbeat would be a new connection: every rung would survive.
        try PushConnectionOptions.refuseWithoutHeldConnection(proto, "--find-idle-timeout", given: true, why: "it measures a connection left idle")
    }

    /// --find-idle-timeout's rungs, seconds; nil without it.
    func idleRungs() throws -> [Double]? { idleLadder.enabled ? try idleLadder.rungs() : nil }

    /// `--find-idle-timeout`: one connection per rung, left idle, then a heartbeat.
    func runIdleTimeout(_ o: HeartbeatOptions, rungs: [Double]) throws {
        let finder = IdleTimeoutFinder(o, rungs: rungs, stop: { StopSignal.isRequested })
        let progress = Progress()
        let report = finder.run { decided, elapsed in progress.update(Self.idleProgress(rungs: rungs, decided: decided, elapsedS: elapsed)) }
        progress.clear()
        try finish(try JSONRenderer.render(report), HeartbeatTextRenderer().render(report), exitCode: report.status.exitCode)
    }

    /// The progress line of `--find-idle-timeout`, one terminal row however long the ladder:
    /// the longest rung that survived and the shortest that died so far (how), then how many
    /// are still idle, when the next is asked (its idle time from the start) and the last.
    static func idleProgress(rungs: [Double], decided: [IdleTimeout.Rung], elapsedS: Double) -> String {
        var parts: [String] = []
        if let s = decided.filter({ $0.outcome == .survived }).map(\.idleS).max() { parts.append("survived \(DurationText.format(s))") }
        if let d = decided.filter({ $0.outcome != .survived && $0.outcome != .notOpened }).min(by: { $0.idleS < $1.idleS }) {
            parts.append("died \(DurationText.format(d.idleS)) (\(d.outcome.words))")
        }
        let left = rungs.filter { r in !decided.contains { $0.idleS == r } }
        if let next = left.min(), let last = left.max() {
            let wait = (next - elapsedS).rounded(.up)
            let when = wait > 0 ? "in \(DurationText.format(wait))" : "due now"
            parts.append("\(left.count) idle, next \(DurationText.format(next)) \(when), last \(DurationText.format(last))")
        }
        return parts.joined(separator: "; ")
    }

    /// `--clients N`: many devices with heartbeats, from the device engine.
    func runLoad(_ o: HeartbeatOptions, clients: Int) throws {
        let settings = DeviceEngine.Settings(clients: clients, rampSeconds: try rampSeconds)
        let load = DeviceEngine.load(o, settings) { StopSignal.isRequested }
        try finish(try JSONRenderer.render(load), HeartbeatTextRenderer().render(load), exitCode: load.status.exitCode)
    }

    /// `--clients N --storm`: the storm's measurement, the core's report and verdict, rendered.
    func runStorm(_ o: HeartbeatOptions, clients: Int) throws {
        let settings = try storm.settings(clients: clients, rampSeconds: try rampSeconds)
        let measured = DeviceEngine.storm(o, settings) { StopSignal.isRequested }
        let report = StormReport.assemble(measured)
        if let e = report.error { diagnose(e) }
        try finish(try JSONRenderer.render(report), HeartbeatTextRenderer().render(report), exitCode: report.status.exitCode)
    }

    /// `--interface`: a link the heartbeats of a single connection go out of (`HeartbeatModeRow`).
    func validateInterface() throws {
        guard let interface else { return }
        guard if_nametoindex(interface) != 0 else { throw ValidationError("--interface \(interface): no such interface") }
    }

    /// Prints a report as --format asks, and exits with its status.
    func finish(_ json: @autoclosure () throws -> String, _ text: @autoclosure () -> String, exitCode: Int32) throws -> Never {
        let output = format == .json ? try json() : text()
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(exitCode)
    }
}
