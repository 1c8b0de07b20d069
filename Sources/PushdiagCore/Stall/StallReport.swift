/// A bad heartbeat and what overlapped it (JSON `stalls[]`).
public struct Stall: Codable, Sendable, Equatable {
    /// When it was sent.
    public var time: String
    /// Its round trip; null when it was lost.
    @Nullable public var rttMs: Double?
    public var lost: Bool
    public var cause: StallCause
    /// What the kernel said of the overlapping activity; null for `none_seen`.
    @Nullable public var detail: String?
}

/// How many bad heartbeats one cause explains.
public struct StallCauseCount: Codable, Sendable, Equatable {
    public var cause: StallCause
    public var count: Int
}

/// Stalls of one cause that came back with the same period (within `StallAnalysis.tolerance`).
public struct PeriodicStall: Codable, Sendable, Equatable {
    public var cause: StallCause
    public var periodSeconds: Double
    /// How many times it came back at that period (at least `StallAnalysis.minimumRepeats`).
    public var occurrences: Int
    public var first: String
    public var last: String
}

/// JSON `stall_summary`: how bad heartbeats were picked, what explains them, which repeat, and
/// the share this machine caused itself.
public struct StallSummary: Codable, Sendable, Equatable {
    public var heartbeats: Int
    public var bad: Int
    public var lost: Int
    /// The run's p95 round trip and the `stall_margin` over it: a heartbeat slower than their sum
    /// is a stall. Null when no heartbeat was answered (only lost ones are stalls then).
    @Nullable public var p95Ms: Double?
    public var marginMs: Double
    @Nullable public var slowerThanMs: Double?
    /// Every cause, in the order of `StallCause.allCases` (zero counts included).
    public var byCause: [StallCauseCount]
    public var periodic: [PeriodicStall]
    /// The share of bad heartbeats this machine caused itself (`own_scan`), 0…1; null without bad
    /// heartbeats. A lower bound: a network event that overlapped the same heartbeat wins.
    @Nullable public var ownShare: Double?
    /// TRIGGER_SCAN events seen on the interface during the run (whoever asked).
    public var scansSeen: Int
    /// Scans pushdiag asked for (`walk --scan-every`), and the bad heartbeats they explain: the
    /// cost of asking.
    public var scansRequested: Int
    public var fromRequestedScans: Int
}

/// `stalls` and `stall_summary` together, as `walk`, `heartbeat` and the exporter decide them.
public struct StallReport: Sendable, Equatable {
    public var stalls: [Stall]
    public var summary: StallSummary
}
