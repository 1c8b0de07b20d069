import Foundation
import PushdiagCore
import Synchronization

/// What `pushdiag walk` runs with.
public struct WalkSettings: Sendable {
    public var interface: String
    /// The push connection, as `heartbeat` holds it (interval 250 ms by default here).
    public var heartbeat: HeartbeatOptions
    public var sampleMs: Double = Self.defaultSampleMs
    public static let defaultSampleMs: Double = 500
    public var durationSeconds: Double?
    public var roamWindowSeconds: Double = RoamTracker.defaultWindowSeconds
    /// The place at the start.
    public var location: String?
    /// Write DIR/nl80211.pcap and DIR/push.jsonl.
    public var recordDirectory: String?
    /// `--scan-every`: ask the kernel for a scan this often (nil: the system's own scans only).
    public var scanEverySeconds: Double?
    /// The shortest `--scan-every`: every scan takes the radio off its channel, and a scan of
    /// every channel lasts seconds (passive DFS channels 110 ms each).
    public static let shortestScanEverySeconds: Double = 10

    public init(interface: String, heartbeat: HeartbeatOptions) {
        self.interface = interface
        self.heartbeat = heartbeat
    }
}

/// Why a walk could not start.
public struct WalkError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The push side of a walk: one `HeartbeatSession` on its own thread, heartbeats every interval,
/// reconnecting on the schedule after a loss; every heartbeat, reconnect and state goes to the
/// log as it happens.
/// Handed to its thread at start and not touched by anyone else after.
final class WalkPush: @unchecked Sendable {
    let o: HeartbeatOptions
    let log: WalkLog
    let stop: () -> Bool
    /// Set when the thread has ended.
    let done = DispatchSemaphore(value: 0)
    /// The thread has ended (its last heartbeat answered, lost or stopped).
    let ended = Atomic<Bool>(false)

    init(_ o: HeartbeatOptions, log: WalkLog, stop: @escaping () -> Bool) {
        self.o = o
        self.log = log
        self.stop = stop
    }

    func start() {
        let t = Thread { [self] in
            run()
            ended.store(true, ordering: .sequentiallyConsistent)
            done.signal()
        }
        t.start()
    }

    func run() {
        let address: IPAddress
        switch Resolver.resolve(o.endpoint.host) {
        case .success(let a): address = a
        case .failure(let f):
            log.fail(f.description)
            return
        }
        let session = HeartbeatSession(o, address: address, stop: stop)
        session.onEvent = { [log] e in
            switch e {
            case .state(let s):
                let now = WallClock.nanoseconds()
                log.add(.state(timeNs: now, ConnectionState(timeNs: now, state: s.state, reason: s.reason)))
            case .reconnect(let a): log.note("reconnect attempt \(a.attempt) after \(NumberText.format(a.delayS)) s: \(a.outcome.rawValue)")
            case .serverHeartbeat: break
            }
        }
        session.state(.setup)
        session.state(.preparing)
        do throws(ConnectionFailure) { try session.open() } catch {
            // Stopped before the connection was made: cancelled, not failed.
            if case .stopped = error {
                session.state(.cancelled, error.description)
                return
            }
            log.fail(error.description)
            session.state(.failed, error.description)
            return
        }
        session.state(.ready)
        var cadence = HeartbeatCadence(o)
        var n = 0
        while !stop() {
            n += 1
            let sent = WallClock.nanoseconds()
            let outcome: HeartbeatOutcome
            do throws(ConnectionFailure) { outcome = try session.heartbeat(n) } catch {
                log.fail(error.description)
                session.state(.failed, error.description)
                return
            }
            log.add(.heartbeat(WalkHeartbeat(sentNs: sent, rttMs: outcome.rttMs)))
            if let lossReason = cadence.loss(after: outcome) {
                let began = WallClock.nanoseconds()
                let before = session.reconnects.count
                let result = session.reconnect(after: lossReason)
                let now = WallClock.nanoseconds()
                if result != .stopped {
                    log.add(
                        .reconnect(
                            WalkReconnect(
                                timeNs: now, ms: Double(now - began) / 1e6, attempts: session.reconnects.count - before, succeeded: result == .connected)))
                }
                if result != .connected { return }
                cadence.restart()
            }
            do throws(ConnectionFailure) { try session.wait(until: cadence.advance()) } catch {}
        }
        session.close()
        session.state(.cancelled)
    }
}

/// A walk's push log, shared by the push thread, the place input and the main loop: the
/// events as they happened, typed (`--record` writes their encoding).
final class WalkLog: @unchecked Sendable {
    let lock = NSLock()
    private(set) var events: [WalkLogEvent] = []
    /// Live-view messages not yet shown.
    var messages: [String] = []
    private(set) var lastRTT: Double?
    private(set) var state = "setup"
    private(set) var failed: String?
    /// The walk is over: the push thread ends.
    private(set) var ended = false

    func end() { lock.withLock { ended = true } }
    var isEnded: Bool { lock.withLock { ended || failed != nil } }

    func add(_ e: WalkLogEvent) {
        lock.withLock {
            events.append(e)
            switch e {
            case .heartbeat(let h): if let r = h.rttMs { lastRTT = r }
            case .state(_, let s):
                state = s.state.rawValue
                if s.state != .setup && s.state != .preparing {
                    messages.append("push connection \(s.state.rawValue)" + (s.reason.map { ": \($0)" } ?? ""))
                }
            case .reconnect(let r):
                messages.append(
                    r.succeeded
                        ? "push reconnected after \(NumberText.format(r.ms)) ms (\(NumberText.count(r.attempts, "attempt")))"
                        : "push \(ReconnectAttempt.scheduleRanOut())")
            case .place(let p): messages.append("place: \(p.name)")
            case .start, .failure, .end: break
            }
        }
    }

    func note(_ m: String) { lock.withLock { messages.append(m) } }

    func fail(_ why: String) {
        add(.failure(timeNs: WallClock.nanoseconds(), reason: why))
        lock.withLock { failed = why }
    }

    var snapshot: (events: [WalkLogEvent], lastRTT: Double?, state: String, failed: String?) {
        lock.withLock { (events, lastRTT, state, failed) }
    }

    func takeMessages() -> [String] {
        lock.withLock {
            defer { messages.removeAll() }
            return messages
        }
    }
}

/// `pushdiag walk`: the push connection held on its thread while the link is followed on this
/// one, on one clock; places added as the engineer names them. Live, or from a recording made
/// with `--record DIR` (the link through the same code on the recorded nl80211 traffic, the push
/// connection from its log).
public final class WalkRunner {
    public struct LiveLine: Sendable {
        public var location: String
        public var link: WalkLink.Live
        public var lastRTT: Double?
        public var state: String
    }

    let settings: WalkSettings
    let log = WalkLog()
    let stop: () -> Bool
    /// Every second: the state of things (live only).
    public var onTick: ((LiveLine) -> Void)?
    /// What the push connection and the engineer did, in words, as it happens.
    public var onMessage: ((String) -> Void)?
    /// The link's connects, disconnects and roams as they happen (rendered as `watch` does).
    public var onLinkEvent: ((WatchEvent) -> Void)?

    public init(_ settings: WalkSettings, stop: @escaping () -> Bool) {
        self.settings = settings
        self.stop = stop
    }

    /// The directory `--record DIR` writes into, made when missing.
    public static func createRecordDirectory(_ path: String) throws {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw WalkError("--record: cannot create \(path): \(Errno.current)")
        }
    }

    /// A new place from now on (thread-safe: the input reader and the main loop call it).
    public func mark(_ name: String) {
        log.add(.place(WalkPlaceMark(timeNs: WallClock.nanoseconds(), name: name)))
    }

    /// Runs a live walk on nl80211 from `transport` and rtnetlink from `route` (each recorded
    /// when it records).
    public func run(transport: NetlinkTransport, route: NetlinkTransport) throws -> WalkTimeline {
        WallClock.anchor()
        let client = try NL80211Client(transport: transport)
        let driver = DriverName.of(interface: settings.interface)
        let link = try WalkLink(
            client: client, transport: transport, interface: settings.interface, sampleMs: settings.sampleMs, roamWindowSeconds: settings.roamWindowSeconds,
            driver: driver, scanEverySeconds: settings.scanEverySeconds)
        let interface: WalkInterfaceWatch?
        do {
            interface = try WalkInterfaceWatch(transport: route, ifindex: link.ifindex)
        } catch {
            interface = nil
            log.note("carrier and address changes cannot be followed: \(error)")
        }
        interface?.start()
        let start = WallClock.nanoseconds()
        log.add(
            .start(
                timeNs: start, interface: settings.interface, server: settings.heartbeat.endpoint.description, proto: settings.heartbeat.proto.rawValue,
                driver: driver, timeoutMs: settings.heartbeat.heartbeatWaitMs, scanEverySeconds: settings.scanEverySeconds,
                scanReadsAfterResults: true))
        if let l = settings.location { log.add(.place(WalkPlaceMark(timeNs: start, name: l))) }
        let t0 = Clock.ms()
        let limit = settings.durationSeconds.map { $0 * 1000 }
        let finished = { [stop, log] in stop() || limit.map { Clock.ms() - t0 >= $0 } ?? false || log.isEnded }
        let push = WalkPush(settings.heartbeat, log: log, stop: finished)
        push.start()
        link.onEvent = { [weak self] e in self?.onLinkEvent?(e) }
        var lastTick = Clock.ms()
        var linkFailure: String?
        do {
            try link.run {
                if Clock.ms() - lastTick >= 1000 {
                    lastTick = Clock.ms()
                    self.tick(link)
                }
                for m in self.log.takeMessages() { self.onMessage?(m) }
                // Once stopped, the link is followed until the push thread's last heartbeat has
                // ended (answered, or lost at its timeout): a scan during its flight is seen.
                return finished() && push.ended.load(ordering: .sequentiallyConsistent)
            }
        } catch {
            linkFailure = "\(error)"
        }
        // The link part ended (a stop after the push thread's end, or the interface went away):
        // the push thread follows.
        let endLink = WallClock.nanoseconds()
        log.end()
        interface?.end()
        push.done.wait()
        interface?.done.wait()
        link.finish()
        for m in log.takeMessages() { onMessage?(m) }
        log.add(.end(timeNs: max(endLink, WallClock.nanoseconds()), interrupted: stop()))
        var t = timeline(link: link, events: log.snapshot.events)
        t.linkFailure = linkFailure
        t.interfaceChanges = interface?.changes
        if let f = interface?.failure { t.notes.append("carrier and address changes followed only until: \(f)") }
        if let dir = settings.recordDirectory {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let text = log.snapshot.events.map(WalkLogLine.init).compactMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) + "\n" }
                .joined()
            try AtomicFile.write(text, to: dir + "/push.jsonl")
        }
        return t
    }

    /// A walk from a recording: DIR/nl80211.pcap through the same link code, DIR/push.jsonl as
    /// the push connection's log.
    public static func replay(directory: String, settings: WalkSettings) throws -> WalkTimeline {
        let logPath = directory + "/push.jsonl"
        let data: [UInt8]
        switch SmallFile.read(logPath, most: SmallFile.mostRecordingLog, what: "a push log") {
        case .success(let b): data = b
        case .failure(let f): throw WalkError("cannot replay \(directory): no push log \(logPath): \(f)")
        }
        let lines: [WalkLogLine]
        do { lines = try WalkLogLine.decode(String(decoding: data, as: UTF8.self), file: logPath) } catch { throw WalkError(error.description) }
        let start = lines[0]
        let recorded = start.name ?? ""
        var settings = settings
        if settings.interface.isEmpty { settings.interface = recorded }
        // The scans the walk asked for are asked again, when its samples asked them, and the
        // cache read when it was read (a walk recorded before the reads after each scan's results
        // read every 20 samples only).
        settings.scanEverySeconds = start.scanEveryS
        let transport = try ReplayNetlink(path: directory + "/nl80211.pcap", protocol: Netlink.protocolGeneric)
        let client = try NL80211Client(transport: transport)
        let link = try WalkLink(
            client: client, transport: transport, interface: settings.interface, sampleMs: settings.sampleMs, roamWindowSeconds: settings.roamWindowSeconds,
            driver: start.driver, scanEverySeconds: settings.scanEverySeconds, readAfterResults: start.scanReadsAfterResults == true)
        var linkFailure: String?
        do { try link.run { false } } catch { linkFailure = "\(error)" }
        link.finish()
        let events = lines.compactMap(\.event)
        var t = WalkRunner(settings, stop: { false }).timeline(link: link, events: events)
        t.endUnended(log: events, lastSampleNs: link.samples.last?.timeNs)
        t.linkFailure = linkFailure
        // The interface's part, when the recording has one (recordings before it do not).
        let routePath = directory + "/rtnetlink.pcap"
        if FileManager.default.fileExists(atPath: routePath) {
            let interface = try WalkInterfaceWatch(transport: try ReplayNetlink(path: routePath, protocol: Netlink.protocolRoute), ifindex: link.ifindex)
            interface.run()
            t.interfaceChanges = interface.changes
            if let f = interface.failure { t.notes.append("carrier and address changes followed only until: \(f)") }
        }
        if linkFailure != nil, let last = link.samples.last?.timeNs {
            // A recording cut short: the walk is what both parts saw, up to the cut.
            t.heartbeats.removeAll { $0.sentNs > last }
            t.reconnects.removeAll { $0.timeNs > last }
            t.marks.removeAll { $0.timeNs > last }
            t.endNs = min(t.endNs, last)
        }
        return t
    }

    func timeline(link: WalkLink, events: [WalkLogEvent]) -> WalkTimeline {
        var t = WalkTimeline(
            interface: settings.interface, server: settings.heartbeat.endpoint.description, proto: settings.heartbeat.proto.rawValue, startNs: 0)
        t.heartbeatTimeoutMs = settings.heartbeat.heartbeatWaitMs
        for e in events { t.apply(e) }
        t.samples = link.samples
        t.scans = link.scans
        t.changes = link.changes
        t.notes = link.notes.sorted()
        t.activity = link.activity
        return t
    }

    func tick(_ link: WalkLink) {
        let s = log.snapshot
        let placeNow = s.events.lazy.reversed().compactMap { e -> String? in if case .place(let p) = e { return p.name } else { return nil } }.first ?? ""
        onTick?(LiveLine(location: placeNow, link: link.live, lastRTT: s.lastRTT, state: s.state))
    }

}
