import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A reconnect storm (`heartbeat --clients N --storm`): N simulated devices connect (TLS and the
/// protocol's handshake included) and each has its first heartbeat answered; they hold their
/// connections for the settle time; then every connection is dropped at the same instant, as
/// when an AP reboots, and each device reconnects on the SDK's schedule with jitter until it is
/// back (connected, its first heartbeat answered) or its schedule runs out.
///
/// One thread: non-blocking sockets on epoll, non-blocking TLS (`TLSClientSession`), a deadline
/// heap for the schedule and the timeouts, so 10,000 devices cost what their traffic costs.
/// Each device keeps the TLS session of its last handshake and offers it on the next, as a
/// device's TLS stack does; the server decides whether to resume it.
public final class StormRunner {
    public struct Settings: Sendable {
        public var clients: Int
        /// Spread the first connects over this long.
        public var rampSeconds: Double = 0
        /// Hold every connection this long before the drop.
        public var settleSeconds: Double = 1
        /// Each schedule delay times a factor drawn from 1 ± jitter.
        public var jitter: Double = 0.5
        /// Seeds the jitter draws (the same seed, the same delays).
        public var seed: UInt64 = 1
        public init(clients: Int) { self.clients = clients }
    }

    enum Phase {
        /// Waiting for its next attempt.
        case idle
        case connecting, tlsHandshake, protocolHandshake, awaitingAnswer
        case up
        /// The schedule ran out.
        case gaveUp
        /// Not up when the connections were dropped: out of the storm.
        case out
    }

    final class Device {
        let index: Int
        var socket: Descriptor?
        var tls: TLSClientSession?
        var saved: TLSSavedSession?
        var phase = Phase.idle
        /// Invalidates deadlines set for an earlier phase.
        var serial: UInt64 = 0
        /// The schedule's next step.
        var step = 0
        var watching: EventPoll.Events = []
        /// When the attempt under way must be done (connected, handshakes, first answer).
        var attemptDeadline = 0.0
        /// The protocol's side of the connection, new with each attempt.
        var client: any PushClient
        var record = StormDevice()
        init(index: Int, client: any PushClient) {
            self.index = index
            self.client = client
        }
    }

    enum Stage { case connecting, settling, storm }

    let o: HeartbeatOptions
    let s: Settings
    var rng: SeededRandom

    public init(_ o: HeartbeatOptions, settings: Settings) {
        self.o = o
        s = settings
        rng = SeededRandom(seed: settings.seed)
    }

    public func run(stop: () -> Bool) -> StormMeasurement {
        LoadRunner.raiseFileLimit()
        let target = o.endpoint.description
        var m = StormMeasurement(
            target: target, protocol: o.proto.rawValue, tls: o.tls != nil, schedule: o.schedule, jitter: s.jitter, settleSeconds: s.settleSeconds,
            devices: [])
        let address: SocketAddress
        let events: EventPoll
        var context: TLSClientContext?
        do throws(ConnectionFailure) {
            switch Resolver.resolve(o.endpoint.host) {
            case .success(let a): address = SocketAddress(a, port: o.endpoint.port)
            case .failure(let f): throw f
            }
            events = try EventPoll()
            if let t = o.tls { context = try TLSClientContext(t) }
        } catch {
            m.devices = [StormDevice](repeating: StormDevice(), count: s.clients)
            m.failure = error
            return m
        }
        let pid = getpid()
        func client(_ index: Int) -> any PushClient { o.proto.definition.client(o, clientID: "pushdiag-\(pid)-\(index + 1)") }
        let devices = (0..<s.clients).map { Device(index: $0, client: client($0)) }
        var byFD: [Int32: Device] = [:]
        var timers = DeadlineHeap()
        var stage = Stage.connecting
        var busy = devices.count  // neither up nor out of the game
        var dropAt = 0.0
        var settleUntil = Double.infinity
        let t0 = Clock.ms()
        var buffer = [UInt8](repeating: 0, count: 16_384)

        func setPhase(_ d: Device, _ p: Phase) {
            let wasBusy = !(d.phase == .up || d.phase == .gaveUp || d.phase == .out)
            let isBusy = !(p == .up || p == .gaveUp || p == .out)
            if wasBusy && !isBusy { busy -= 1 } else if !wasBusy && isBusy { busy += 1 }
            d.phase = p
            d.serial &+= 1
        }
        func deadline(_ d: Device, _ at: Double) { timers.push(at: at, owner: d.index, serial: d.serial) }
        func watch(_ d: Device, _ e: EventPoll.Events) {
            guard let sock = d.socket, e != d.watching else { return }
            _ = events.modify(sock.rawValue, e)
            d.watching = e
        }
        func close(_ d: Device, abortive: Bool) {
            d.tls = nil
            if let sock = d.socket {
                if abortive {
                    // An RST now, as a device that lost its network and came back with new
                    // sockets leaves the server: no FIN handshake, no TIME_WAIT.
                    var l = linger(l_onoff: 1, l_linger: 0)
                    _ = setsockopt(sock.rawValue, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
                }
                byFD[sock.rawValue] = nil
            }
            d.socket = nil
            d.watching = []
        }
        /// Waits for the schedule's next step, or gives up when it has run out.
        func scheduleNext(_ d: Device, _ now: Double) {
            guard d.step < o.schedule.count else {
                d.record.gaveUp = stage == .storm
                setPhase(d, .gaveUp)
                return
            }
            let delay = StormAnalysis.jittered(o.schedule[d.step], jitter: s.jitter, unit: rng.next())
            d.step += 1
            setPhase(d, .idle)
            deadline(d, now + delay * 1000)
        }
        func fail(_ d: Device, _ f: ConnectionFailure, _ now: Double) {
            close(d, abortive: false)
            if stage == .storm { d.record.failures.append(f) } else { d.record.failuresBeforeDrop.append(f) }
            scheduleNext(d, now)
        }
        func send(_ d: Device, _ bytes: [UInt8], _ now: Double) -> Bool {
            guard let sock = d.socket else { return false }
            do throws(ConnectionFailure) {
                if let t = d.tls {
                    try t.write(bytes)
                } else {
                    let n = bytes.withUnsafeBytes { Glibc.send(sock.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n < 0 { throw .io("sending to \(target)", errno: .current) }
                    if n != bytes.count { throw .io("sending to \(target)", errno: .wouldBlock) }
                }
                return true
            } catch {
                fail(d, error, now)
                return false
            }
        }
        func heartbeat(_ d: Device, _ now: Double) {
            guard send(d, d.client.heartbeat(1), now) else { return }
            setPhase(d, .awaitingAnswer)
            deadline(d, d.attemptDeadline)
            watch(d, .readable)
        }
        /// TCP (and TLS) are up: the protocol's own handshake, or the first heartbeat.
        func beginProtocol(_ d: Device, _ now: Double) {
            if let hello = d.client.hello() {
                guard send(d, hello, now) else { return }
                d.phase = .protocolHandshake  // the connect deadline still holds
                watch(d, .readable)
            } else {
                heartbeat(d, now)
            }
        }
        func back(_ d: Device, _ now: Double) {
            setPhase(d, .up)
            d.step = 0
            if let t = d.tls, let kept = t.sessionToKeep() { d.saved = kept }
            if stage == .storm, d.record.upAtDrop, d.record.backAfterMs == nil {
                d.record.backAfterMs = now - dropAt
                d.record.resumedOnReturn = d.tls?.resumed
            }
            watch(d, .readable)
        }
        func advanceTLS(_ d: Device, _ now: Double) {
            guard let t = d.tls else { return }
            do throws(ConnectionFailure) {
                switch try t.handshake() {
                case .readable: watch(d, .readable)
                case .writable: watch(d, .writable)
                case .done:
                    if let why = t.pinRefusal() { throw .tls(why) }
                    beginProtocol(d, now)
                }
            } catch {
                fail(d, error, now)
            }
        }
        func connected(_ d: Device, _ now: Double) {
            guard let ctx = context, let sock = d.socket else { return beginProtocol(d, now) }
            do throws(ConnectionFailure) {
                d.tls = try TLSClientSession(fd: sock.rawValue, peer: target, context: ctx, resuming: d.saved)
            } catch {
                return fail(d, error, now)
            }
            d.phase = .tlsHandshake
            advanceTLS(d, now)
        }
        func attempt(_ d: Device, _ now: Double) {
            if stage == .storm { d.record.attempts += 1 }
            setPhase(d, .connecting)
            d.client = client(d.index)
            let sock: Descriptor
            switch TCPConnection.socket(family: address.family) {
            case .success(let x): sock = x
            case .failure(let e): return fail(d, .io("cannot open a socket to \(target)", errno: e), now)
            }
            d.socket = sock
            byFD[sock.rawValue] = d
            d.attemptDeadline = now + o.connectTimeoutMs
            deadline(d, d.attemptDeadline)
            let rc = address.withSockaddr { Glibc.connect(sock.rawValue, $0, $1) }
            let e = Errno.current
            guard case .success = events.add(sock.rawValue, .writable) else { return fail(d, .io("epoll", errno: .current), now) }
            d.watching = .writable
            if rc == 0 { return connected(d, now) }
            if e != .inProgress && e != .interrupted { return fail(d, .connect(host: target, errno: e), now) }
        }
        func readable(_ d: Device, _ now: Double) {
            guard let sock = d.socket else { return }
            var got: [UInt8] = []
            var ended = false
            do throws(ConnectionFailure) {
                while true {
                    let n: Int?
                    if let t = d.tls {
                        let r = buffer.withUnsafeMutableBytes { b in Result { () throws(ConnectionFailure) in try t.read(into: b) } }
                        n = try r.get()
                    } else {
                        let r = buffer.withUnsafeMutableBytes { b in recv(sock.rawValue, b.baseAddress, b.count, 0) }
                        if r < 0 {
                            let e = Errno.current
                            if e == .wouldBlock || e == .interrupted { n = nil } else { throw .io("receiving from \(target)", errno: e) }
                        } else {
                            n = r
                        }
                    }
                    guard let n else { break }
                    if n == 0 {
                        ended = true
                        break
                    }
                    got += buffer[0..<n]
                    if d.tls == nil && n < buffer.count { break }
                }
            } catch {
                return d.phase == .up ? lost(d, error, now) : fail(d, error, now)
            }
            if !got.isEmpty { process(d, got, now) }
            guard d.socket != nil else { return }
            if ended {
                let f = ConnectionFailure.closedByPeer("\(target): the server closed the connection")
                if d.phase == .up { lost(d, f, now) } else { fail(d, f, now) }
            }
        }
        /// An established connection the server ended: the device starts its schedule again.
        func lost(_ d: Device, _ f: ConnectionFailure, _ now: Double) {
            d.step = 0
            fail(d, f, now)
        }
        func process(_ d: Device, _ bytes: [UInt8], _ now: Double) {
            let events: [PushClientEvent]
            do throws(ConnectionFailure) { events = try d.client.receive(bytes[...]) } catch { return fail(d, error, now) }
            for e in events {
                switch e {
                case .opened where d.phase == .protocolHandshake: heartbeat(d, now)
                case .answered where d.phase == .awaitingAnswer: back(d, now)
                case .reply(let answer): _ = send(d, answer, now)
                default: break
                }
                guard d.socket != nil else { return }
            }
        }
        func drop(_ now: Double) {
            dropAt = now
            stage = .storm
            for d in devices {
                if d.phase == .up {
                    d.record.upAtDrop = true
                    close(d, abortive: true)
                    d.step = 0
                    scheduleNext(d, now)
                } else {
                    close(d, abortive: false)
                    setPhase(d, .out)
                }
            }
        }

        for d in devices { deadline(d, t0 + s.rampSeconds * 1000 * Double(d.index) / Double(max(1, devices.count))) }
        while !stop() {
            var now = Clock.ms()
            while let entry = timers.popDue(now) {
                let d = devices[entry.owner]
                guard entry.serial == d.serial else { continue }
                switch d.phase {
                case .idle: attempt(d, now)
                case .connecting, .tlsHandshake, .protocolHandshake:
                    fail(d, .timeout("connecting to \(target) (TCP, TLS and the \(o.proto.rawValue) handshake)"), now)
                case .awaitingAnswer: fail(d, .timeout("waiting for the answer to the first heartbeat from \(target) (within the connect timeout)"), now)
                case .up, .gaveUp, .out: break
                }
                now = Clock.ms()
            }
            if stage == .connecting, busy == 0 {
                m.connectSeconds = (now - t0) / 1000
                stage = .settling
                settleUntil = now + s.settleSeconds * 1000
            }
            if stage == .settling, now >= settleUntil {
                settleUntil = .infinity
                drop(now)
                continue
            }
            if stage == .storm, busy == 0 { break }
            let next = min(timers.earliest ?? .infinity, settleUntil)
            let waitMs = Int32(max(0, min(100, (next - now).rounded(.up))))
            events.wait(timeoutMs: waitMs) { fd, ready in
                guard let d = byFD[fd] else { return }
                let t = Clock.ms()
                switch d.phase {
                case .connecting:
                    guard let sock = d.socket else { return }
                    if let e = Syscall.pendingError(sock.rawValue) { return fail(d, .connect(host: target, errno: e), t) }
                    connected(d, t)
                case .tlsHandshake: advanceTLS(d, t)
                case .protocolHandshake, .awaitingAnswer, .up:
                    if ready.contains(.writable) && !ready.contains(.readable) { return watch(d, .readable) }
                    readable(d, t)
                case .idle, .gaveUp, .out: break
                }
            }
        }
        m.interrupted = stop()
        m.dropped = stage == .storm
        if stage == .connecting { m.connectSeconds = (Clock.ms() - t0) / 1000 }
        m.durationSeconds = (Clock.ms() - t0) / 1000
        if !m.dropped { for d in devices where d.phase == .up { d.record.upAtDrop = true } }
        m.devices = devices.map(\.record)
        for d in devices { close(d, abortive: false) }
        return m
    }
}
