import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Many simulated devices against one push server, from one thread: non-blocking sockets on
/// epoll (`EventPoll`), non-blocking TLS (`TLSClientSession`), a deadline heap for every schedule
/// and timeout, so 10,000 devices cost what their traffic costs.
///
/// Every device lives the same life: at its place in the ramp it connects (TCP, TLS, the
/// protocol's hello), sends heartbeats and matches their answers through its protocol's
/// `PushClient`; when an attempt fails or its connection ends it waits for the next step of its
/// reconnect schedule, or gives up when the schedule has run out. The two modes differ only in
/// that schedule, in what completes an attempt and in the drop:
/// - load (`heartbeat --clients N`, `DeviceEngine.load`): no schedule (one attempt); once open, a
///   device sends --count heartbeats on the interval, each answered within --timeout or lost; the
///   run ends when every device has sent its last or lost its connection.
/// - storm (`--clients N --storm`, `DeviceEngine.storm`): an attempt is done when the first
///   heartbeat is answered, within the connect timeout; once every device is up or has given up,
///   they hold their connections for the settle time, then every connection is dropped at the
///   same instant, as when an AP reboots, and each device reconnects on the SDK's schedule with
///   jitter until it is back or its schedule runs out.
///
/// A load run is a storm without the drop. Each device keeps the TLS session of its last
/// handshake and offers it on the next, as a device's TLS stack does; the server decides whether
/// to resume it. The engine owns every device and descriptor; nothing leaves its thread.
public final class DeviceEngine {
    public struct Settings: Sendable {
        public var clients: Int
        /// Spread the first connects over this long.
        public var rampSeconds: Double = 0
        /// Storm: hold every connection this long before the drop.
        public var settleSeconds: Double = 1
        /// Storm: each schedule delay times a factor drawn from 1 ± jitter.
        public var jitter: Double = 0.5
        /// Seeds the jitter draws (the same seed, the same delays).
        public var seed: UInt64 = 1
        public init(clients: Int, rampSeconds: Double = 0) {
            self.clients = clients
            self.rampSeconds = rampSeconds
        }
    }

    enum Phase {
        /// Waiting for its next attempt.
        case idle
        case connecting, tlsHandshake, protocolHandshake
        /// Storm: the first heartbeat is out; its answer completes the attempt.
        case awaitingAnswer
        /// Load: heartbeats on the interval.
        case beating
        /// Holding its connection (storm: its first heartbeat answered; load: its last one
        /// answered or lost).
        case up
        /// The schedule ran out.
        case gaveUp
        /// Not up when the connections were dropped: out of the storm.
        case out

        /// Neither trying nor sending: the run's stages do not wait for it.
        var settled: Bool { self == .up || self == .gaveUp || self == .out }
    }

    final class Device {
        let index: Int
        var socket: Descriptor?
        var tls: TLSClientSession?
        var saved: TLSSavedSession?
        var phase = Phase.idle
        /// Invalidates every deadline but the last one set (and those set for an earlier phase).
        var serial: UInt64 = 0
        /// The schedule's next step.
        var step = 0
        var watching: EventPoll.Events = []
        /// The ramp has reached it.
        var attempted = false
        /// When the attempt under way began, and when it must be done (connected, handshakes;
        /// storm: the first answer).
        var start = 0.0
        var attemptDeadline = 0.0
        /// The protocol's side of the connection, new with each attempt.
        var client: any PushClient
        /// Heartbeats sent on this connection; whether the last one awaits its answer.
        var sent = 0
        var pending = false
        var sentAt = 0.0
        /// Load: when the next heartbeat is due (one interval after the one before, from the start).
        var nextSend = 0.0
        /// What a load report reads of the device: TCP connected, answers and their round trips,
        /// and how it ended (the server closed it, it hung up on a protocol error).
        var connected = false
        var received = 0
        var rtts: [Double] = []
        var droppedOut = false
        var hungUp = false
        var error: String?
        /// What a storm report reads.
        var record = StormDevice()
        init(index: Int, client: any PushClient) {
            self.index = index
            self.client = client
        }
    }

    enum Stage { case connecting, settling, storm }

    let o: HeartbeatOptions
    let s: Settings
    /// Storm: the first answer completes an attempt, failed attempts are retried on the
    /// schedule, and the connections are dropped after the settle time.
    let drops: Bool
    let schedule: [Double]
    var rng: SeededRandom
    let target: String
    let address: SocketAddress
    let events: EventPoll
    let context: TLSClientContext?
    let pid = getpid()
    var devices: [Device] = []
    var byFD: [Int32: Device] = [:]
    var timers = DeadlineHeap()
    var stage = Stage.connecting
    /// Devices not settled (trying, or load devices with heartbeats to send).
    var busy = 0
    var t0 = 0.0
    var dropAt = 0.0
    var settleUntil = Double.infinity
    var buffer = [UInt8](repeating: 0, count: 16_384)
    /// Every answered heartbeat's round trip, in the order they came.
    var rtts: [Double] = []
    /// From the first connect until every device was up or had given up (or the stop).
    var connectSeconds = 0.0
    var endedAt = 0.0
    var interrupted = false

    /// Resolves the server, opens the epoll instance and the TLS context; what fails here fails
    /// every device before it tries.
    init(_ o: HeartbeatOptions, _ s: Settings, drops: Bool) throws(ConnectionFailure) {
        self.o = o
        self.s = s
        self.drops = drops
        schedule = drops ? o.schedule : []
        rng = SeededRandom(seed: s.seed)
        target = o.endpoint.description
        switch Resolver.resolve(o.endpoint.host) {
        case .success(let a): address = SocketAddress(a, port: o.endpoint.port)
        case .failure(let f): throw f
        }
        events = try EventPoll()
        context = try o.tls.map { t throws(ConnectionFailure) in try TLSClientContext(t) }
        devices = (0..<s.clients).map { Device(index: $0, client: client($0)) }
        busy = devices.count
    }

    func client(_ index: Int) -> any PushClient { o.proto.definition.client(o, clientID: "pushdiag-\(pid)-\(index + 1)") }

    /// Runs until every device is settled (storm: after the drop) or `stop()` says so.
    func run(stop: () -> Bool) {
        t0 = Clock.ms()
        for d in devices { deadline(d, t0 + s.rampSeconds * 1000 * Double(d.index) / Double(max(1, devices.count))) }
        while !stop() {
            var now = Clock.ms()
            while let entry = timers.popDue(now) {
                let d = devices[entry.owner]
                guard entry.serial == d.serial else { continue }
                due(d, now)
                now = Clock.ms()
            }
            if stage == .connecting, busy == 0 {
                connectSeconds = (now - t0) / 1000
                guard drops else { break }
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
            events.wait(timeoutMs: waitMs) { fd, ready in self.ready(fd, ready) }
        }
        interrupted = stop()
        endedAt = Clock.ms()
        if stage == .connecting { connectSeconds = (endedAt - t0) / 1000 }
    }

    /// Closes every connection (the run is over).
    func closeAll() { for d in devices { close(d, abortive: false) } }

    // MARK: - Phases and deadlines

    func setPhase(_ d: Device, _ p: Phase) {
        if !d.phase.settled && p.settled { busy -= 1 } else if d.phase.settled && !p.settled { busy += 1 }
        d.phase = p
        d.serial &+= 1
    }

    /// The device's one live deadline.
    func deadline(_ d: Device, _ at: Double) {
        d.serial &+= 1
        timers.push(at: at, owner: d.index, serial: d.serial)
    }

    func due(_ d: Device, _ now: Double) {
        switch d.phase {
        case .idle: attempt(d, now)
        case .connecting, .tlsHandshake, .protocolHandshake:
            let what = drops ? "connecting to \(target) (TCP, TLS and the \(o.proto.rawValue) handshake)" : "connecting to \(target)"
            fail(d, .timeout(what), now)
        case .awaitingAnswer: fail(d, .timeout("waiting for the answer to the first heartbeat from \(target) (within the connect timeout)"), now)
        case .beating: beat(d, now)
        case .up, .gaveUp, .out: break
        }
    }

    /// What epoll reported for `fd`.
    func ready(_ fd: Int32, _ ready: EventPoll.Events) {
        guard let d = byFD[fd] else { return }
        let t = Clock.ms()
        switch d.phase {
        case .connecting:
            guard let sock = d.socket else { return }
            if let e = Syscall.pendingError(sock.rawValue) { return fail(d, .connect(host: target, errno: e), t) }
            connected(d, t)
        case .tlsHandshake: advanceTLS(d, t)
        case .protocolHandshake, .awaitingAnswer, .beating, .up:
            if ready.contains(.writable) && !ready.contains(.readable) { return watch(d, .readable) }
            readable(d, t)
        case .idle, .gaveUp, .out: break
        }
    }

    func watch(_ d: Device, _ e: EventPoll.Events) {
        guard let sock = d.socket, e != d.watching else { return }
        _ = events.modify(sock.rawValue, e)
        d.watching = e
    }

    func close(_ d: Device, abortive: Bool) {
        d.tls = nil
        if let sock = d.socket {
            if abortive {
                // An RST now, as a device that lost its network and came back with new sockets
                // leaves the server: no FIN handshake, no TIME_WAIT.
                var l = linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(sock.rawValue, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
            }
            byFD[sock.rawValue] = nil
        }
        d.socket = nil
        d.watching = []
    }

    // MARK: - An attempt: TCP, TLS, the protocol's hello

    func attempt(_ d: Device, _ now: Double) {
        if stage == .storm { d.record.attempts += 1 }
        setPhase(d, .connecting)
        d.client = client(d.index)
        d.attempted = true
        d.start = now
        d.nextSend = now
        d.sent = 0
        d.pending = false
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

    /// TCP is up: TLS, when asked for, or the protocol.
    func connected(_ d: Device, _ now: Double) {
        d.connected = true
        guard let ctx = context, let sock = d.socket else { return beginProtocol(d, now) }
        do throws(ConnectionFailure) {
            d.tls = try TLSClientSession(fd: sock.rawValue, peer: target, context: ctx, resuming: d.saved)
        } catch {
            return fail(d, error, now)
        }
        d.phase = .tlsHandshake  // the connect deadline still holds
        advanceTLS(d, now)
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

    /// TCP (and TLS) are up: the protocol's own handshake, or straight to the heartbeats.
    func beginProtocol(_ d: Device, _ now: Double) {
        guard let hello = d.client.hello() else { return opened(d, now) }
        guard send(d, hello, now) else { return }
        d.phase = .protocolHandshake  // the connect deadline still holds
        watch(d, .readable)
    }

    /// The protocol is open: the heartbeats begin (storm: the first, whose answer completes the
    /// attempt; load: --count of them on the interval).
    func opened(_ d: Device, _ now: Double) {
        if drops {
            guard sendHeartbeat(d, now) else { return }
            setPhase(d, .awaitingAnswer)
            deadline(d, d.attemptDeadline)
        } else {
            setPhase(d, .beating)
            beat(d, now)
        }
        watch(d, .readable)
    }

    // MARK: - Heartbeats and answers

    func sendHeartbeat(_ d: Device, _ now: Double) -> Bool {
        guard send(d, d.client.heartbeat(d.sent + 1), now) else { return false }
        d.pending = true
        d.sentAt = now
        d.sent += 1
        return true
    }

    /// Load: gives up on an answer past its timeout (lost), sends the heartbeat that is due and
    /// sets the deadline of what comes next; holds the connection after the last.
    func beat(_ d: Device, _ now: Double) {
        if d.pending, now - d.sentAt >= o.timeoutMs { d.pending = false }
        if !d.pending, d.sent < o.count, now >= d.nextSend {
            guard sendHeartbeat(d, now) else { return }
            d.nextSend += o.intervalMs
        }
        if !d.pending && d.sent >= o.count { return setPhase(d, .up) }
        deadline(d, d.pending ? d.sentAt + o.timeoutMs : d.nextSend)
    }

    func answered(_ d: Device, _ now: Double) {
        d.pending = false
        d.received += 1
        d.rtts.append(now - d.sentAt)
        rtts.append(now - d.sentAt)
        if d.phase == .awaitingAnswer { back(d, now) } else { beat(d, now) }
    }

    /// Storm: connected and its first heartbeat answered.
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

    /// Bytes from the server, through the device's protocol.
    func process(_ d: Device, _ bytes: [UInt8], _ now: Double) {
        let events: [PushClientEvent]
        do throws(ConnectionFailure) { events = try d.client.receive(bytes[...]) } catch {
            // The server broke the protocol on this connection: the device hangs up, as a
            // device would, and says why.
            return fail(d, error, now, hangUp: true)
        }
        for e in events {
            switch e {
            case .opened where d.phase == .protocolHandshake: opened(d, now)
            case .answered where d.pending: answered(d, now)
            case .reply(let answer): _ = send(d, answer, now)
            default: break
            }
            guard d.socket != nil else { return }
        }
    }

    // MARK: - Failures, the schedule and the drop

    /// The attempt or the connection failed: the device waits for its schedule's next step.
    func fail(_ d: Device, _ f: ConnectionFailure, _ now: Double, hangUp: Bool = false) {
        close(d, abortive: false)
        if stage == .storm { d.record.failures.append(f) } else { d.record.failuresBeforeDrop.append(f) }
        if !drops {
            if !d.connected {
                d.error = DeviceEngine.connectFailure(f)
            } else if hangUp {
                d.hungUp = true
                d.error = f.description
            } else if d.sent < o.count || d.pending {
                d.droppedOut = true
            }
        }
        d.pending = false
        scheduleNext(d, now)
    }

    /// An established connection the server ended: the device starts its schedule again.
    func lost(_ d: Device, _ f: ConnectionFailure, _ now: Double) {
        d.step = 0
        fail(d, f, now)
    }

    /// Waits for the schedule's next step, or gives up when it has run out.
    func scheduleNext(_ d: Device, _ now: Double) {
        guard d.step < schedule.count else {
            d.record.gaveUp = stage == .storm
            setPhase(d, .gaveUp)
            return
        }
        let delay = StormAnalysis.jittered(schedule[d.step], jitter: s.jitter, unit: rng.next())
        d.step += 1
        setPhase(d, .idle)
        deadline(d, now + delay * 1000)
    }

    /// Storm: every connection up is dropped at this instant; the others are out of the storm.
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
}
