import PushdiagCore

public struct HeartbeatTextRenderer {
    public init() {}

    public func render(_ r: HeartbeatReport) -> String {
        var out = "\(r.target) (\(r.protocol))" + (r.address.map { ", \($0)" } ?? "") + "\n"
        var phases: [String] = []
        if let v = r.resolveMs { phases.append("resolve \(NumberText.format(v)) ms") }
        if let v = r.connectMs { phases.append("connect \(NumberText.format(v)) ms") }
        if let v = r.tlsMs { phases.append("TLS \(NumberText.format(v)) ms") }
        if let v = r.handshakeMs { phases.append("\(r.protocol) handshake \(NumberText.format(v)) ms") }
        if !phases.isEmpty { out += "  " + phases.joined(separator: ", ") + "\n" }
        if let t = r.tls {
            out += "  TLS \(t.version) \(t.cipher); certificate \(t.subject), issued by \(t.issuer), valid until \(t.notAfter) (\(t.daysLeft) days)\n"
            out +=
                "  key pin (SPKI SHA-256) \(t.spkiSha256)" + (t.verified ? ", verified" : ", NOT verified: \(t.verifyError ?? "?")")
                + (t.pinMatched.map { $0 ? ", pin matches" : ", pin does NOT match" } ?? "") + "\n"
        }
        out += "  heartbeats: \(r.sent) sent, \(r.received) answered, \(NumberText.format(r.lossPercent))% lost\n"
        if let t = r.rttMs {
            out +=
                "  rtt ms: min \(NumberText.format(t.min)) / avg \(NumberText.format(t.avg)) / median \(NumberText.format(t.median))"
                + " / p95 \(NumberText.format(t.p95)) / max \(NumberText.format(t.max)), stdev \(NumberText.format(t.stdev))"
                + (r.jitterMs.map { ", jitter \(NumberText.format($0))" } ?? "") + "\n"
        }
        if !r.reconnects.isEmpty {
            out += "  reconnects:\n"
            for a in r.reconnects {
                out += "    #\(a.attempt) after \(NumberText.format(a.delayS)) s: \(a.outcome.rawValue) (\(NumberText.format(a.ms)) ms)\n"
            }
        }
        if let sh = r.serverHeartbeats {
            out += "  server heartbeats: \(sh.received) received, \(sh.acknowledged) acknowledged"
            if let i = sh.intervalMs { out += ", \(NumberText.format(i.median)) ms apart (median)" }
            if let g = sh.longestGapMs { out += ", longest gap \(NumberText.format(g)) ms (a device reconnects after \(NumberText.format(sh.timeoutS)) s)" }
            out += sh.registered ? "\n" : " (registration not acknowledged)\n"
        }
        if let c = r.safeInterval {
            let l = c.limits
            out += "  safe interval: \(l.safeIntervalS.map(DurationText.format) ?? "UNKNOWN"), the lowest of the limits \(l.origin) found:\n"
            for limit in l.limits { out += "    \(limit.text)\n" }
            var graded = c.skipped ? "skipped (no --register: the server sends no heartbeats to see)" : "UNKNOWN"
            if let p = c.percent, let longest = c.serverLongestS {
                graded = "\(NumberText.format(p))% (longest \(DurationText.format(longest))), \(c.severity.rawValue.uppercased())"
            }
            out += "  server's spacing against it: \(graded) (warning above \(c.threshold.warning)%, critical at \(c.threshold.critical)% and above)\n"
        }
        if r.connectionLost { out += "  \(ReconnectAttempt.scheduleRanOut())\n" }
        if let stalls = r.stalls, let summary = r.stallSummary { out += StallTextRenderer.render(stalls, summary).dropFirst() }
        out += "  states: " + r.states.map { $0.state.rawValue + ($0.reason.map { " (\($0))" } ?? "") }.joined(separator: " → ") + "\n"
        if let e = r.error { out += "  error: \(e)\n" }
        return out + "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
    }

    public func render(_ r: LoadReport) -> String {
        var out =
            "\(r.target) (\(r.protocol)), \(r.clients) simulated devices over \(NumberText.format(r.durationSeconds)) s\(r.interrupted ? " (interrupted)" : "")\n"
        out +=
            "  connected \(r.connected), failed to connect \(r.failedConnects), dropped by the server \(r.dropOuts)"
            + (r.protocolFailures > 0 ? ", hung up on a protocol error \(r.protocolFailures)" : "") + "\n"
        out += "  heartbeats: \(r.planned) planned, \(r.sent) sent, \(r.received) answered, \(NumberText.format(r.lossPercent))% lost\n"
        if let t = r.rttMs {
            out +=
                "  rtt ms (all devices): median \(NumberText.format(t.median)) / p95 \(NumberText.format(t.p95)) / p99 \(NumberText.format(t.p99)) / max \(NumberText.format(t.max))\n"
        }
        let worst = r.perClient.filter { $0.sent > $0.received || $0.droppedOut || $0.hungUp || !$0.connected }.prefix(10)
        for c in worst {
            out +=
                "  device \(c.client): \(c.received)/\(c.sent) answered" + (c.droppedOut ? ", dropped by the server" : "") + (c.hungUp ? ", hung up" : "")
                + (c.error.map { ", \($0)" } ?? "")
                + "\n"
        }
        return out + "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
    }

    /// `heartbeat --clients N --storm`.
    public func render(_ r: StormReport) -> String {
        // Rounded once, as the findings say the same times (not to the millisecond and then again).
        func seconds(_ ms: Double?) -> String { ms.map { "\(NumberText.format($0 / 1000)) s" } ?? "never" }
        var out = "\(r.target) (\(r.protocol)\(r.tls ? " over TLS" : "")), reconnect storm of \(r.devices) simulated devices\n"
        out +=
            "  before the drop: \(r.upBeforeDrop) up in \(NumberText.format(r.connectSeconds)) s, \(r.failedBeforeDrop) never up"
            + (r.failuresBeforeDrop.total > 0 ? " (failed attempts: \(StormAnalysis.describe(r.failuresBeforeDrop)))" : "")
            + "; held \(NumberText.format(r.settleSeconds)) s\n"
        out +=
            "  schedule: " + r.scheduleS.map { NumberText.format($0) }.joined(separator: ", ") + " s, jitter ±\(NumberText.format(r.jitter * 100))%\n"
        out += "  dropped \(r.dropped) at once; back \(r.back) (\(NumberText.format(r.backPercent))%)"
        out += r.gaveUp > 0 ? ", gave up \(r.gaveUp)" : ""
        out += r.stillOut > 0 ? ", still out \(r.stillOut) (stopped)" : ""
        out += "\n"
        out +=
            "  back after: 50% \(seconds(r.recovery.p50Ms)), 95% \(seconds(r.recovery.p95Ms)), 100% \(seconds(r.recovery.p100Ms))"
            + " (first \(seconds(r.recovery.firstMs)))\n"
        out += "  attempts \(r.attempts), failed \(r.failures.total): \(StormAnalysis.describe(r.failures))\n"
        if let resumed = r.tlsResumed, let full = r.tlsFull {
            out += "  TLS on return: \(resumed) resumed, \(full) full handshakes\n"
        }
        let a = r.acceptRate
        out +=
            "  server accept rate (devices back per second): "
            + (a.meanPerSecond.map { "mean \(NumberText.format($0)), " } ?? "") + "peak \(a.peakPerSecond)\n"
        for e in r.failureExamples { out += "  e.g. \(e)\n" }
        if let e = r.error { out += "  error: \(e)\n" }
        return out + "\n" + CaptureTextRenderer().renderFindings(r.findings, status: r.status)
    }
}

extension HeartbeatTextRenderer {
    /// `heartbeat --find-idle-timeout`: one line per rung, then the verdict.
    public func render(_ r: IdleTimeoutReport) -> String {
        var out = "\(r.target) (\(r.protocol)): idle timeout, \(NumberText.count(r.rungs.count, "connection")) left idle\n"
        let rows = r.rungs.map { g -> [String] in
            [
                DurationText.format(g.idleS), g.outcome.words,
                g.rttMs.map { "\(NumberText.format($0)) ms" } ?? "-", g.detail ?? "",
            ]
        }
        var table = TextTable([("IDLE", .right), ("AFTER IT", .left), ("RTT", .right), ("DETAIL", .left)])
        for row in rows { table.add(row) }
        out += table.render()
        if !out.hasSuffix("\n") { out += "\n" }
        out += "  longest idle survived: \(r.longestSurvivedS.map(DurationText.format) ?? "none")"
        out +=
            "; shortest that died: \(r.shortestDiedS.map { "\(DurationText.format($0)) (\(r.died?.words ?? "?"))" } ?? "none")\n"
        for f in r.findings { out += "  \(f.severity.rawValue.uppercased()): \(f.message)\n" }
        out += "\(r.status.rawValue.uppercased())\n"
        return out
    }
}
