/// One step of one cycle as the report gives it: the JSON contract's
/// `cycles[].steps[name, start, duration_ms, status, detail]` (and `offset_ms`, from the cycle's
/// start). A step not measured has no start or duration, never a zero.
public struct JoinStepReport: Codable, Sendable, Equatable {
    public var name: JoinStep
    /// When the step began (RFC 3339, on the run's monotonic-anchored clock).
    @Nullable public var start: String?
    /// Milliseconds from the cycle's start to the step's.
    @Nullable public var offsetMs: Double?
    @Nullable public var durationMs: Double?
    public var status: JoinStepStatus
    /// What timed it ("NEW_SCAN_RESULTS, 2 scans"), or why it has no time.
    public var detail: String
}

/// A group's value in one cycle (the sum of its steps' measured durations) and its grade; no
/// value when one of its steps was not visible, failed or not reached.
public struct JoinGroupValue: Codable, Sendable, Equatable {
    public var group: JoinGroup
    @Nullable public var durationMs: Double?
    @Nullable public var severity: Severity?
}

/// One rejoin, from its start (pushdiag's reconnect, or the loss that began it) to push-ready.
public struct JoinCycleReport: Codable, Sendable, Equatable {
    public var cycle: Int
    public var start: String
    /// What started it ("wpa_supplicant RECONNECT", "link up", "disconnected: reason 3").
    public var trigger: String
    /// From the cycle's start to the first heartbeat answered; nil when it never got there.
    @Nullable public var pushReadyMs: Double?
    public var steps: [JoinStepReport]
    /// The step that took longest and its share of push-ready (percent).
    @Nullable public var slowest: JoinStep?
    @Nullable public var slowestPercent: Double?
    @Nullable public var bssid: MACAddress?
    /// The AP's BSS Max Idle Period from its association response (seconds); nil when it sent none.
    @Nullable public var bssMaxIdleS: Double?
    @Nullable public var addressBefore: String?
    @Nullable public var address: String?
    public var addressChanged: Bool
    public var groups: [JoinGroupValue]
    public var severity: Severity

    public func step(_ s: JoinStep) -> JoinStepReport? { steps.first { $0.name == s } }
}

/// Nearest-rank p50, p95 and the largest of a list of durations; all nil for an empty list.
public struct JoinDurationStats: Codable, Sendable, Equatable {
    public var count: Int
    @Nullable public var p50Ms: Double?
    @Nullable public var p95Ms: Double?
    @Nullable public var maxMs: Double?

    public init(_ values: [Double]) {
        let s = values.sorted()
        count = s.count
        p50Ms = NumberText.percentile(0.5, sorted: s)
        p95Ms = NumberText.percentile(0.95, sorted: s)
        maxMs = s.last
    }

    /// The slowest in ms as the groups' tables print it, where it is graded: beside the limit it
    /// is graded against (the critical one when above it, else the warning one), so a time just
    /// above a limit never reads as the limit (`NumberText.format(_:beside:)`).
    public func maxText(warning: Double, critical: Double?) -> String? {
        maxMs.map { NumberText.format($0, beside: Thresholds.gradedAgainst($0, warning: warning, critical: critical ?? .infinity)) }
    }
}

/// A step over all cycles: how often each status came, and the statistics of its measured durations.
public struct JoinStepSummary: Codable, Sendable, Equatable {
    public var name: JoinStep
    /// Cycles by status (`ok`, `skipped`, …), every status present.
    public var statuses: [String: Int]
    public var durations: JoinDurationStats
}

/// A group over all cycles: the slowest cycle's value graded with the group's row.
public struct JoinGroupSummary: Codable, Sendable, Equatable {
    public var group: JoinGroup
    public var durations: JoinDurationStats
    public var warningMs: Double
    @Nullable public var criticalMs: Double?
    @Nullable public var severity: Severity?
}

/// `pushdiag join`'s report: every cycle's waterfall, the steps' statistics, the grades.
public struct JoinReport: Codable, Sendable, Equatable {
    public var interface: String
    public var server: String
    /// How the cycles were started: the manager asked (networkmanager, iwd, wpa_supplicant), link, or passive.
    public var mode: String
    public var cycles: [JoinCycleReport]
    public var summary: [JoinStepSummary]
    public var pushReady: JoinDurationStats
    public var pushReadyWarningMs: Double
    @Nullable public var pushReadyCriticalMs: Double?
    /// Push-ready graded at its slowest cycle; nil when no cycle got there.
    @Nullable public var pushReadySeverity: Severity?
    public var groups: [JoinGroupSummary]
    /// The step with the largest median, and its median's share of push-ready's median (percent).
    @Nullable public var slowest: JoinStep?
    @Nullable public var slowestPercent: Double?
    /// `--find-ap-idle`: what the AP does to a silent station; null without it.
    @Nullable public var apIdle: APIdleReport?
    public var findings: [Finding]
    public var notes: [String]
    public var status: Severity
}
