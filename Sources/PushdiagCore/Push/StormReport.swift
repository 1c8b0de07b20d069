/// `pushdiag heartbeat --clients N --storm`: N devices connected, then every connection dropped at
/// the same instant (an AP reboot, a controller failover), each device reconnecting on the SDK's
/// schedule with jitter. IO measures each device (`StormDevice`); this file decides what it means.

/// What IO measured of one simulated device.
public struct StormDevice: Sendable, Equatable {
    /// Connected, its first heartbeat answered, when the connections were dropped.
    public var upAtDrop = false
    /// Failed attempts before the drop (the first connect and its retries).
    public var failuresBeforeDrop: [ConnectionFailure] = []
    /// Back after the drop: connected (TLS and the protocol's handshake included) and its first
    /// heartbeat answered, this many milliseconds after the drop.
    public var backAfterMs: Double?
    /// Reconnect attempts after the drop, the successful one included.
    public var attempts = 0
    /// The failed ones, in order.
    public var failures: [ConnectionFailure] = []
    /// The reconnect schedule ran out.
    public var gaveUp = false
    /// TLS: whether the handshake that brought the device back resumed its earlier session.
    public var resumedOnReturn: Bool?

    public init() {}
}

/// What IO measured of a storm, for `StormReport.assemble`.
public struct StormMeasurement: Sendable {
    public var target: String
    public var `protocol`: String
    public var tls: Bool
    public var schedule: [Double]
    public var jitter: Double
    public var settleSeconds: Double
    public var devices: [StormDevice]
    /// From the first connect until every device was up or had given up.
    public var connectSeconds: Double = 0
    /// Whether the drop happened (a stop before it leaves no storm to report).
    public var dropped = false
    public var durationSeconds: Double = 0
    /// Stopped by SIGINT or SIGTERM.
    public var interrupted = false
    /// Nothing could be tried (the name does not resolve, no epoll).
    public var failure: ConnectionFailure?

}

extension StormMeasurement {
    /// A storm against the server of `o`, on its reconnect schedule, with the storm's own jitter and
    /// settle time; its devices are IO's to fill.
    public init(_ o: HeartbeatOptions, jitter: Double, settleSeconds: Double) {
        self.init(
            target: o.endpoint.description, protocol: o.proto.rawValue, tls: o.tls != nil, schedule: o.schedule, jitter: jitter, settleSeconds: settleSeconds,
            devices: [])
    }
}

/// Failed attempts by kind: the server's refusals (`ECONNREFUSED`), resets and hang-ups during a
/// handshake, timeouts, TLS and protocol failures, and this machine's own limits (no local
/// port left, the open-file limit), which are not the server's doing.
public struct StormFailureCounts: Codable, Sendable, Equatable {
    public var refused = 0
    public var reset = 0
    public var timeout = 0
    public var tls = 0
    public var `protocol` = 0
    public var local = 0
    public var other = 0

    public init() {}

    public var total: Int { refused + reset + timeout + tls + `protocol` + local + other }

    public enum Kind: String, Sendable, CaseIterable {
        case refused, reset, timeout, tls, `protocol`, local, other
    }

    /// The kind of a failed attempt, decided from the typed failure, never from its text.
    public static func kind(_ f: ConnectionFailure) -> Kind {
        switch f {
        case .connect(_, let e), .io(_, let e):
            switch e.rawValue {
            case Errno.connectionRefused.rawValue: return .refused
            case Errno.connectionReset.rawValue, Errno.brokenPipe.rawValue: return .reset
            case Errno.timedOut.rawValue: return .timeout
            case Errno.addressNotAvailable.rawValue, Errno.tooManyOpenFiles.rawValue, Errno.tooManyOpenFilesInSystem.rawValue: return .local
            default: return .other
            }
        case .closedByPeer: return .reset
        case .timeout: return .timeout
        case .tls: return .tls
        case .protocolViolation: return .protocol
        case .resolve, .stopped: return .other
        }
    }

    public mutating func add(_ f: ConnectionFailure) {
        switch Self.kind(f) {
        case .refused: refused += 1
        case .reset: reset += 1
        case .timeout: timeout += 1
        case .tls: tls += 1
        case .protocol: `protocol` += 1
        case .local: local += 1
        case .other: other += 1
        }
    }
}

/// Milliseconds after the drop until a share of the dropped devices was back; null when that
/// share never came back.
public struct StormRecovery: Codable, Sendable, Equatable {
    @Nullable public var p50Ms: Double?
    @Nullable public var p95Ms: Double?
    @Nullable public var p100Ms: Double?
    /// The first device back.
    @Nullable public var firstMs: Double?
}

/// Devices back per second: what the server completed (TCP accept, TLS and the protocol's
/// handshake, the first heartbeat answered), as the devices saw it.
public struct StormAcceptRate: Codable, Sendable, Equatable {
    /// Over the recovery: devices back ÷ seconds from the first back to the last.
    @Nullable public var meanPerSecond: Double?
    /// The busiest whole second after the drop.
    public var peakPerSecond: Int
    /// Devices back in each second after the drop (second 0 first).
    public var perSecond: [Int]
}

public struct StormReport: Codable, Sendable, Equatable {
    public var target: String
    public var `protocol`: String
    public var tls: Bool
    /// Simulated devices.
    public var devices: Int
    /// The reconnect schedule (seconds before each attempt) and its jitter (each delay times a
    /// factor drawn from 1 ± jitter).
    public var scheduleS: [Double]
    public var jitter: Double
    /// Before the drop: devices up, devices that never got up, failed attempts, how long it took.
    public var upBeforeDrop: Int
    public var failedBeforeDrop: Int
    public var failuresBeforeDrop: StormFailureCounts
    public var connectSeconds: Double
    public var settleSeconds: Double
    /// The drop and the storm that followed it.
    public var dropped: Int
    public var back: Int
    public var backPercent: Double
    public var recovery: StormRecovery
    public var attempts: Int
    public var failures: StormFailureCounts
    /// One example text per kind of failure, as people read it.
    public var failureExamples: [String]
    /// Devices whose schedule ran out before they were back.
    public var gaveUp: Int
    /// Neither back nor given up when the run was stopped.
    public var stillOut: Int
    /// TLS: handshakes that brought a device back by resuming its session, and full ones (null
    /// without TLS).
    @Nullable public var tlsResumed: Int?
    @Nullable public var tlsFull: Int?
    public var acceptRate: StormAcceptRate
    public var durationSeconds: Double
    public var interrupted: Bool
    public var findings: [Finding]
    public var status: Severity
    @Nullable public var error: String?

    /// The report and its verdict from what was measured.
    ///
    /// OK: every dropped device came back at its first attempt. WARNING: every one came back,
    /// but the server turned attempts away (refused, reset, timed out, failed a handshake): the
    /// storm cost devices a schedule step or more. CRITICAL: devices gave up (their schedule ran
    /// out: they would stay offline until something else wakes them), or some never connected
    /// before the drop. UNKNOWN: nothing could be tried, this machine's own limits (local ports,
    /// open files) failed attempts, so the server's part cannot be told, or a stop (SIGINT,
    /// SIGTERM) came before the storm ended.
    public static func assemble(_ m: StormMeasurement) -> StormReport {
        let upDevices = m.devices.filter(\.upAtDrop)
        var before = StormFailureCounts()
        for d in m.devices { for f in d.failuresBeforeDrop { before.add(f) } }
        var after = StormFailureCounts()
        var examples: [StormFailureCounts.Kind: String] = [:]
        for d in m.devices {
            for f in d.failuresBeforeDrop + d.failures {
                let k = StormFailureCounts.kind(f)
                if examples[k] == nil { examples[k] = "\(k.rawValue): \(f)" }
            }
            for f in d.failures { after.add(f) }
        }
        let backTimes = upDevices.compactMap(\.backAfterMs).sorted()
        let dropped = m.dropped ? upDevices.count : 0
        func share(_ p: Double) -> Double? {
            guard dropped > 0 else { return nil }
            let rank = NumberText.nearestRank(p, count: dropped)
            return rank <= backTimes.count ? Kept.ms(backTimes[rank - 1]) : nil
        }
        var perSecond: [Int] = []
        for t in backTimes {
            let s = max(0, Int(t / 1000))
            if perSecond.count <= s { perSecond += [Int](repeating: 0, count: s + 1 - perSecond.count) }
            perSecond[s] += 1
        }
        var mean: Double?
        if backTimes.count >= 2, let first = backTimes.first, let last = backTimes.last {
            mean = NumberText.rounded(Double(backTimes.count) / max((last - first) / 1000, 0.001), places: 10)
        }
        let resumed = m.tls ? upDevices.filter { $0.resumedOnReturn == true }.count : nil
        let full = m.tls ? upDevices.filter { $0.resumedOnReturn == false }.count : nil

        var report = StormReport(
            target: m.target, protocol: m.protocol, tls: m.tls, devices: m.devices.count, scheduleS: m.schedule, jitter: m.jitter,
            upBeforeDrop: upDevices.count, failedBeforeDrop: m.devices.count - upDevices.count, failuresBeforeDrop: before,
            connectSeconds: Kept.seconds(m.connectSeconds), settleSeconds: m.settleSeconds, dropped: dropped, back: backTimes.count,
            backPercent: NumberText.percent(backTimes.count, of: dropped) ?? 0,
            recovery: StormRecovery(p50Ms: share(0.5), p95Ms: share(0.95), p100Ms: share(1), firstMs: backTimes.first.map(Kept.ms)),
            attempts: m.dropped ? upDevices.reduce(0) { $0 + $1.attempts } : 0, failures: after,
            failureExamples: StormFailureCounts.Kind.allCases.compactMap { examples[$0] },
            gaveUp: upDevices.filter(\.gaveUp).count,
            stillOut: m.dropped ? upDevices.filter { $0.backAfterMs == nil && !$0.gaveUp }.count : 0,
            tlsResumed: resumed, tlsFull: full,
            acceptRate: StormAcceptRate(meanPerSecond: mean, peakPerSecond: perSecond.max() ?? 0, perSecond: perSecond),
            durationSeconds: Kept.seconds(m.durationSeconds), interrupted: m.interrupted, findings: [], status: .ok, error: m.failure?.description)
        // Nothing was attempted (the name did not resolve, the CA file could not be read): the
        // server is not to blame for devices that never tried.
        if m.failure != nil {
            report.status = .unknown
            return report
        }
        report.findings = StormAnalysis.findings(report)
        report.status = report.findings.map(\.severity).max() ?? .ok
        return report
    }
}

public enum StormAnalysis {
    /// The findings of a storm, from its counts (see `StormReport.assemble` for the verdicts).
    public static func findings(_ r: StormReport) -> [Finding] {
        let target = r.target
        var out: [Finding] = []
        if r.failedBeforeDrop > 0 {
            out.append(
                Finding(
                    check: .stormConnects, severity: .critical, subject: target, value: Double(r.failedBeforeDrop), threshold: 0, unit: "clients",
                    source: "storm",
                    message: "\(target): \(r.failedBeforeDrop) of \(r.devices) simulated devices could not connect before the drop"))
        }
        if r.gaveUp > 0 {
            out.append(
                Finding(
                    check: .stormGaveUp, severity: .critical, subject: target, value: Double(r.gaveUp), threshold: 0, unit: "clients", source: "storm",
                    message:
                        "\(target): \(r.gaveUp) of \(NumberText.count(r.dropped, "device")) gave up after the drop: every attempt of the reconnect schedule failed (\(describe(r.failures)))"
                ))
        }
        let local = r.failures.local + r.failuresBeforeDrop.local
        if local > 0 {
            out.append(
                Finding(
                    check: .stormLocalLimits, severity: .unknown, subject: target, value: Double(local), threshold: 0, unit: "attempts",
                    source: "storm",
                    message:
                        "\(target): \(NumberText.count(local, "attempt")) failed on this machine's own limits (local ports or open files), not the server's doing; the server's part cannot be told"
                ))
        }
        if r.interrupted, r.dropped == 0 || r.stillOut > 0 {
            out.append(
                Finding(
                    check: .stormInterrupted, severity: .unknown, subject: target, value: Double(r.stillOut), threshold: 0, unit: "clients",
                    source: "storm",
                    message: r.dropped == 0
                        ? "\(target): stopped before the drop: no storm was measured"
                        : "\(target): stopped before the storm ended: \(NumberText.count(r.stillOut, "device")) still out (neither back nor given up)"))
        }
        let turnedAway = r.failures.total - r.failures.local
        if r.gaveUp == 0, turnedAway > 0 {
            let p95 = r.recovery.p95Ms.map { "; 95% back after \(NumberText.format($0 / 1000)) s" } ?? ""
            out.append(
                Finding(
                    check: .stormRetries, severity: .warning, subject: target, value: Double(turnedAway), threshold: 0, unit: "attempts",
                    source: "storm",
                    message: "\(target): \(turnedAway) of \(r.attempts) reconnect attempts failed during the storm (\(describe(r.failures)))\(p95)"))
        }
        return out.sorted { $0.severity > $1.severity }
    }

    /// "12 refused, 3 timed out".
    public static func describe(_ c: StormFailureCounts) -> String {
        let parts = [
            (c.refused, "refused"), (c.reset, "reset or closed"), (c.timeout, "timed out"), (c.tls, "TLS failed"), (c.protocol, "protocol failed"),
            (c.local, "local limits"), (c.other, "other"),
        ]
        .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "none failed" : parts.joined(separator: ", ")
    }

    /// A schedule's delay with jitter: `delay` times 1 + jitter × (2u − 1), u in [0, 1).
    public static func jittered(_ delay: Double, jitter: Double, unit u: Double) -> Double {
        max(0, delay * (1 + jitter * (2 * u - 1)))
    }
}
