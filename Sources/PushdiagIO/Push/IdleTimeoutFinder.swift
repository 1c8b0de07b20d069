import Foundation
import PushdiagCore
import Synchronization

/// `heartbeat --find-idle-timeout`: one session per rung, all opened at once, each answered
/// once, left idle for its rung's time, then asked again. Each on its own thread (a rung is
/// mostly asleep); the core concludes (`IdleTimeoutReport.conclude`).
public final class IdleTimeoutFinder: Sendable {
    let o: HeartbeatOptions
    let rungs: [Double]
    let stop: @Sendable () -> Bool
    /// Each rung's result, by index, as its thread ends.
    let results = Mutex<[Int: IdleTimeout.Rung]>([:])

    public init(_ o: HeartbeatOptions, rungs: [Double], stop: @escaping @Sendable () -> Bool) {
        self.o = o
        self.rungs = rungs
        self.stop = stop
    }

    /// Every rung, then the conclusion. `progress` is called on this thread about twice a second
    /// while rungs are idle, with the rungs decided so far (in the ladder's order) and the seconds
    /// since the start.
    public func run(progress: (_ decided: [IdleTimeout.Rung], _ elapsedS: Double) -> Void = { _, _ in }) -> IdleTimeoutReport {
        let group = DispatchGroup()
        let start = Clock.ms()
        switch Resolver.resolve(o.endpoint.host) {
        case .failure(let f):
            let rungs = self.rungs.map { IdleTimeout.Rung.ended(after: $0, .notOpened, f.description) }
            return IdleTimeoutReport.conclude(target: o.endpoint.description, protocol: o.proto.rawValue, rungs: rungs, interrupted: false)
        case .success(let address):
            for (i, idle) in rungs.enumerated() {
                group.enter()
                Thread { [self] in
                    let r = probe(idle, address: address)
                    results.withLock { $0[i] = r }
                    group.leave()
                }.start()
            }
        }
        func decided() -> [IdleTimeout.Rung] { results.withLock { done in rungs.indices.compactMap { done[$0] } } }
        while group.wait(timeout: .now() + .milliseconds(500)) == .timedOut { progress(decided(), (Clock.ms() - start) / 1000) }
        let decided = decided()
        return IdleTimeoutReport.conclude(target: o.endpoint.description, protocol: o.proto.rawValue, rungs: decided, interrupted: stop())
    }

    /// One rung: open, one answered heartbeat, `idle` seconds of silence, one more heartbeat.
    func probe(_ idle: Double, address: IPAddress) -> IdleTimeout.Rung {
        // Not the server's own heartbeats: they would keep the path alive.
        var options = o
        options.register = nil
        let session = HeartbeatSession(options, address: address, stop: stop)
        do throws(ConnectionFailure) {
            try session.open()
            guard case .answered = try session.heartbeat(1) else {
                return .ended(after: idle, .notOpened, "the first heartbeat was not answered")
            }
        } catch {
            return .ended(after: idle, .notOpened, error.description)
        }
        defer { session.close() }
        guard Clock.sleep(ms: idle * 1000, stop: stop) else {
            return .ended(after: idle, .notOpened, "interrupted while idle")
        }
        do throws(ConnectionFailure) {
            switch try session.heartbeat(2) {
            case .answered(let ms): return .survived(after: idle, rttMs: Kept.ms(ms))
            case .unanswered:
                return .ended(after: idle, .blackHole, "no answer within \(DurationText.format(o.timeoutMs / 1000)), and no reset")
            case .connectionLost(let why): return Self.lost(idle, why)
            }
        } catch {
            return Self.lost(idle, error)
        }
    }

    static func lost(_ idle: Double, _ why: ConnectionFailure) -> IdleTimeout.Rung {
        let outcome: IdleTimeout.Outcome
        switch why {
        case .io(_, let e) where e.rawValue == ECONNRESET, .connect(_, let e) where e.rawValue == ECONNRESET: outcome = .reset
        case .closedByPeer(let s) where s.contains("reset"): outcome = .reset
        case .closedByPeer: outcome = .closed
        case .io(_, let e) where e.rawValue == EPIPE: outcome = .closed
        default: outcome = .blackHole
        }
        return .ended(after: idle, outcome, why.description)
    }
}
