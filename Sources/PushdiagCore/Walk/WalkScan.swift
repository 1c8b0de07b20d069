/// One BSS of the kernel's scan cache (NL80211_CMD_GET_SCAN) as a walk keeps it: the entry as the
/// reports show one (`ScanBSSReport`: BSSID, SSID, frequency, signal, BSS Load, 802.11r/k/v; its
/// `current` is NL80211_BSS_STATUS associated) and its age (NL80211_BSS_SEEN_MS_AGO) when the
/// cache was read; nil when the kernel did not say it.
public struct WalkBSS: Sendable, Equatable {
    public var entry: ScanBSSReport
    public var ageMs: Double?

    public var bssid: MACAddress { entry.bssid }
    public var ssid: String? { entry.ssid }
    public var freqMhz: Int? { entry.frequencyMhz }
    public var signalDbm: Double? { entry.signalDbm }

    public init(_ entry: ScanBSSReport, ageMs: Double?) {
        self.entry = entry
        self.ageMs = ageMs
    }

    /// The walk's view of a scan cache entry; `signalBelieved` as the driver's profile says.
    public init(_ b: NL80211.ScanBSS, signalBelieved: Bool = true) {
        self.init(ScanBSSReport(b, current: b.associated, signalBelieved: signalBelieved), ageMs: b.seenMsAgo.map(Double.init))
    }

    /// An entry from values (tests, fixtures).
    public init(bssid: MACAddress, ssid: String?, freqMhz: Int?, signalDbm: Double?, ageMs: Double?, radioMeasurement: Bool = false) {
        self.init(
            ScanBSSReport(
                bssid: bssid, ssid: ssid, frequencyMhz: freqMhz, channel: freqMhz.flatMap(ChannelPlan.channel(forFrequency:)), signalDbm: signalDbm,
                bssLoad: nil, fastTransition: false, radioMeasurement: radioMeasurement, bssTransition: false, current: false),
            ageMs: ageMs)
    }
}

/// One read of the scan cache during a walk: when (on the walk's clock) and every entry. The
/// link reads the cache now and then (`WalkLink.scanEvery`), as part of a sample, and stamps the
/// read with that sample's time: the sample sees its own read, and every later one the last read
/// at or before it, each entry aged by the time since (`fresh(at:staleAfterMs:)`). The entries'
/// ages are the kernel's at the read, a few milliseconds after the sample's station dump: a
/// little older than they were at the sample, never younger.
public struct WalkScan: Sendable, Equatable {
    public var timeNs: Int64
    public var entries: [WalkBSS]

    public init(timeNs: Int64, entries: [WalkBSS]) {
        self.timeNs = timeNs
        self.entries = entries
    }

    /// The entries as they stand at `t`: each entry's age then (its age at the read plus the time
    /// since). An entry older than `staleAfterMs`, or of no known age, is stale and left out: a
    /// signal heard that long ago is not where the walker is now.
    public func fresh(at t: Int64, staleAfterMs: Double) -> [WalkBSS] {
        let since = Double(t - timeNs) / 1e6
        return entries.compactMap { e in
            guard let age = e.ageMs, since >= 0, age + since <= staleAfterMs else { return nil }
            var aged = e
            aged.ageMs = age + since
            return aged
        }
    }

    /// The last read at or before `t` (reads in time order).
    public static func last(at t: Int64, in scans: [WalkScan]) -> WalkScan? {
        scans.last { $0.timeNs <= t }
    }
}
