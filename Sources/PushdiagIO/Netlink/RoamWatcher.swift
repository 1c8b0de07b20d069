import PushdiagCore

/// nl80211's multicast events as connects, disconnects and roams, as they happen: what `watch`
/// prints, and what a walk joins with its push connection. Live or from a recording alike.
public final class RoamWatcher {
    let client: NL80211Client
    let transport: NetlinkTransport
    var tracker: RoamTracker
    var names: [UInt32: String] = [:]
    /// Only this interface's events (nil: every wireless interface's).
    public let only: UInt32?
    /// The first and last times seen (ns since the epoch): the summary's span.
    public private(set) var start: Int64 = 0
    public private(set) var end: Int64 = 0
    /// Every nl80211 event as it is read, with its time, before the tracker sees it (a walk's
    /// stalls read the scans, channel switches and radar events the tracker leaves aside).
    public var onEvent: ((Int64, NL80211.Event) -> Void)?

    /// Subscribes to nl80211's events for `interface` (every wireless interface when nil) and
    /// seeds the tracker with what each is connected to now.
    public init(client: NL80211Client, transport: NetlinkTransport, interface: String?, roamWindowSeconds: Double) throws {
        self.client = client
        self.transport = transport
        tracker = RoamTracker(windowSeconds: roamWindowSeconds)
        var only: UInt32?
        client.focus(on: interface.map { .init(name: $0) })
        // Subscribed first, then the interfaces read: no event falls between the two (and a
        // replay keeps every event from here on).
        try client.subscribe()
        for i in try client.interfaces() {
            names[i.ifindex] = i.name
            if let want = interface, i.name == want { only = i.ifindex }
        }
        if let want = interface, only == nil {
            throw WiFiError.noSuchInterface(want + (transport.isReplay ? " (not in the recording)" : " (or not a wireless interface)"))
        }
        self.only = only
        // In ifindex order: a replay asks what the recording asked, in the same order (a
        // dictionary's order differs from one run to the next).
        for ifindex in names.keys.sorted() where only == nil || only == ifindex {
            let bss = try client.scan(ifindex: ifindex).first(where: \.associated)
            let ssid = try client.interfaces().first { $0.ifindex == ifindex }?.ssid
            tracker.seed(ifindex: ifindex, bssid: bss?.bssid, ssid: ssid.map(SSIDText.render) ?? bss?.ssid.map(SSIDText.render))
        }
        start = transport.lastReceived
        end = start
    }

    /// The events of the next `timeoutMs`: empty when none came; nil when a replay has ended.
    public func next(timeoutMs: Int32) throws -> [WatchEvent]? {
        let names = self.names
        let name = { (i: UInt32) in names[i] ?? "ifindex \(i)" }
        guard let (time, events) = try client.nextEvent(timeoutMs: timeoutMs) else {
            // Nothing came: the moves held to settle may have settled (a replay's end settles all).
            let settled = tracker.flush(now: transport.isReplay ? .max : transport.now, name: name)
            return transport.isReplay && settled.isEmpty ? nil : settled
        }
        end = time
        var out: [WatchEvent] = []
        for e in events {
            onEvent?(time, e)
            let ifindex: UInt32?
            switch e {
            case .connect(let i, _, _, _, _), .roam(let i, _, _), .disconnect(let i, _, _), .authenticate(let i, _, _, _, _): ifindex = i
            default: ifindex = nil
            }
            guard let ifindex, only == nil || only == ifindex else { continue }
            out += tracker.handle(e, time: time, name: name, ssid: ssid)
        }
        return out
    }

    /// The moves still held to settle, at the end of a run.
    public func finish() -> [WatchEvent] {
        let names = self.names
        return tracker.flush(now: .max) { names[$0] ?? "ifindex \($0)" }
    }

    /// The SSID after a connect: the interface says it, or the scan cache's entry for the BSS
    /// (`ScanBSS.entry`: at an association event the interface may not name its SSID yet, and a
    /// BSSID can have a stale entry of another SSID on another channel).
    func ssid(_ ifindex: UInt32, _ bssid: MACAddress?) -> String? {
        let iface = try? client.interfaces().first(where: { $0.ifindex == ifindex })
        if let s = iface?.ssid { return SSIDText.render(s) }
        guard let bssid, let scan = try? client.scan(ifindex: ifindex) else { return nil }
        return NL80211.ScanBSS.entry(for: bssid, frequency: iface?.frequency, in: scan)?.ssid.map(SSIDText.render)
    }

    /// Follows events until `stop`, `limitSeconds` (of the recording's time in a replay) or the
    /// end of a replay, handing each to `emit`; then the summary.
    public func run(limitSeconds: Double?, stop: () -> Bool, emit: (WatchEvent) -> Void) throws -> WatchSummary {
        let monotonicStart = WallClock.monotonicNanoseconds()
        while !stop() {
            if let limitSeconds {
                let elapsed = transport.isReplay ? Double(transport.now - start) / 1e9 : Double(WallClock.monotonicNanoseconds() - monotonicStart) / 1e9
                if elapsed >= limitSeconds { break }
            }
            guard let events = try next(timeoutMs: 250) else { break }
            events.forEach(emit)
        }
        finish().forEach(emit)
        // The state at the end (also what ends a replay at the same moment as the run).
        _ = try? client.interfaces()
        end = max(end, transport.lastReceived)
        return tracker.summary(start: start, end: end)
    }
}
