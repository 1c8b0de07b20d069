/// The report model of `pushdiag wifi`. JSON names are these in snake_case.
public struct ChannelSurveyReport: Codable, Sendable, Equatable {
    public var frequencyMhz: Int
    public var inUse: Bool
    @Nullable public var noiseDbm: Int?
    @Nullable public var activeMs: UInt64?
    @Nullable public var busyMs: UInt64?
    @Nullable public var extBusyMs: UInt64?
    @Nullable public var rxMs: UInt64?
    @Nullable public var txMs: UInt64?
}

public struct StationReport: Codable, Sendable, Equatable {
    public var mac: MACAddress
    @Nullable public var txPackets: UInt32?
    @Nullable public var txRetries: UInt32?
    @Nullable public var txFailed: UInt32?
    @Nullable public var rxPackets: UInt32?
    @Nullable public var signalDbm: Int?
    @Nullable public var connectedSeconds: UInt32?
}

public struct ScanBSSReport: Codable, Sendable, Equatable {
    public var bssid: MACAddress
    @Nullable public var ssid: String?
    @Nullable public var frequencyMhz: Int?
    @Nullable public var channel: Int?
    @Nullable public var signalDbm: Double?
    @Nullable public var bssLoad: ScanBSSLoad?
    public var fastTransition: Bool
    public var radioMeasurement: Bool
    public var bssTransition: Bool
    /// The interface is associated with this BSS.
    public var current: Bool
}

extension ScanBSSReport {
    /// A scan cache entry as the reports show it (`wifi`'s BSS list, the walk's scan reads); its
    /// signal left out where the driver's signal is not believed (`DriverProfiles`).
    public init(_ b: NL80211.ScanBSS, current: Bool, signalBelieved: Bool = true) {
        self.init(
            bssid: b.bssid, ssid: b.ssid.map(SSIDText.render), frequencyMhz: b.frequency.map(Int.init),
            channel: b.channel.map(Int.init) ?? b.frequency.flatMap { ChannelPlan.channel(forFrequency: Int($0)) },
            signalDbm: signalBelieved ? b.signalMBm.map { Double($0) / 100 } : nil,
            bssLoad: b.bssLoadUtilization.map {
                ScanBSSLoad(stationCount: Int(b.bssLoadStations ?? 0), channelUtilizationPercent: CaptureAnalyzer.utilizationPercent(Int($0)))
            },
            fastTransition: b.fastTransition, radioMeasurement: b.radioMeasurement, bssTransition: b.bssTransition, current: current)
    }
}

public struct ScanBSSLoad: Codable, Sendable, Equatable {
    public var stationCount: Int
    public var channelUtilizationPercent: Double
}

public struct WiFiReport: Codable, Sendable, Equatable {
    public var interface: String
    @Nullable public var ssid: String?
    @Nullable public var bssid: MACAddress?
    @Nullable public var frequencyMhz: Int?
    @Nullable public var channel: Int?
    @Nullable public var channelWidthMhz: Int?
    public var samples: Int
    public var windowSeconds: Double
    /// The last sample's raw survey entries.
    public var survey: [ChannelSurveyReport]
    /// The last sample's raw station counters.
    public var stations: [StationReport]
    /// Δbusy / Δactive over the window: on the channel in use, else radio-wide; else the AP's
    /// advertised BSS Load (see the source).
    @Nullable public var channelUtilizationPercent: Double?
    /// `survey` (the channel in use), `radio_survey` (radio-wide), `bss_load` (the AP's figure).
    @Nullable public var channelUtilizationSource: UtilizationSource?
    /// `measured`, `measured_period` (each sample's own times: a driver whose survey holds its
    /// last period), `measured_radio_wide` or `advertised`.
    @Nullable public var channelUtilizationTrust: UtilizationTrust?
    /// Δtx_retries / Δtx_packets to the associated peer over the window; where the driver keeps
    /// no (believable) retries, Δtx_failed / Δtx_packets, a lower bound.
    @Nullable public var retransmissionPercent: Double?
    /// `station_retries` or `tx_failed`.
    @Nullable public var retransmissionSource: RetransmissionSource?
    /// `measured` or `lower_bound` (frames given up, or retries a driver undercounts).
    @Nullable public var retransmissionTrust: RetransmissionTrust?
    /// Δtx_packets to the associated peer over the window: the frames the share is over. A share
    /// over fewer than `--min-frames` is shown but not judged (`Thresholds.judgesRetries`).
    @Nullable public var retransmissionFrames: UInt64?
    /// Δtx_failed over the window (frames given up after all retries).
    @Nullable public var txFailed: UInt64?
    /// The BSSes of the connected SSID in the scan cache.
    public var bss: [ScanBSSReport]
    /// The associated AP's signal as the station entry gives it (its average when there is
    /// one), the channel's noise floor from the survey, and their difference.
    @Nullable public var signalDbm: Int?
    @Nullable public var noiseDbm: Int?
    @Nullable public var snrDb: Int?
    /// The driver's name in sysfs (null in a replay unless given with --driver).
    @Nullable public var driver: String?
    /// The family pushdiag knows it as, when it does (see `DriverProfiles`).
    @Nullable public var driverFamily: String?
    public var findings: [Finding]
    public var status: Severity
    /// Why `channelUtilizationPercent` is null, for the checks that say so (also in `notes`,
    /// which is what the JSON carries).
    public var utilizationUnknown: String? = nil
    /// Why `retransmissionPercent` is null, or why it was not judged (too few frames, or a lower
    /// bound within the limits).
    public var retransmissionsUnknown: String? = nil
    /// Why `signalDbm` is null while the interface is on a BSS.
    public var signalUnknown: String? = nil
    /// What could not be derived, and why ("survey: not reported by driver").
    public var notes: [String]
    /// The share is over fewer frames than it is judged over (`Thresholds.judgesRetries`): shown,
    /// not judged (the survey's check says UNKNOWN as wifi does). Not in the JSON: the reason is.
    var retransmissionTooFewFrames = false

    enum CodingKeys: String, CodingKey {
        case interface, ssid, bssid, frequencyMhz, channel, channelWidthMhz, samples, windowSeconds, survey, stations
        case channelUtilizationPercent, channelUtilizationSource, channelUtilizationTrust, retransmissionPercent, retransmissionSource
        case retransmissionTrust, retransmissionFrames, txFailed, signalDbm, noiseDbm, snrDb, bss, driver, driverFamily, findings, status, notes
    }
}
