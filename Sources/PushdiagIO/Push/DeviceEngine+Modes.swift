import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// The engine's two runs and what each hands the core: a `LoadReport`, a `StormMeasurement`.
extension DeviceEngine {
    /// `heartbeat --clients N`: every device connects once and sends --count heartbeats on the
    /// interval; the report says what was answered, lost, dropped and refused.
    public static func load(_ o: HeartbeatOptions, _ s: Settings, stop: () -> Bool) -> LoadReport {
        raiseFileLimit()
        func report(_ perClient: [LoadClientReport], rtts: [Double], seconds: Double, interrupted: Bool = false) -> LoadReport {
            LoadReport(
                target: o.endpoint.description, protocol: o.proto.rawValue, perClient: perClient, rtts: rtts, durationSeconds: seconds,
                thresholds: o.thresholds, interrupted: interrupted)
        }
        let engine: DeviceEngine
        do { engine = try DeviceEngine(o, s, drops: false) } catch {
            let why: String
            if case .resolve = error { why = "cannot resolve \(o.endpoint.host)" } else { why = error.description }
            let d = (0..<s.clients).map {
                LoadClientReport(client: $0 + 1, connected: false, sent: 0, received: 0, rtts: [], droppedOut: false, error: why, planned: 0)
            }
            return report(d, rtts: [], seconds: 0)
        }
        engine.run(stop: stop)
        defer { engine.closeAll() }
        // Interrupted: a heartbeat still within its timeout was neither answered nor lost, and
        // what a device had not yet had to send is not lost either; a device the server dropped
        // lost what it would have sent up to the stop. A device the ramp had not reached yet is
        // not in the report.
        let interrupted = engine.interrupted
        let end = engine.endedAt
        let per = engine.devices.filter(\.attempted).map { d -> LoadClientReport in
            if interrupted && d.pending && end - d.sentAt < o.timeoutMs { d.sent -= 1 }
            var planned = o.count
            if interrupted {
                planned = d.droppedOut || d.hungUp ? min(o.count, Int(((end - d.start) / max(o.intervalMs, 1)).rounded(.down)) + 1) : d.sent
            }
            return LoadClientReport(
                client: d.index + 1, connected: d.connected, sent: d.sent, received: d.received, rtts: d.rtts, droppedOut: d.droppedOut, hungUp: d.hungUp,
                error: d.error, planned: planned)
        }
        return report(per, rtts: engine.rtts, seconds: (end - engine.t0) / 1000, interrupted: interrupted)
    }

    /// `heartbeat --clients N --storm`: what each device went through before the drop and after
    /// it, for `StormReport.assemble`.
    public static func storm(_ o: HeartbeatOptions, _ s: Settings, stop: () -> Bool) -> StormMeasurement {
        raiseFileLimit()
        var m = StormMeasurement(o, jitter: s.jitter, settleSeconds: s.settleSeconds)
        let engine: DeviceEngine
        do { engine = try DeviceEngine(o, s, drops: true) } catch {
            m.devices = [StormDevice](repeating: StormDevice(), count: s.clients)
            m.failure = error
            return m
        }
        engine.run(stop: stop)
        m.interrupted = engine.interrupted
        m.dropped = engine.stage == .storm
        m.connectSeconds = engine.connectSeconds
        m.durationSeconds = (engine.endedAt - engine.t0) / 1000
        if !m.dropped { for d in engine.devices where d.phase == .up { d.record.upAtDrop = true } }
        m.devices = engine.devices.map(\.record)
        engine.closeAll()
        return m
    }

    /// Raises the descriptor limit to its hard maximum (one per simulated device, or per client
    /// the responder serves); returns it.
    @discardableResult
    public static func raiseFileLimit() -> Int {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return 1024 }
        if r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) != 0 { getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) }
        }
        return Int(min(r.rlim_cur, UInt(Int.max)))
    }

    /// Descriptors kept for everything but the devices (standard streams, libraries, epoll).
    static let reservedDescriptors = 32

    /// The most devices this process can simulate: one descriptor each, within its open-file
    /// limit (RLIMIT_NOFILE, raised to the hard limit).
    public static var maximumClients: Int { max(1, raiseFileLimit() - reservedDescriptors) }

    /// What a failed connect says: the open-file limit is this machine's, not the server's doing.
    static func connectFailure(_ error: ConnectionFailure) -> String {
        switch error {
        case .io(_, let e) where e == .tooManyOpenFiles || e == .tooManyOpenFilesInSystem:
            return "this machine's open-file limit (\(raiseFileLimit())) was reached: \(e); not the server's doing"
        default:
            return error.description
        }
    }
}
