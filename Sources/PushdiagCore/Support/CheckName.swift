/// What a finding or a survey row is about: the `check` of every report's JSON, a Nagios label's
/// first word and the `check` label of `pushdiag_check_status`. The raw value is the spelling the
/// reports have always written; a new check is a new case here.
public enum CheckName: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    // Wi-Fi: survey, wifi, capture, doctor.
    case channelUtilization = "channel_utilization"
    case frameRetries = "frame_retries"
    case retransmissions
    case signal
    case snr
    case roaming
    case roams
    // Walk.
    case roam
    case retries
    case stickyClient = "sticky_client"
    case link
    case pushConnection = "push_connection"
    // Route.
    case route
    // Push server: heartbeat, survey, report.
    case heartbeat
    case heartbeatLoss = "heartbeat_loss"
    case heartbeatRtt = "heartbeat_rtt"
    case serverHeartbeat = "server_heartbeat"
    case connect
    case `protocol`
    case tls
    case tlsCertificate = "tls_certificate"
    // Join: push-ready and the groups of steps.
    case pushReady = "push_ready"
    case joinLink = "join_link"
    case joinKeys = "join_keys"
    case joinAddress = "join_address"
    case joinName = "join_name"
    case joinPush = "join_push"
    /// `join --find-ap-idle`: what the AP does to a silent station.
    case apIdle = "ap_idle"
    // Idle timeout.
    case idleTimeout = "idle_timeout"
    case idleSurvived = "idle_survived"
    case idleInconsistent = "idle_inconsistent"
    case idleNotMeasured = "idle_not_measured"
    /// The server's heartbeat spacing against the longest safe interval a join found (`--join-limits`).
    case safeInterval = "safe_interval"
    case interrupted
    // Load and storm.
    case loadConnects = "load_connects"
    case loadDropouts = "load_dropouts"
    case loadProtocol = "load_protocol"
    case stormConnects = "storm_connects"
    case stormRetries = "storm_retries"
    case stormGaveUp = "storm_gave_up"
    case stormInterrupted = "storm_interrupted"
    case stormLocalLimits = "storm_local_limits"
}
