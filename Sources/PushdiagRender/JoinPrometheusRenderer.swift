import PushdiagCore

/// `join --textfile FILE`: the run's report as Prometheus metrics for node_exporter's textfile
/// collector. Durations are summaries in seconds (quantile 0.5 and 0.95 nearest-rank as the
/// report's p50 and p95, 1 its largest; `_sum` and `_count` over the cycles measured), labelled
/// with the interface and the push server (`target`, as the survey's heartbeat series). Counts
/// are of this run, gauges as `pushdiag_capture_roam_events`, not counters. A step never
/// measured has no quantiles, only its statuses.
public struct JoinPrometheusRenderer {
    public init() {}

    /// 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (no grade: a step not visible, no cycle).
    static func value(_ s: Severity?) -> Double { Double((s ?? .unknown).exitCode) }

    public func render(_ r: JoinReport) -> String {
        var f = PrometheusFamilies()
        let base = [("interface", r.interface), ("target", r.server)]
        f.add("pushdiag_join_status", "Worst grade of the join run (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).", base, Self.value(r.status))
        let reached = r.cycles.filter { $0.pushReadyMs != nil }.count
        let cyclesHelp = "Rejoin cycles of this run by result: push_ready (the first heartbeat answered) or failed (never push-ready)."
        f.add("pushdiag_join_cycles", cyclesHelp, base + [("result", "push_ready")], Double(reached))
        f.add("pushdiag_join_cycles", cyclesHelp, base + [("result", "failed")], Double(r.cycles.count - reached))

        /// A summary of `values` (ms) whose quantiles the report computed (`stats`).
        func summary(_ name: String, _ help: String, _ labels: [(String, String)], _ stats: JoinDurationStats, _ values: [Double]) {
            guard stats.count > 0 else { return }
            for (q, v) in [("0.5", stats.p50Ms), ("0.95", stats.p95Ms), ("1", stats.maxMs)] {
                guard let v else { continue }
                f.add(name, help, type: "summary", labels + [("quantile", q)], v / 1000)
            }
            f.add(name + "_sum", help, type: "summary", labels, (values.reduce(0, +) * 1000).rounded() / 1e6)
            f.add(name + "_count", help, type: "summary", labels, Double(values.count))
        }
        summary(
            "pushdiag_join_push_ready_seconds", "From the start of a rejoin to its first heartbeat answered (quantile 1: the slowest cycle).", base,
            r.pushReady, r.cycles.compactMap(\.pushReadyMs))
        f.add(
            "pushdiag_join_push_ready_status", "Push-ready graded at its slowest cycle (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN: no cycle got there).", base,
            Self.value(r.pushReadySeverity))
        let stepHelp = "Each step of a rejoin over the cycles that measured it (quantile 1: the slowest)."
        for s in r.summary {
            summary(
                "pushdiag_join_step_seconds", stepHelp, base + [("step", s.name.rawValue)], s.durations, r.cycles.compactMap { $0.step(s.name)?.durationMs })
        }
        let statusHelp = "Cycles of this run by each step's status (ok, skipped, not_used, not_visible, failed, not_reached)."
        for s in r.summary {
            for status in JoinStepStatus.allCases {
                f.add(
                    "pushdiag_join_step_cycles", statusHelp, base + [("step", s.name.rawValue), ("status", status.rawValue)],
                    Double(s.statuses[status.rawValue] ?? 0))
            }
        }
        let groupHelp = "Each group of steps (link, keys, address, name, push): the sum of its steps' times in a cycle (quantile 1: the slowest)."
        for g in r.groups {
            let values = r.cycles.compactMap { c in c.groups.first { $0.group == g.group }?.durationMs }
            summary("pushdiag_join_group_seconds", groupHelp, base + [("group", g.group.rawValue)], g.durations, values)
        }
        for g in r.groups {
            f.add(
                "pushdiag_join_group_status", "Each group graded at its slowest cycle (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN: a step not visible).",
                base + [("group", g.group.rawValue)], Self.value(g.severity))
        }
        if let a = r.apIdle {
            // Only what the ladder measured or the AP advertised: no series for a limit not found.
            for l in a.limits {
                f.add(
                    "pushdiag_join_idle_limit_seconds",
                    "How long a device may stay silent on this path, by source: bss_max_idle (advertised by the AP), ap_dropped (the silence the AP dropped the station after, join --find-ap-idle), path_idle_timeout (--idle-timeout).",
                    base + [("source", l.source.rawValue)], l.seconds)
            }
            if let s = a.safeIntervalS {
                f.add(
                    "pushdiag_join_safe_heartbeat_interval_seconds",
                    "The longest safe heartbeat interval on this path: the lowest of pushdiag_join_idle_limit_seconds.", base, s)
            }
        }
        return f.render()
    }
}
