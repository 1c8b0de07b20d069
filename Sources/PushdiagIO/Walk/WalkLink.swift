import PushdiagCore

/// The link side of a walk: nl80211's events (through `RoamWatcher`, as `watch` follows them)
/// and a sample of the interface and its AP every `sampleMs`, on one transport: the kernel, or
/// a recording replayed in the order it was made. Moves of the link become `WalkLinkChange`s.
public final class WalkLink {
    public struct Live: Sendable {
        public var bssid: MACAddress?
        public var ssid: String?
        public var freqMhz: Int?
        public var signalDbm: Int?
        public var retriesPct: Double?
    }

    let client: NL80211Client
    let transport: NetlinkTransport
    let watcher: RoamWatcher
    public let ifindex: UInt32
    public let interfaceName: String
    let sampleMs: Double
    /// The scan cache (for the sticky-client rule and the iPhone lens) is read every this many
    /// samples: it can hold hundreds of BSSes, and a walk's recording should not grow by a dump
    /// each half second. (A replay asks what the recording asked: changing it breaks replays.)
    let scanEvery = 20
    var sampleCount = 0
    /// SSIDs of the scan cache's BSSes (the interface does not always say its SSID).
    var ssids: [MACAddress: String] = [:]
    /// Counters at the previous sample, per AP (deltas restart on another AP).
    var previous: (bssid: MACAddress, retries: UInt32?, failed: UInt32?, packets: UInt32?)?
    var pendingDisconnect: WatchEvent?
    /// The AP the interface is associated with, from the events and the scan cache (to ask a
    /// driver whose station dump is empty for it by name).
    var apBssid: MACAddress?
    var pendingFreq: Int?
    /// The frequency each AP was last sampled on: the "from" side of a move is what the station
    /// had before it began, whatever a sample taken while the move's events were still queued
    /// says.
    var frequencies: [MACAddress: Int] = [:]

    public private(set) var samples: [WalkSample] = []
    /// Every read of the scan cache, every entry with its age.
    public private(set) var scans: [WalkScan] = []
    public private(set) var changes: [WalkLinkChange] = []
    /// The link's scans, channel switches, radar events, roams and disconnects, for the stalls.
    public private(set) var activity: LinkActivityLog
    /// `--scan-every`, in ns of the walk's clock (nil: never ask for a scan).
    let scanEveryNs: Int64?
    var lastTriggerNs: Int64?
    /// A scan's results came (NEW_SCAN_RESULTS on the interface), so the next sample reads the
    /// cache. Read only every `scanEvery` samples, the entries a walk paid a stall for were 10 s
    /// old at the next read, too old for the lens (the lab's walk of 2026-11-26: 0 of 51 samples
    /// fresh); and a read before a scan's results is not what the cache held after them (the
    /// lens calls such a sample superseded, and judges nothing there: a fresh-clone CI run of
    /// 2026-11-29 claimed a hole from a read 8 s old while a scan since had heard the next AP
    /// at -57 dBm). `--scan-every` walks read so since 2026-11-26, every walk since 2026-11-29;
    /// walks recorded before replay as they were made (their log's start says which:
    /// `readAfterResults` false).
    var resultsPending = false
    /// Why the scans asked for stopped (no CAP_NET_ADMIN), once.
    var triggerRefused = false
    /// The channels each SSID's BSSs were seen on in the scan cache's reads so far.
    var channelsBySSID: [String: Set<UInt32>] = [:]
    public private(set) var live = Live()
    /// What the driver does not report.
    public private(set) var notes: Set<String> = []
    /// Called with each event as it happens (for the live view).
    public var onEvent: ((WatchEvent) -> Void)?

    /// What the driver's counters are worth (nil: taken at their word).
    let profile: DriverProfile?

    public init(
        client: NL80211Client, transport: NetlinkTransport, interface: String, sampleMs: Double, roamWindowSeconds: Double, driver: String? = nil,
        scanEverySeconds: Double? = nil, readAfterResults: Bool = true
    ) throws {
        self.client = client
        profile = driver.flatMap(DriverProfiles.profile)
        self.transport = transport
        watcher = try RoamWatcher(client: client, transport: transport, interface: interface, roamWindowSeconds: roamWindowSeconds)
        guard let i = watcher.only else { throw WiFiError.noSuchInterface(interface) }
        ifindex = i
        interfaceName = interface
        self.sampleMs = sampleMs
        scanEveryNs = scanEverySeconds.map { Int64($0 * 1e9) }
        activity = LinkActivityLog(ifindex: i)
        watcher.onEvent = { [unowned self] time, e in
            activity.add(e, at: time)
            if readAfterResults, case .newScanResults(let i, _) = e, i == ifindex { resultsPending = true }
        }
    }

    /// Follows the link until `stop` (live) or the end of the recording (replay). Throws when
    /// the interface goes away or netlink fails; what was collected stays in the properties.
    public func run(stop: () -> Bool) throws {
        try sample()
        if let replay = transport as? ReplayNetlink {
            while !stop() {
                switch replay.peekNext() {
                case .end: return
                case .event: try events(timeoutMs: 0)
                case .request: try sample()
                }
            }
            return
        }
        var due = Clock.ms() + sampleMs
        while !stop() {
            let wait = Clock.pollTimeout(until: due)
            try events(timeoutMs: min(wait, 250))
            if Clock.ms() >= due {
                // The events that came while the last requests were answered first: the
                // recording holds them before this sample's requests, and a replay takes them so
                // (a scan's results handled after the sample read the cache a sample later live).
                while transport.hasPendingEvents { try events(timeoutMs: 0) }
                try sample()
                due += sampleMs
                // After a long stall (a suspended laptop) the next sample is due from now.
                if due < Clock.ms() { due = Clock.ms() + sampleMs }
            }
        }
    }

    /// The moves still open at the end: a disconnect never followed by a connect.
    public func finish() {
        for e in watcher.finish() { try? handle(e) }
        if let d = pendingDisconnect {
            changes.append(WalkLinkChange(disconnect: d, fromFreqMhz: pendingFreq))
            pendingDisconnect = nil
        }
    }

    func events(timeoutMs: Int32) throws {
        guard let events = try watcher.next(timeoutMs: timeoutMs) else { return }
        for e in events { try handle(e) }
    }

    func handle(_ e: WatchEvent) throws {
        onEvent?(e)
        switch e.event {
        case .disconnect:
            pendingDisconnect = e
            pendingFreq = e.bssid.flatMap { frequencies[$0] } ?? live.freqMhz
            apBssid = nil
            previous = nil
        case .roam, .connect:
            guard e.statusCode ?? 0 == 0 else { return }  // a refused attempt: nothing moved
            if let b = e.bssid, let s = e.ssid { ssids[b] = s }
            apBssid = e.bssid
            let from = pendingDisconnect
            let fromBssid = e.fromBssid ?? from?.bssid
            // What the station had before the move began, not what a sample says after it.
            let fromFreq = fromBssid.flatMap { frequencies[$0] } ?? (from != nil ? pendingFreq : live.freqMhz)
            let fromSsid = from?.ssid ?? fromBssid.flatMap { ssids[$0] } ?? live.ssid
            pendingDisconnect = nil
            // Where it went: the interface and the AP right after the move.
            try sample()
            if e.event == .roam || from != nil {
                changes.append(
                    WalkLinkChange(
                        e, fromBssid: fromBssid, fromSsid: fromSsid, toSsid: e.ssid ?? live.ssid, fromFreqMhz: fromFreq,
                        toFreqMhz: e.bssid.flatMap { frequencies[$0] } ?? live.freqMhz))
            }
        }
    }

    /// One sample: the interface (frequency, SSID), its AP's station entry, now and then the
    /// scan cache. Retries and failures are deltas since the previous sample on the same AP.
    func sample() throws {
        let iface: NL80211.Interface
        do {
            guard let i = try client.interfaces().first(where: { $0.ifindex == ifindex }) else {
                throw WiFiError.noSuchInterface("\(interfaceName) went away during the walk")
            }
            iface = i
        } catch let e as NetlinkError {
            throw WiFiError.netlink(e)
        }
        let time = transport.lastReceived
        let station: NL80211.Station?
        do { station = try WiFiSampler.stations(client, interface: iface, bssid: apBssid).first } catch { throw WiFiError.netlink(error) }
        if sampleCount % scanEvery == 0 || resultsPending {
            resultsPending = false
            let scan: [NL80211.ScanBSS]
            do { scan = try client.scan(ifindex: ifindex) } catch { throw WiFiError.netlink(error) }
            let believed = profile?.signal != .unreliable
            // The read belongs to the sample that made it (`WalkScan`): stamped with its time.
            scans.append(WalkScan(timeNs: time, entries: scan.map { WalkBSS($0, signalBelieved: believed) }))
            // The freshest entry of a BSSID last (a stale one of another SSID may stand beside it).
            for b in scan.sorted(by: { ($0.seenMsAgo ?? .max) > ($1.seenMsAgo ?? .max) }) {
                guard let s = b.ssid.map(SSIDText.render) else { continue }
                ssids[b.bssid] = s
                if let f = b.frequency { channelsBySSID[s, default: []].insert(f) }
            }
            if pendingDisconnect == nil, let a = scan.first(where: \.associated) { apBssid = a.bssid }
        }
        sampleCount += 1
        let ssid = iface.ssid.map(SSIDText.render) ?? station.flatMap { ssids[$0.mac] }
        var s = WalkSample(timeNs: time, bssid: station?.mac, ssid: ssid, freqMhz: iface.frequency.map(Int.init))
        if let b = s.bssid, let f = s.freqMhz { frequencies[b] = f }
        if let st = station {
            // Counters the driver fills wrongly are not counters (DriverProfiles).
            let believed = profile?.believed(st) ?? st
            s.signalDbm = believed.signal.map(Int.init)
            s.signalAverageDbm = believed.signalAverage.map(Int.init)
            s.txBitrateMbps = st.txBitrateMbps
            let retries = believed.txRetries
            let failed = believed.txFailed
            if let p = previous, p.bssid == st.mac {
                s.retries = Self.delta(p.retries, retries)
                s.txFailed = Self.delta(p.failed, failed)
                s.packets = Self.delta(p.packets, st.txPackets)
            }
            previous = (st.mac, retries, failed, st.txPackets)
            if let p = profile, st.txRetries != nil, p.txRetries == .unreliable || p.txRetries == .undercounted, let why = p.retriesWhy {
                notes.insert(why + (p.txRetries == .unreliable ? ": retransmissions are UNKNOWN" : ": the retries shown are a lower bound"))
            } else if st.txRetries == nil {
                notes.insert("the driver reports no transmit retries: retransmissions are UNKNOWN")
            }
            if st.signal == nil {
                notes.insert("the driver reports no signal for its AP")
            } else if believed.signal == nil, let why = profile?.signalWhy {
                notes.insert(why + ": the signal is UNKNOWN")
            }
        } else if iface.ssid != nil {
            notes.insert("the driver lists no station entry for its AP: signal and retries are UNKNOWN")
        }
        samples.append(s)
        try triggerScanIfDue(at: time, ssid: ssid)
        live = Live(
            bssid: s.bssid, ssid: s.ssid, freqMhz: s.freqMhz, signalDbm: s.roamSignalDbm,
            retriesPct: s.retriesPercent ?? (s.bssid == live.bssid ? live.retriesPct : nil))
    }

    /// `--scan-every`: a scan of the channels of the SSID's BSSs in the scan cache's reads so far
    /// (every channel when none), when the last one asked is `scanEveryNs` old. Decided on the
    /// sample's time, so a replay asks where the walk asked. Without CAP_NET_ADMIN the walk goes on
    /// with the system's own scans, and a note says why.
    func triggerScanIfDue(at time: Int64, ssid: String?) throws {
        guard let every = scanEveryNs, !triggerRefused, lastTriggerNs.map({ time - $0 >= every }) ?? true else { return }
        lastTriggerNs = time
        let channels = ssid.flatMap { channelsBySSID[$0] }?.sorted() ?? []
        do {
            activity.requestedScan(at: time)
            if try !client.triggerScan(ifindex: ifindex, frequencies: channels) { notes.insert("--scan-every: a scan was already running when one was due") }
        } catch .kernel(let code, _) where code == -1 || code == -13 {
            triggerRefused = true
            notes.insert("--scan-every: not permitted without CAP_NET_ADMIN (run as root or grant it): the walk used the system's own scans")
        } catch {
            throw WiFiError.netlink(error)
        }
    }

    /// A u32 counter's increase, across one wrap; nil when it went back (the driver reset it).
    static func delta(_ a: UInt32?, _ b: UInt32?) -> UInt64? {
        guard let a, let b else { return nil }
        if b >= a { return UInt64(b - a) }
        return a > 0xF000_0000 && b < 0x1000_0000 ? UInt64(b &- a) : nil
    }
}
