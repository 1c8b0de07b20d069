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
        var decoder: SimplePush.Decoder
        var lines: LineDecoder
        let start: Double
        var nextSend: Double
        var pendingID: UInt32?
        var sentAt: Double = 0
        var sent = 0
        var received = 0
        var rtts: [Double] = []
        var droppedOut = false
        var hungUp = false
        var connected = false
        var error: String?
        init(index: Int, order: SimplePush.ByteOrder, cap: Int, start: Double) {
            self.index = index
            decoder = SimplePush.Decoder(order: order, cap: cap)
            lines = LineDecoder(cap: cap)
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
        let lineReply = o.proto == .line ? LineReplyMatcher(o.expect) : nil
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
        var nextID: UInt32 = 1
        func openNext() {
            let i = devices.count
            let d = Device(index: i, order: o.byteOrder, cap: o.frameCap, start: Clock.ms())
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
                if d.pendingID != nil, now - d.sentAt > o.timeoutMs { d.pendingID = nil }  // lost
                if d.pendingID == nil && d.sent < o.count && now >= d.nextSend {
                    let id = nextID
                    nextID &+= 1
                    let bytes =
                        o.proto == .line
                        ? Array((o.send + "\n").utf8) : SimplePush.frame(SimplePush.heartbeat(id: id, count: Int64(d.sent + 1)), order: o.byteOrder)
                    do {
                        try c.send(bytes, timeoutMs: 1000)
                        d.pendingID = id
                        d.sentAt = now
                        d.sent += 1
                        d.nextSend += o.intervalMs
                    } catch {
                        d.conn = nil
                        d.droppedOut = true
                        continue
                    }
                }
                if d.sent < o.count || d.pendingID != nil { done = false }
                if d.pendingID != nil { wake = min(wake, d.sentAt + o.timeoutMs) }
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
                    if d.sent < o.count || d.pendingID != nil { d.droppedOut = true }
                    d.pendingID = nil
                    continue
                }
                func answered() {
                    guard d.pendingID != nil else { return }
                    d.received += 1
                    d.rtts.append(t - d.sentAt)
                    all.append(t - d.sentAt)
                    d.pendingID = nil
                }
                do throws(FramingError) {
                    if o.proto == .line {
                        d.lines.feed(bytes[...])
                        while let line = try d.lines.next() {
                            if let m = lineReply, !m.matches(line) { throw .malformed(m.mismatch(line)) }
                            answered()
                        }
                    } else {
                        d.decoder.feed(bytes[...])
                        while let m = try d.decoder.next() {
                            if m.isAcknowledge, m.requestIdentifier == d.pendingID {
                                answered()
                            } else if m.isRequest {
                                try? c.send(SimplePush.frame(SimplePush.acknowledge(m), order: o.byteOrder), timeoutMs: 1000)
                            }
                        }
                    }
                } catch {
                    // The server broke the protocol on this connection: the device hangs up, as
                    // a device would, and says why.
                    d.conn = nil
                    d.hungUp = true
                    d.pendingID = nil
                    d.error = "\(target): \(error)"
                }
            }
        }
        // Interrupted: a heartbeat still within its timeout was neither answered nor lost, and
        // what a device had not yet had to send is not lost either; a device the server dropped
        // lost what it would have sent up to the stop.
        let interrupted = stop()
        let end = Clock.ms()
        for d in devices where interrupted && d.pendingID != nil && end - d.sentAt < o.timeoutMs { d.sent -= 1 }
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
