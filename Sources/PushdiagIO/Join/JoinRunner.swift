private import CPcap
import Foundation
import PushdiagCore

public struct JoinSettings: Sendable {
    public var interface: String
    public var heartbeat: HeartbeatOptions
    public var kick: JoinKick = .auto
    public var count = 1
    public var intervalSeconds: Double = Self.defaults.interval
    /// A cycle that has not reached push-ready by then ends.
    public var cycleTimeoutSeconds: Double = Self.defaults.cycleTimeout
    public var controlDirectory = Self.defaults.controlDirectory
    /// How long after the link is up a DHCP client may take to begin (a DHCP client message or
    /// the address removed): one that begins after the push had started makes the push again
    /// once the address is settled. 0: no wait for a client that has not begun (an exchange
    /// already under way is still waited for).
    public var dhcpWaitSeconds: Double = Self.defaults.dhcpWait
    /// The defaults `join`'s flags show.
    public static let defaults = (interval: 2.0, cycleTimeout: 30.0, dhcpWait: 2.0, controlDirectory: "/var/run/wpa_supplicant")
    /// `--find-ap-idle`: the silences to try, seconds, in order (nil: no ladder), and the path's
    /// idle timeout to weigh them with (`--idle-timeout`).
    public var apIdleRungs: [Double]?
    public var pathIdleTimeoutS: Double?

    public init(interface: String, heartbeat: HeartbeatOptions) {
        self.interface = interface
        self.heartbeat = heartbeat
    }
}

/// Runs the join's cycles: nl80211's MLME and scan events, rtnetlink's link, address and
/// neighbour changes and the interface's packets (libpcap) are collected on their own threads
/// onto one clock (`WallClock.anchor`); this thread kicks the manager and drives the push
/// session, adding its milestones. The core (`JoinAnalysis`) makes the steps.
public final class JoinRunner: @unchecked Sendable {
    let settings: JoinSettings
    let thresholds: JoinThresholds
    let stop: () -> Bool
    let lock = NSLock()
    var log: [JoinEvent] = []
    var finished = false
    public private(set) var notes: [String] = []
    /// `--find-ap-idle`'s verdict, once `run` has returned.
    public private(set) var apIdle: APIdleReport?
    /// The station's address, whose frames are logged (`stationSent`, `keepAliveSent`): read
    /// again when the ladder starts (a randomised address changes with each association).
    var station: MACAddress?
    /// What starts each cycle (nil: passive), and the report's mode: the manager found.
    var rejoiner: Rejoiner?
    public private(set) var mode = JoinKick.passive.rawValue

    public init(_ s: JoinSettings, thresholds: JoinThresholds, stop: @escaping () -> Bool) {
        settings = s
        self.thresholds = thresholds
        self.stop = stop
    }

    func add(_ t: Int64, _ k: JoinEvent.Kind) { lock.withLock { append(t, k) } }
    /// The push attempt whose events count: one made obsolete by a later attempt (`pushAgain`)
    /// may still be under way on its thread, blocked in the resolver or a connect, and adds
    /// nothing more.
    var pushAttempt = 0
    func add(_ t: Int64, _ k: JoinEvent.Kind, attempt: Int) { lock.withLock { if attempt == pushAttempt { append(t, k) } } }
    /// The addresses the push sessions connected to.
    var pushPeers: Set<IPAddress> = []
    func isPushPeer(_ s: TCPSegment) -> Bool { lock.withLock { pushPeers.contains(s.source) || pushPeers.contains(s.destination) } }
    /// Under `lock`.
    /// The station's last frame and the link's last change, kept as they arrive (the ladder asks
    /// every few milliseconds; the log holds every frame the station sent).
    var lastStationFrameNs: Int64?
    var lastLinkChange: JoinEvent.Kind?
    private func append(_ t: Int64, _ k: JoinEvent.Kind) {
        log.append(JoinEvent(t, k))
        if APIdle.isStationFrame(k) { lastStationFrameNs = max(lastStationFrameNs ?? t, t) }
        switch k {
        case .disconnected, .operstate: lastLinkChange = k
        default: break
        }
        if case .push(.tcpStarted(let a)) = k { pushPeers.insert(a) }
    }
    func events(since t: Int64) -> [JoinEvent] { lock.withLock { log.filter { $0.timeNs >= t } } }
    var isFinished: Bool { lock.withLock { finished } || stop() }

    /// Runs the cycles on nl80211 from `generic` and rtnetlink from `route` (each recorded when it
    /// records: `NetlinkSource`); with `record`, the packets go to DIR/packets.pcap and
    /// pushdiag's own events and the cycles' windows to DIR/join.jsonl (`JoinLog`), for
    /// `JoinReplay`.
    public func run(generic: NetlinkTransport, route: NetlinkTransport, record: String? = nil) throws -> [JoinCycleReport] {
        WallClock.anchor()
        let nl = try NL80211Client(transport: generic)
        guard let wifi = try nl.interfaces().first(where: { $0.name == settings.interface }) else {
            throw WiFiError.noSuchInterface(settings.interface + " (or not a wireless interface)")
        }
        let ifindex = wifi.ifindex
        lock.withLock { station = wifi.mac }
        try nl.subscribe()
        for g in [RTNetlink.groupLink, RTNetlink.groupIPv4Address, RTNetlink.groupIPv6Address, RTNetlink.groupNeighbour] { try route.join(group: g) }
        let dump = try route.exchange(RTNetlink.addressDumpRequest(sequence: 1), dump: true)
        for e in JoinEvent.rtnetlink(dump, ifindex: Int32(bitPattern: ifindex), time: route.lastReceived) { add(e.timeNs, e.kind) }
        rejoiner = try Rejoiners.find(settings, ifindex: ifindex)
        mode = rejoiner?.mode ?? JoinKick.passive.rawValue
        var packets: PcapLive?
        do throws(CaptureError) { packets = try PcapLive(interface: settings.interface) } catch {
            notes.append("no packets: \(error); EAP, the key messages' frames, DHCP and DNS servers are not visible")
        }
        var packetRecording: PcapWriter?
        if let record, packets != nil {
            do throws(CaptureError) { packetRecording = try PcapWriter(path: record + "/packets.pcap", linkType: CPcap_DLT_EN10MB()) } catch {
                throw JoinLogError("--record: \(error)")
            }
        }
        let threads = DispatchGroup()
        func thread(_ body: @escaping @Sendable () -> Void) {
            threads.enter()
            Thread {
                body()
                threads.leave()
            }.start()
        }
        let me = self
        nonisolated(unsafe) let nlClient = nl
        thread {
            while !me.isFinished {
                do {
                    guard let (t, evs) = try nlClient.nextEvent(timeoutMs: 100) else { continue }
                    for e in evs { if let k = JoinEvent.Kind.nl80211(e, ifindex: ifindex) { me.add(t, k) } }
                } catch {
                    Clock.sleep(ms: 100, stop: { me.isFinished })  // a socket that keeps failing is not spun on
                }
            }
        }
        nonisolated(unsafe) let rt = route
        thread {
            while !me.isFinished {
                do {
                    guard let buf = try rt.nextEvent(timeoutMs: 100) else { continue }
                    for e in JoinEvent.rtnetlink([buf], ifindex: Int32(bitPattern: ifindex), time: rt.lastReceived) { me.add(e.timeNs, e.kind) }
                } catch {
                    Clock.sleep(ms: 100, stop: { me.isFinished })
                }
            }
        }
        nonisolated(unsafe) let pcap = packets
        nonisolated(unsafe) let writer = packetRecording
        if packets != nil {
            thread {
                _ = try? pcap?.capture(seconds: DurationText.longest, stop: { me.isFinished }) { r in
                    // libpcap's time is the kernel's wall clock at reception.
                    writer?.write(timestampNs: r.timestampNs, bytes: Array(r.bytes), originalLength: r.originalLength)
                    if let station = me.lock.withLock({ me.station }), let k = JoinEvent.Kind.stationFrame(ethernet: r.bytes, station: station) {
                        me.add(r.timestampNs, k)
                    }
                    guard let p = StationPacket.parse(ethernet: r.bytes) else { return }
                    // Of TCP, only the push connection's segments: the analysis reads no other, and
                    // a busy interface's would fill the log (the recording keeps them all).
                    if case .tcp(let s) = p, !me.isPushPeer(s) { return }
                    me.add(r.timestampNs, .packet(p))
                }
            }
        }
        defer {
            lock.withLock { finished = true }
            threads.wait()
        }
        var setup = JoinCycleSetup(settings.heartbeat)
        setup.station = lock.withLock { station }
        var windows: [JoinLog.Window] = []
        for n in 1...settings.count where !stop() {
            if n > 1 { Clock.sleep(ms: settings.intervalSeconds * 1000, stop: stop) }
            if stop() { break }
            let prepared = WallClock.nanoseconds()
            guard let ended = try cycle(packets: packets != nil) else { break }
            if stop() {
                notes.append("cycle \(n) was interrupted before it ended and is left out")
                break
            }
            windows.append(JoinLog.Window(cycle: n, from: prepared, to: ended, station: lock.withLock { station }))
        }
        if let rungs = settings.apIdleRungs, !stop() { ladder(rungs) }
        // Once every source has delivered what it saw (their threads end), each cycle's window is
        // analysed, as a replay does: an event received late still counts.
        lock.withLock { finished = true }
        threads.wait()
        let all = lock.withLock { log }
        let cycles = windows.map { w in JoinAnalysis.cycle(w.cycle, events: JoinAnalysis.window(w, of: all), setup: w.setup(setup), thresholds: thresholds) }
        if settings.apIdleRungs != nil {
            apIdle = APIdleReport.conclude(
                rungs: APIdle.rungs(all), bssMaxIdleS: cycles.last { $0.bssMaxIdleS != nil }?.bssMaxIdleS, pathIdleTimeoutS: settings.pathIdleTimeoutS)
        }
        if let record {
            do throws(CaptureError) { try packetRecording?.close() } catch { throw JoinLogError("--record: \(error)") }
            let header = JoinLog.Header(
                interface: settings.interface, ifindex: ifindex, server: settings.heartbeat.endpoint.description, mode: mode, setup: setup,
                notes: notes, station: lock.withLock { station }, apIdleRungs: settings.apIdleRungs, pathIdleTimeoutS: settings.pathIdleTimeoutS)
            let text = JoinLog.encode(header: header, events: lock.withLock { log }, windows: windows)
            do throws(StoreError) { try AtomicFile.write(text, to: record + "/join.jsonl") } catch { throw JoinLogError("--record: \(error)") }
        }
        return cycles
    }

    /// Waits until `match` holds for an event since `t`, or `seconds` pass: the event's time.
    func wait(since t: Int64, seconds: Double, _ match: (JoinEvent.Kind) -> Bool) -> Int64? {
        let deadline = Clock.ms() + seconds * 1000
        while Clock.ms() < deadline && !stop() {
            if let e = events(since: t).first(where: { match($0.kind) }) { return e.timeNs }
            Clock.sleep(ms: 5, stop: stop)
        }
        return nil
    }

    /// One cycle; returns when it ended (nil: stopped before a passive cycle began).
    func cycle(packets: Bool) throws -> Int64? {
        let prepared = WallClock.nanoseconds()
        if !packets {
            for s in [JoinStep.eap, .dhcp] { add(prepared, .notVisible(s, "packets on \(settings.interface) need CAP_NET_RAW")) }
        }
        let down = { (k: JoinEvent.Kind) -> Bool in if case .disconnected = k { true } else { k == .operstate(2) || k == .operstate(5) } }
        if let rejoiner {
            try rejoiner.drop()
            _ = wait(since: prepared, seconds: 5, down)
            add(WallClock.nanoseconds(), .cycleStart(rejoiner.restoreLabel))
            try rejoiner.restore()
        } else {
            guard let t = wait(since: prepared, seconds: DurationText.longest, { if case .disconnected = $0 { true } else { false } }) else {
                return nil
            }
            add(t, .cycleStart("disconnected"))
        }
        // From the cycle's start: a link message sent before the drop took effect may still say "up".
        let start = events(since: prepared).last { if case .cycleStart = $0.kind { true } else { false } }?.timeNs ?? WallClock.nanoseconds()
        let limit = settings.cycleTimeoutSeconds
        // Usable: the operstate up, and the address settled (a DHCP exchange under way waited for).
        guard let up = wait(since: start, seconds: limit, { $0 == .operstate(6) }) else { return end() }
        // The address the link came up with (a manager may give each connection a random one):
        // the DHCP client's, and the cycle's window's.
        readStation()
        if let began = dhcpBegan(since: prepared), !settle(since: began, seconds: limit) { return end() }
        // The push on a thread of its own, while a DHCP client that begins only after it had
        // started (within --dhcp-wait of the link up) is watched for: that push goes over the
        // address from before, which a phone's push provider would not have had. It is left
        // (its later events dropped) and the push made again once the address is settled.
        let pushed = WallClock.nanoseconds()
        let attempt = lock.withLock { pushAttempt }
        let done = DispatchSemaphore(value: 0)
        let me = self
        Thread {
            me.push(attempt: attempt)
            done.signal()
        }.start()
        let dhcpDeadline = up + Int64(settings.dhcpWaitSeconds * 1e9)
        var finished = false
        var began: Int64?
        while !stop() {
            if !finished, done.wait(timeout: .now() + .milliseconds(5)) == .success { finished = true }
            if let b = dhcpBegan(since: pushed), b <= dhcpDeadline { began = b }
            if began != nil || (finished && WallClock.nanoseconds() >= dhcpDeadline) { break }
            if finished { Clock.sleep(ms: 5, stop: stop) }
        }
        if let began {
            lock.withLock { pushAttempt += 1 }
            guard settle(since: began, seconds: limit) else { return end() }
            let ms = NumberText.format((Double(began - pushed) / 1e6).rounded())
            let left = finished ? "" : " (that push, still under way, was left)"
            add(WallClock.nanoseconds(), .pushAgain("the DHCP client began \(ms) ms after the first push had started\(left)"))
            push(attempt: lock.withLock { pushAttempt })
        } else if !finished {
            done.wait()
        }
        return end()
    }

    /// `--find-ap-idle`: each rung a silence of its length (pushdiag sends nothing; the
    /// station's own frames are logged), begun once the station has been quiet for a second, then
    /// a push to check the association; the first rung the association does not survive is the
    /// last (the station's rejoin waited for). Stopped, a rung is left without its end.
    func ladder(_ rungs: [Double]) {
        readStation()
        // The station's counters on a socket of the ladder's own (the event thread reads the
        // run's): what it sent in all, against what the interface showed.
        let counters = try? NL80211Client(transport: try LiveNetlink(protocol: Netlink.protocolGeneric))
        let ifindex = UInt32(if_nametoindex(settings.interface))
        func readCounters() {
            if let tx = (try? counters?.stations(ifindex: ifindex))??.first?.txPackets { add(WallClock.nanoseconds(), .stationCounters(txPackets: tx)) }
        }
        let limit = settings.cycleTimeoutSeconds
        func isUp() -> Bool {
            let last = lock.withLock { lastLinkChange }
            return last == nil || last == .operstate(6)
        }
        func isDrop(_ k: JoinEvent.Kind) -> Bool { if case .disconnected = k { true } else { false } }
        func lastFrame() -> Int64? { lock.withLock { lastStationFrameNs } }
        for idle in rungs where !stop() {
            let deadline = Clock.ms() + limit * 1000
            while !isUp() && Clock.ms() < deadline && !stop() { Clock.sleep(ms: 20, stop: stop) }
            if stop() { return }
            if !isUp() {
                notes.append(
                    "the AP idle ladder stopped before its \(DurationText.format(idle)) rung: the link was not up within \(DurationText.format(limit))")
                return
            }
            // The last push's own frames (its connection's last ACK) are not the rung's: a second
            // without a frame from the station first, ten at the most.
            let quietBy = Clock.ms() + 10_000
            while Clock.ms() < quietBy && !stop() {
                if let t = lastFrame(), WallClock.nanoseconds() - t < 1_000_000_000 { Clock.sleep(ms: 50, stop: stop) } else { break }
            }
            if stop() { return }
            let start = WallClock.nanoseconds()
            add(start, .silenceStart(idleS: idle))
            readCounters()
            let drop = wait(since: start, seconds: idle, isDrop)
            if stop() { return }
            if let drop {
                _ = wait(since: drop, seconds: limit) { $0 == .operstate(6) }
                add(WallClock.nanoseconds(), .rungEnd)
                return
            }
            readCounters()
            add(WallClock.nanoseconds(), .silenceEnd)
            let attempt = lock.withLock {
                pushAttempt += 1
                return pushAttempt
            }
            push(attempt: attempt)
            if stop() { return }
            // A drop at the silence's very end, or a refusal of the push's first frames (an AP
            // that had forgotten the station) arrives before the push is over.
            if let d = events(since: start).first(where: { isDrop($0.kind) })?.timeNs {
                _ = wait(since: d, seconds: limit) { $0 == .operstate(6) }
                add(WallClock.nanoseconds(), .rungEnd)
                return
            }
            add(WallClock.nanoseconds(), .rungEnd)
        }
    }

    /// The interface's address as it is now (sysfs), as `station`; kept as it was when unreadable.
    func readStation() {
        if let text = try? String(contentsOfFile: "/sys/class/net/\(settings.interface)/address", encoding: .utf8),
            let mac = MACAddress(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            lock.withLock { station = mac }
        }
    }

    /// A DHCP client at work: a message of its own (not a release; `station`'s, not another
    /// device's broadcast), or the IPv4 address it removes (a link flap removes the IPv6 ones by
    /// itself, and DHCP is IPv4's).
    static func beginsDHCP(_ k: JoinEvent.Kind, station: MACAddress?) -> Bool {
        if case .dhcp(let m) = k { return m.messageType?.fromClient == true && m.messageType != .release && m.isOf(station) }
        return k.address(family: RTNetlink.afInet)?.added == false
    }

    func dhcpBegan(since t: Int64) -> Int64? {
        let station = lock.withLock { self.station }
        return events(since: t).first { Self.beginsDHCP($0.kind, station: station) }?.timeNs
    }

    /// Until the address is settled after a DHCP client began at `began`: the IPv4 address added again
    /// after a removal, or the lease acknowledged with the address kept. A NAK does not end the
    /// wait: the client starts again with a DISCOVER (RFC 2131), and the step fails only if no
    /// ACK follows. False when `seconds` pass first.
    func settle(since began: Int64, seconds: Double) -> Bool {
        let deadline = Clock.ms() + seconds * 1000
        let station = lock.withLock { self.station }
        while Clock.ms() < deadline && !stop() {
            let seen = events(since: began)
            let lastAddress = seen.lazy.compactMap { $0.kind.address(family: RTNetlink.afInet) }.last
            if lastAddress?.added == true { return true }
            func answered(_ t: DHCPMessage.MessageType) -> Bool {
                seen.contains { e in if case .dhcp(let m) = e.kind { m.messageType == t && m.isOf(station) } else { false } }
            }
            if lastAddress == nil && answered(.ack) { return true }
            Clock.sleep(ms: 5, stop: stop)
        }
        return false
    }

    func end() -> Int64 {
        // A restore the manager answered with a failure (iwd's Connect) fails the link's step.
        if let failure = rejoiner?.restoreFailure(wait: !stop()) { add(WallClock.nanoseconds(), .stepFailed(.association, failure)) }
        let t = WallClock.nanoseconds()
        add(t, .cycleEnd)
        return t
    }

    /// Resolve, connect, TLS, hello, the first heartbeat, each milestone on the run's clock.
    func push(attempt: Int) {
        let add = { (t: Int64, k: JoinEvent.Kind) in self.add(t, k, attempt: attempt) }
        let o = settings.heartbeat
        let address: IPAddress
        if let a = IPAddress(o.endpoint.host) {
            address = a
        } else {
            add(WallClock.nanoseconds(), .push(.resolveStarted(o.endpoint.host)))
            switch Resolver.resolve(o.endpoint.host) {
            case .success(let a):
                add(WallClock.nanoseconds(), .push(.resolved(a)))
                address = a
            case .failure(let f):
                add(WallClock.nanoseconds(), .stepFailed(.dns, f.description))
                return
            }
        }
        let session = HeartbeatSession(o, address: address, stop: stop)
        add(WallClock.nanoseconds(), .push(.tcpStarted(address)))
        do throws(ConnectionFailure) {
            defer { milestones(session, attempt: attempt) }
            try session.open()
        } catch {
            let step: JoinStep
            switch error {
            case .tls: step = .tls
            case .protocolViolation: step = .hello
            default: step = session.phaseEndsNs == nil ? .tcpConnect : (o.tls != nil && session.phaseEndsNs?.tls == nil ? .tls : .hello)
            }
            add(WallClock.nanoseconds(), .stepFailed(step, error.description))
            return
        }
        add(WallClock.nanoseconds(), .push(.heartbeatSent))
        do throws(ConnectionFailure) {
            switch try session.heartbeat(1) {
            case .answered: add(WallClock.nanoseconds(), .push(.heartbeatAnswered))
            case .unanswered: add(WallClock.nanoseconds(), .stepFailed(.firstHeartbeat, "no answer within \(DurationText.format(o.heartbeatWaitMs / 1000))"))
            case .connectionLost(let f): add(WallClock.nanoseconds(), .stepFailed(.firstHeartbeat, f.description))
            }
        } catch {
            add(WallClock.nanoseconds(), .stepFailed(.firstHeartbeat, error.description))
        }
        session.close()
    }

    func milestones(_ s: HeartbeatSession, attempt: Int) {
        let add = { (t: Int64, k: JoinEvent.Kind) in self.add(t, k, attempt: attempt) }
        guard let p = s.phaseEndsNs else { return }
        add(p.tcp, .push(.tcpConnected))
        if let t = p.tls { add(t, .push(.tlsDone)) }
        if let h = p.hello { add(h, .push(.helloDone)) }
    }

}
