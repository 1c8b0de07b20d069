/// The configuration file (`/etc/pushdiag/pushdiag.toml` by default): what a survey or a cron
/// report looks at when no flag says otherwise. Flags always win.
public struct PushdiagConfig: Sendable, Equatable {
    public struct Server: Sendable, Equatable {
        public var host: String
        public var port: UInt16?
        public var proto: String = "simplepush"
        public var tls = false
        public var pin: String?
        public var caFile: String?
        public var path: String?
        /// simplepush: register as this user and watch the server's own heartbeats.
        public var register: String?
        /// With `register`: the idle time after which the path forgets a connection (what
        /// `heartbeat --find-idle-timeout` found), seconds.
        public var idleTimeoutS: Double?
        /// The line of its [[server]] header, for messages.
        public var line: Int?
        public init(host: String) { self.host = host }
    }

    public var interface: String?
    public var monitor: String?
    public var duration: String?
    public var servers: [Server] = []
    /// [thresholds]: ranges as written, by key (`thresholdKeys`: utilization_warning, …, certificate_critical).
    public var thresholds: [String: String] = [:]
    public var history: String?
    public var textfile: String?
    /// `join_limits`: a join report with `ap_idle`, or a history holding joins (`join --history`);
    /// every server's heartbeat spacing is graded against the longest safe interval found.
    public var joinLimits: String?
    /// [walk]: the walk's limits by key (the walk's rows of `ThresholdRow`: ft_gap_warning, …, signal_critical).
    public var walk: [String: Double] = [:]
    /// [join]: the join's limits by key (the join's rows of `ThresholdRow`: push_ready_warning, …, join_push_critical).
    public var join: [String: Double] = [:]
    /// [exporter]: the resident process's own settings.
    public var exporter = Exporter()

    /// `[exporter]`: where `pushdiag exporter` listens, what it follows and how often.
    public struct Exporter: Sendable, Equatable {
        public var listen: String?
        /// Wireless interfaces to sample and follow (else the top-level `interface`).
        public var interfaces: [String]?
        /// Between heartbeats on each held session.
        public var interval: String?
        /// Between nl80211 samples of each interface.
        public var wifiInterval: String?
        /// At most this many /probe requests at once.
        public var maxProbes: Int?
        /// Where /probe may connect besides the configured servers (`ProbeAllowList`).
        public var probeAllow: [ProbeAllowRule]?
        public init() {}
    }

    public init() {}

    /// The [thresholds] keys: each survey row's warning and critical (`ThresholdRow`).
    public static let thresholdKeys = ThresholdRow.rows(.survey).flatMap { r in ThresholdRow.Level.allCases.map { r.key($0) } }
}

/// A configuration problem, named by file, line and key.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// One line: control characters the parser quotes from the file ("saw 'fals\n'") are escaped.
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(key.map { "\($0): " } ?? "")\(message)".oneLine
    }
}
