import PushdiagCore
import Synchronization

/// The exporter's own metric families (`MetricFamily`, in the core with the families the
/// textfiles share): every family is declared once, so a name always comes with the same help
/// and type.
extension MetricFamily {
    // The held sessions: labels target, protocol.
    static let sent = MetricFamily(name: "pushdiag_heartbeats_sent_total", help: "Heartbeats sent on the held session.", kind: .counter)
    static let answered = MetricFamily(
        name: "pushdiag_heartbeats_answered_total", help: "Heartbeats answered within the timeout.", kind: .counter)
    static let lost = MetricFamily(
        name: "pushdiag_heartbeats_lost_total", help: "Heartbeats not answered within the timeout, or lost with the connection.", kind: .counter)
    static let up = MetricFamily(
        name: "pushdiag_session_up", help: "1 while the held session is connected (ready), else 0.", kind: .gauge)
    static let losses = MetricFamily(
        name: "pushdiag_session_losses_total", help: "Times the held session was taken for lost (closed, reset, or heartbeats unanswered).",
        kind: .counter)
    static let attempts = MetricFamily(
        name: "pushdiag_session_reconnect_attempts_total", help: "Reconnect attempts on the SDK schedule, by result (connected, failed).",
        kind: .counter)
    static let reestablish = MetricFamily(
        name: "pushdiag_session_reestablish_seconds", help: "From a loss to the session being ready again.",
        kind: .histogram([0.5, 1, 2, 4, 8, 16, 32, 64, 128, 300]))
    static let serverLast = MetricFamily(
        name: "pushdiag_server_heartbeat_last_timestamp_seconds", help: "When the server's own heartbeat last came (simplepush, registered; Unix time).",
        kind: .gauge)
    static let serverGap = MetricFamily(
        name: "pushdiag_server_heartbeat_gap_seconds", help: "Gaps between the server's own heartbeats (iOS reconnects after its interval).",
        kind: .histogram([1, 5, 10, 15, 20, 30, 45, 60, 90, 120, 300]))
    static let serverLastGap = MetricFamily(
        name: "pushdiag_server_heartbeat_last_gap_seconds", help: "The last gap between two of the server's own heartbeats (its interval in use).",
        kind: .gauge)
    static let pathIdleTimeout = MetricFamily(
        name: "pushdiag_path_idle_timeout_seconds",
        help: "The idle time after which the path forgets a connection, as configured (idle_timeout: what heartbeat --find-idle-timeout found).",
        kind: .gauge)

    // Wi-Fi: label interface (and what says where a value came from).
    static let wifiUp = MetricFamily(
        name: "pushdiag_wifi_up", help: "1 when the last nl80211 sample of the interface worked, else 0.", kind: .gauge)
    static let unknown = MetricFamily(
        name: "pushdiag_wifi_value_unknown",
        help:
            "1 for a Wi-Fi value the driver does not measure or could not give (value: utilization, retransmission, signal, iphone_lens), with the reason.",
        kind: .gauge)
    static let roams = MetricFamily(
        name: "pushdiag_roams_total",
        help:
            "Roams of the interface by grade (ok, warning, critical: link gap, 802.11r, SSID change) and result (fast_transition: completed by 802.11r; fast_transition_failed: 802.11r failed and the station joined again; other).",
        kind: .counter)
    static let roamGap = MetricFamily(
        name: "pushdiag_roam_gap_seconds",
        help:
            "Link gaps of roams, disconnect to connect (0 for a roam the kernel made without a disconnect); a roam whose gap was not reported is not observed (pushdiag_roams_total counts it).",
        kind: .histogram([0.01, 0.025, 0.05, 0.08, 0.1, 0.15, 0.3, 0.5, 1, 2, 5, 10]))
    static let fastTransitionFailures = MetricFamily(
        name: "pushdiag_fast_transition_failures_total",
        help:
            "802.11r fast transitions of the interface that failed, by stage (authentication or reassociation: the target AP refused it; keys: the link was dropped before the keys held), whether the station joined again within the roam window (also a roam, result=\"fast_transition_failed\") or after it (the connect that ended the outage).",
        kind: .counter)
    static let stalls = MetricFamily(
        name: "pushdiag_stalls_total",
        help:
            "Heartbeats lost or slower than the last \(StallCounter.window)'s p95 by \(NumberText.format(ThresholdRow.stallMargin.warning)) ms (stall_margin), by what this machine's followed interfaces did meanwhile: own_scan, channel_switch, radar, roam, disconnect, link_change, or none_seen (the network or the server).",
        kind: .counter)
    // Through the iPhone's eyes (IPhoneLens) at each sample, from the scan cache's fresh entries
    // and the scans whose results came; the numbers are the lens's rows (IOSRoamingRule).
    static let lensRoam = MetricFamily(
        name: "pushdiag_iphone_would_roam",
        help:
            "1 when an iPhone on this BSS would roam now by iOS's rules (below \(NumberText.format(IOSRoamingRule.trigger.value)) dBm, to a BSS of the SSID \(NumberText.format(IOSRoamingRule.marginWithTraffic.value)) dB stronger passing traffic, traffic=\"true\", or \(NumberText.format(IOSRoamingRule.marginIdle.value)) dB idle, traffic=\"false\"), else 0; absent when no scan's results came and no scan cache entry but the AP's own (its beacons keep it fresh) is at most \(NumberText.format(IOSRoamingRule.staleAfter.value / 1000)) s old, or a BSS of the SSID no scan reached lately may be taken as last heard (pushdiag_wifi_value_unknown says so).",
        kind: .gauge)
    static let lensMargin = MetricFamily(
        name: "pushdiag_iphone_candidate_margin_db",
        help:
            "The strongest other BSS of the SSID in the scan cache (entries at most \(NumberText.format(IOSRoamingRule.staleAfter.value / 1000)) s old) less the AP's signal, dB; absent when there is none.",
        kind: .gauge)
    static let coverageBSS = MetricFamily(
        name: "pushdiag_roaming_coverage_bss",
        help:
            "BSSs of the SSID at \(NumberText.format(IOSRoamingRule.coverage.value)) dBm or better, the AP's own signal and scan cache entries at most \(NumberText.format(IOSRoamingRule.staleAfter.value / 1000)) s old: 1 alone leaves a roam nowhere to go (secondary coverage); absent when no scan reached the sample or a BSS of the SSID no scan reached lately was at the level when last heard (pushdiag_wifi_value_unknown says so).",
        kind: .gauge)
    static let cochannelBSS = MetricFamily(
        name: "pushdiag_cochannel_bss",
        help:
            "Other BSSs of any SSID on the AP's channel at \(NumberText.format(IOSRoamingRule.coChannel.value)) dBm or better (scan cache entries at most \(NumberText.format(IOSRoamingRule.staleAfter.value / 1000)) s old): they share its airtime.",
        kind: .gauge)
    static let disconnects = MetricFamily(
        name: "pushdiag_disconnects_total", help: "Disconnects of the interface (a roam made through a disconnect counts here and as a roam).",
        kind: .counter)

    // The exporter itself.
    static let reloadOK = MetricFamily(
        name: "pushdiag_exporter_config_last_reload_successful", help: "1 when the last configuration (re)load worked.", kind: .gauge)
    static let reloadTime = MetricFamily(
        name: "pushdiag_exporter_config_last_reload_success_timestamp_seconds", help: "When the configuration was last loaded (Unix time).",
        kind: .gauge)
    static let probesInFlight = MetricFamily(name: "pushdiag_exporter_probes_in_flight", help: "/probe requests being answered.", kind: .gauge)
    static let probesRefused = MetricFamily(
        name: "pushdiag_exporter_probes_refused_total",
        help:
            "/probe requests refused, by reason (max_probes: that many were running; rate_limited: the client asked more often than \(NumberText.format(ClientRateLimit.perSecond)) a second after a burst of \(NumberText.format(ClientRateLimit.burst)); not_allowed: neither a configured server nor in probe_allow; resolved_outside: a name resolving outside probe_allow; unresolved: such a name that did not resolve).",
        kind: .counter)
    static let buildInfo = MetricFamily(name: "pushdiag_exporter_build_info", help: "pushdiag's version, as a label.", kind: .gauge)

    // A /probe's answer (its own registry, blackbox_exporter's names): no labels unless given.
    static let probeSuccess = MetricFamily(
        name: "probe_success",
        help: "1 when heartbeats were answered and no threshold was critical (a certificate's days left aside: probe_ssl_earliest_cert_expiry).", kind: .gauge)
    static let probeDuration = MetricFamily(name: "probe_duration_seconds", help: "How long the probe took.", kind: .gauge)
    static let probeStatus = MetricFamily(
        name: "probe_status", help: "The check's status as the Monitoring Plugins say it (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).", kind: .gauge)
    static let probeSent = MetricFamily(name: "probe_heartbeats_sent", help: "Heartbeats this probe sent.", kind: .gauge)
    static let probeAnswered = MetricFamily(name: "probe_heartbeats_answered", help: "Heartbeats answered within the timeout.", kind: .gauge)
    /// Label stat: min, median, p95, max.
    static let probeRTT = MetricFamily(name: "probe_heartbeat_rtt_seconds", help: "Round trips of this probe's heartbeats.", kind: .gauge)
    /// Label phase: connect, tls, handshake.
    static let probePhase = MetricFamily(name: "probe_connect_phase_seconds", help: "Time of each phase of connecting.", kind: .gauge)
    static let probeCertExpiry = MetricFamily(
        name: "probe_ssl_earliest_cert_expiry", help: "When the server's certificate expires (Unix time).", kind: .gauge)
}

/// The metrics one owner (a session, an interface) made, so they can be removed together when
/// the owner goes (its target left the configuration) or when a label changes (a new source).
/// Safe from any thread.
public final class MetricSet: Sendable {
    struct Key: Hashable {
        var name: String
        /// name, value, name, value, …
        var labels: [String]
        func has(_ pair: (String, String)) -> Bool {
            stride(from: 0, to: labels.count - 1, by: 2).contains { labels[$0] == pair.0 && labels[$0 + 1] == pair.1 }
        }
    }
    let registry: MetricRegistry
    let base: [(String, String)]
    let made = Mutex<[Key: MetricRegistry.Series]>([:])

    init(registry: MetricRegistry, labels: [(String, String)]) {
        self.registry = registry
        base = labels
    }

    func key(_ f: MetricFamily, _ labels: [(String, String)]) -> Key {
        Key(name: f.name, labels: (base + labels).flatMap { [$0.0, $0.1] })
    }

    /// Notes a series of `f` under `labels` as this set's, so that it goes with the set.
    func own<M: Sendable>(
        _ f: MetricFamily, _ labels: [(String, String)], _ existing: (MetricRegistry.Series) -> M?, make: (MetricFamily, [(String, String)]) -> M,
        _ series: (M) -> MetricRegistry.Series
    ) -> M {
        let k = key(f, labels)
        // One lock for the look and the make, so that a removal beside it cannot leave a series
        // the set no longer knows (the registry's lock is taken inside this one, never around it).
        return made.withLock { m in
            if let known = m[k].flatMap(existing) { return known }
            let metric = make(f, base + labels)
            m[k] = series(metric)
            return metric
        }
    }

    public func counter(_ f: MetricFamily, _ labels: [(String, String)] = []) -> Counter {
        own(f, labels, \.counter, make: registry.counter) { .counter($0) }
    }

    public func gauge(_ f: MetricFamily, _ labels: [(String, String)] = []) -> Gauge {
        own(f, labels, \.gauge, make: registry.gauge) { .gauge($0) }
    }

    public func histogram(_ f: MetricFamily, _ labels: [(String, String)] = []) -> ValueHistogram {
        own(f, labels, \.histogram, make: registry.histogram) { .histogram($0) }
    }

    /// Sets the gauge of `f` to `value` under `labels`, removing any other series of `f` this
    /// set made with the `scope` labels (one value per family and scope: a changed source or
    /// BSSID replaces the old series); nil removes them all.
    public func only(_ f: MetricFamily, _ labels: [(String, String)], _ value: Double?, scope: [(String, String)] = []) {
        let k = key(f, labels)
        let stale = made.withLock { m -> [MetricRegistry.Series] in
            let old = m.filter { e in
                e.key.name == f.name && scope.allSatisfy { e.key.has($0) } && (value == nil || e.key != k)
            }
            for o in old.keys { m[o] = nil }
            return Array(old.values)
        }
        stale.forEach(registry.remove)
        if let value { gauge(f, labels).set(value) }
    }

    /// Runs `body`, whose changes a scrape sees all at once or not at all (`MetricRegistry.together`).
    public func together(_ body: () -> Void) { registry.together(body) }

    /// Removes every series this set made.
    public func removeAll() {
        let all = made.withLock { m -> [MetricRegistry.Series] in
            defer { m = [:] }
            return Array(m.values)
        }
        all.forEach(registry.remove)
    }
}
