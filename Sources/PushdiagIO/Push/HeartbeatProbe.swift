import PushdiagCore

/// `pushdiag heartbeat`: a session held for `count` heartbeats on the interval, reconnecting
/// after a loss as a client SDK does, summed up in a `HeartbeatReport` whose findings the core
/// decides (`HeartbeatAnalysis.conclude`).
public final class HeartbeatProbe {
    let o: HeartbeatOptions
    let address: IPAddress?
    let stop: () -> Bool
    /// After each heartbeat: its number, the heartbeats answered so far, its round trip (nil:
    /// not answered). For progress on a terminal.
    public var onHeartbeat: ((_ n: Int, _ answered: Int, _ rttMs: Double?) -> Void)?
    /// Every heartbeat sent, with its time on the wall clock and its round trip: for the stalls.
    public private(set) var heartbeats: [StallAnalysis.Heartbeat] = []

    /// `heartbeat --interface`: the Wi-Fi link's events, joined with the bad heartbeats (stalls).
    let link: LinkFollower?

    /// `address`: connect there, the host already resolved (and checked: the exporter's /probe);
    /// else the host is resolved here. `link`: followed while the heartbeats run, for the stalls.
    public init(_ o: HeartbeatOptions, address: IPAddress? = nil, stop: @escaping () -> Bool = { false }, link: LinkFollower? = nil) {
        self.o = o
        self.address = address
        self.stop = stop
        self.link = link
    }

    public func run() -> HeartbeatReport {
        var report = HeartbeatReport(target: o.endpoint.description, protocol: o.proto.rawValue)
        let r0 = Clock.ms()
        let address: IPAddress
        switch self.address.map({ .success($0) }) ?? Resolver.resolve(o.endpoint.host) {
        case .success(let a): address = a
        case .failure(let f):
            report.states = [
                ConnectionState(timeNs: WallClock.nanoseconds(), state: .setup),
                ConnectionState(timeNs: WallClock.nanoseconds(), state: .preparing),
                ConnectionState(timeNs: WallClock.nanoseconds(), state: .failed, reason: f.description),
            ]
            HeartbeatAnalysis.conclude(&report, failure: f, options: o)
            return report
        }
        link?.start()
        let session = HeartbeatSession(o, address: address, stop: stop)
        session.state(.setup)
        session.state(.preparing)
        report.address = address.description
        report.resolveMs = Kept.ms(Clock.ms() - r0)
        var sent = 0
        var received = 0
        var rtts: [Double] = []
        var lost = false
        var failure: ConnectionFailure?
        do throws(ConnectionFailure) {
            do throws(ConnectionFailure) {
                try session.open()
            } catch {
                // The handshake may have got far enough to show the certificate: report it.
                report.tls = session.tlsInfo
                report.tlsMs = session.tlsMs.map(Kept.ms)
                report.connectMs = session.connectMs.map(Kept.ms)
                throw error
            }
            report.connectMs = session.connectMs.map(Kept.ms)
            report.tlsMs = session.tlsMs.map(Kept.ms)
            report.handshakeMs = session.handshakeMs.map(Kept.ms)
            report.tls = session.tlsInfo
            session.state(.ready)
            var cadence = HeartbeatCadence(o)
            for n in 1...max(o.count, 1) {
                if stop() { break }
                sent += 1
                var reconnected = HeartbeatSession.ReconnectOutcome.connected
                let outcome: HeartbeatOutcome
                let sentNs = WallClock.nanoseconds()
                do throws(ConnectionFailure) { outcome = try session.heartbeat(n) } catch {
                    // The heartbeat that met garbage was not answered, but it was not lost either.
                    if case .protocolViolation = error { sent -= 1 }
                    throw error
                }
                heartbeats.append(StallAnalysis.Heartbeat(sentNs: sentNs, rttMs: outcome.rttMs))
                if let ms = outcome.rttMs {
                    received += 1
                    rtts.append(ms)
                }
                onHeartbeat?(n, received, outcome.rttMs)
                if let loss = cadence.loss(after: outcome) {
                    reconnected = session.reconnect(after: loss)
                    cadence.restart()
                }
                // Lost only when the schedule ran out; a stop while reconnecting is not a loss.
                lost = reconnected == .exhausted
                if reconnected != .connected { break }
                let next = cadence.advance()
                if n < o.count { try session.wait(until: next) }
            }
            if !lost {
                session.close()
                session.state(.cancelled)
            }
        } catch {
            // Stopped while connecting (Ctrl-C during start-up): cancelled, not failed.
            if case .stopped = error {
                session.state(.cancelled, error.description)
            } else {
                failure = error
                session.state(.failed, error.description)
            }
        }
        report.sent = sent
        report.received = received
        report.rttMs = RTTSummary.of(rtts)
        report.rttsMsMeasured = rtts
        report.jitterMs = RTTSummary.jitter(rtts)
        report.states = session.states
        report.reconnects = session.reconnects
        report.connectionLost = lost
        if o.register != nil && o.proto.modes.contains(.register) {
            report.serverHeartbeats = ServerHeartbeats(
                registered: session.registeredAt != nil, arrivals: session.serverArrivals,
                registeredAt: session.registeredAt, acknowledged: session.serverAcknowledged,
                timeoutS: o.serverHeartbeatTimeoutS, endedAt: Clock.ms(), pathIdleTimeoutS: o.pathIdleTimeoutS)
        }
        if let link {
            let end = WallClock.nanoseconds()
            let log = link.finish()
            let stalls = StallAnalysis.explain(
                heartbeats: heartbeats, timeoutMs: o.heartbeatWaitMs, activities: log.finished(at: end), scansSeen: log.scansStarted)
            report.stalls = stalls.stalls
            report.stallSummary = stalls.summary
        }
        HeartbeatAnalysis.conclude(&report, failure: failure, options: o)
        return report
    }
}
