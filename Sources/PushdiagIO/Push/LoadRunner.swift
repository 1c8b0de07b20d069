import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// Many simulated devices against one push server: each holds a connection and sends heartbeats
/// on the interval, all driven by one poll(2) loop so a 2-core machine can hold thousands.
public final class LoadRunner {
    final class Device {
        let index: Int
        var conn: TCPConnection?
        var client: any PushClient
        let start: Double
        var nextSend: Double
        /// A heartbeat is out, within its timeout.
        var pending = false
        var sentAt: Double = 0
        var sent = 0
        var received = 0
        var rtts: [Double] = []
        var droppedOut = false
        var hungUp = false
        var connected = false
        var error: String?
        init(index: Int, client: any PushClient, start: Double) {
            self.index = index
            self.client = client
            self.start = start
            nextSend = start
        }
    }

    let o: HeartbeatOptions
    let clients: Int
    let rampMs: Double

    public init(_ o: HeartbeatOptions, clients: Int, rampSeconds: Double) {
        self.o = o
        self.clients = clients
        rampMs = rampSeconds * 1000
    }

    /// Raises the descriptor limit to its hard maximum (one per simulated device); returns it.
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

    /// Descriptors kept for everything but the devices (standard streams, libraries, the stop pipe).
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

    public func run(stop: () -> Bool) -> LoadReport {
        LoadRunner.raiseFileLimit()
        let target = o.endpoint.description
        guard case .success(let address) = Resolver.resolve(o.endpoint.host) else {
            let d = (0..<clients).map {
                LoadClientReport(
                    client: $0 + 1, connected: false, sent: 0, received: 0, rtts: [], droppedOut: false, error: "cannot resolve \(o.endpoint.host)", planned: 0)
            }
            return LoadReport(target: target, protocol: o.proto.rawValue, perClient: d, rtts: [], durationSeconds: 0, count: o.count, thresholds: o.thresholds)
        }
        let t0 = Clock.ms()
        var devices: [Device] = []
        var all: [Double] = []
        func openNext() {
            let i = devices.count
            let d = Device(index: i, client: o.proto.definition.client(o, clientID: "pushdiag-\(getpid())-\(i + 1)"), start: Clock.ms())
            do {
                d.conn = try TCPConnection.connect(address, port: o.endpoint.port, name: target, timeoutMs: Int32(o.connectTimeoutMs))
                d.connected = true
            } catch {
                d.error = LoadRunner.connectFailure(error)
            }
            devices.append(d)
        }
        while !stop() {
            let now = Clock.ms()
            // Ramp: open the devices spread over --ramp.
            while devices.count < clients && !stop() && (rampMs <= 0 || now - t0 >= rampMs * Double(devices.count) / Double(clients)) { openNext() }
            var done = devices.count == clients
            var wake = now + 100
            for d in devices {
                guard let c = d.conn else { continue }
                if d.pending, now - d.sentAt > o.timeoutMs { d.pending = false }  // lost
                if !d.pending && d.sent < o.count && now >= d.nextSend {
                    do {
                        try c.send(d.client.heartbeat(d.sent + 1), timeoutMs: 1000)
                        d.pending = true
                        d.sentAt = now
                        d.sent += 1
                        d.nextSend += o.intervalMs
                    } catch {
                        d.conn = nil
                        d.droppedOut = true
                        continue
                    }
                }
                if d.sent < o.count || d.pending { done = false }
                if d.pending { wake = min(wake, d.sentAt + o.timeoutMs) }
                if d.sent < o.count { wake = min(wake, d.nextSend) }
            }
            if done { break }
            let live = devices.filter { $0.conn != nil }
            var fds = live.map { pollfd(fd: $0.conn!.fd, events: Int16(POLLIN), revents: 0) }
            let waitMs = devices.count < clients ? min(wake - now, 5) : wake - now
            _ = Syscall.poll(&fds, timeoutMs: Int32(max(0, min(100, waitMs))))
            let t = Clock.ms()
            for (k, d) in live.enumerated() where fds[k].revents != 0 {
                guard let c = d.conn else { continue }
                let bytes: [UInt8]?
                do { bytes = try c.receive(max: 4096, timeoutMs: 0) } catch { bytes = [] }
                guard let bytes else { continue }
                if bytes.isEmpty {
                    d.conn = nil
                    if d.sent < o.count || d.pending { d.droppedOut = true }
                    d.pending = false
                    continue
                }
                do throws(ConnectionFailure) {
                    for e in try d.client.receive(bytes[...]) {
                        switch e {
                        case .answered where d.pending:
                            d.received += 1
                            d.rtts.append(t - d.sentAt)
                            all.append(t - d.sentAt)
                            d.pending = false
                        case .reply(let answer): try? c.send(answer, timeoutMs: 1000)
                        default: break
                        }
                    }
                } catch {
                    // The server broke the protocol on this connection: the device hangs up, as
                    // a device would, and says why.
                    d.conn = nil
                    d.hungUp = true
                    d.pending = false
                    d.error = error.description
                }
            }
        }
        // Interrupted: a heartbeat still within its timeout was neither answered nor lost, and
        // what a device had not yet had to send is not lost either; a device the server dropped
        // lost what it would have sent up to the stop.
        let interrupted = stop()
        let end = Clock.ms()
        for d in devices where interrupted && d.pending && end - d.sentAt < o.timeoutMs { d.sent -= 1 }
        let per = devices.map { d -> LoadClientReport in
            var planned = o.count
            if interrupted {
                planned = d.droppedOut || d.hungUp ? min(o.count, Int(((end - d.start) / max(o.intervalMs, 1)).rounded(.down)) + 1) : d.sent
            }
            return LoadClientReport(
                client: d.index + 1, connected: d.connected, sent: d.sent, received: d.received, rtts: d.rtts, droppedOut: d.droppedOut, hungUp: d.hungUp,
                error: d.error,
                planned: planned)
        }
        return LoadReport(
            target: target, protocol: o.proto.rawValue, perClient: per, rtts: all, durationSeconds: (Clock.ms() - t0) / 1000, count: o.count,
            thresholds: o.thresholds, interrupted: interrupted)
    }
}
