/// The report model of `pushdiag capture`: plain values between the analysis and every renderer.
/// JSON field names are these names in snake_case (the renderer converts them).

public struct ManagementCounts: Codable, Sendable, Equatable {
    public var associationRequest = 0
    public var associationResponse = 0
    public var reassociationRequest = 0
    public var reassociationResponse = 0
    public var authentication = 0
    public var deauthentication = 0
    public var disassociation = 0
    public var probeRequest = 0
    public var probeResponse = 0
    public var action = 0
    public init() {}
}

public struct BSSLoadReport: Codable, Sendable, Equatable {
    /// The last advertised values.
    public var stationCount: Int
    public var channelUtilizationPercent: Double
    /// Raw utilisation (0–255) last advertised.
    public var channelUtilizationRaw: Int
    public var channelUtilizationMinPercent: Double
    public var channelUtilizationMaxPercent: Double
    public var channelUtilizationMeanPercent: Double
    public var samples: Int
}

public struct BSSReport: Codable, Sendable, Equatable {
    public var bssid: MACAddress
    @Nullable public var ssid: String?
    @Nullable public var channel: Int?
    @Nullable public var frequencyMhz: Int?
    public var frames: Int
    public var retryFrames: Int
    @Nullable public var retryPercent: Double?
    public var beacons: Int
    public var probeResponses: Int
    @Nullable public var bssLoad: BSSLoadReport?
    /// 802.11r: Mobility Domain element or an FT AKM in RSN.
    public var fastTransition: Bool
    /// 802.11k: RM Enabled Capabilities element.
    public var radioMeasurement: Bool
    /// 802.11v: Extended Capabilities bit 19.
    public var bssTransition: Bool
    @Nullable public var mobilityDomain: Int?
    @Nullable public var signalDbm: Double?
    /// From its beacons: the beacon interval (TU) and the TIM element's DTIM period.
    @Nullable public var beaconIntervalTu: Int? = nil
    @Nullable public var dtimPeriod: Int? = nil
    /// BSS transition requests and responses, deauthentications, disassociations and SA Queries
    /// that it sent or received.
    @Added public var steering = SteeringReport()
    /// The same per hour (UTC), the hours with any; at most a week of hours, then counted here.
    @Added public var steeringByHour: [SteeringHourReport] = []
    @Added public var steeringHoursDropped = 0
}

public struct TransmitterReport: Codable, Sendable, Equatable {
    public var mac: MACAddress
    public var frames: Int
    public var retryFrames: Int
    public var retryPercent: Double
}

public struct ChannelReport: Codable, Sendable, Equatable {
    public var frequencyMhz: Int
    @Nullable public var channel: Int?
    public var frames: Int
    public var retryFrames: Int
    /// Frames whose rate was known, so their airtime could be computed.
    public var airtimeFrames: Int
    public var airtimeMs: Double
    /// Time between the first and last frame on this channel.
    public var spanSeconds: Double
    /// Airtime / span: a lower bound of the channel's busy time (see pushdiag(1)).
    @Nullable public var utilizationPercent: Double?
    /// The highest BSS Load utilisation advertised by a BSS on this channel.
    @Nullable public var advertisedUtilizationPercent: Double?
}

/// How a station reached its new BSS in a capture.
public enum CaptureRoamKind: String, Codable, Sendable, CaseIterable, RawValueDescribed {
    case reassociation
    case fastTransition = "fast_transition"
    /// A new association after the station was deauthenticated or disassociated.
    case associationAfterDeauthentication = "association_after_deauthentication"
    case associationAfterDisassociation = "association_after_disassociation"
}

public struct RoamingEventReport: Codable, Sendable, Equatable {
    public var time: String
    public var station: MACAddress
    @Nullable public var fromBssid: MACAddress?
    public var toBssid: MACAddress
    public var kind: CaptureRoamKind
    @Nullable public var ssid: String?
    /// Reason code of the deauthentication/disassociation that preceded it.
    @Nullable public var reasonCode: Int?
    /// Status code of the AP's (re)association or FT authentication response, when seen.
    @Nullable public var statusCode: Int?
    /// From leaving the old BSS (or the roam's first frame) to the new BSS's successful response.
    @Nullable public var gapMs: Double?
}

public struct BSSTransitionReport: Codable, Sendable, Equatable {
    public var queries = 0
    public var requests = 0
    public var responses = 0
    public var accepted = 0
    public var rejected = 0
    /// Action frames protected under 802.11w, of any category (Block Ack setup, BTM, SA Query…),
    /// the category encrypted: the BTM frames among them are not in the counts above.
    @Added public var protectedActions = 0
    public init() {}

    /// Another file's counts added (each a sum over frames).
    mutating func add(_ o: BSSTransitionReport) {
        for k in [\Self.queries, \.requests, \.responses, \.accepted, \.rejected, \.protectedActions] { self[keyPath: k] += o[keyPath: k] }
    }
}

public struct CaptureReport: Codable, Sendable, Equatable {
    @Nullable public var file: String?
    @Nullable public var linkType: Int?
    @Nullable public var linkTypeName: String?
    /// Every record read.
    public var frames: Int
    /// Records whose 802.11 frame control could be read.
    public var dot11Frames: Int
    /// Records whose radio header could not be read (no 802.11 frame in them).
    public var undecodable: Int
    /// 802.11 frames whose protocol version is not 0 (mangled by the radio): counted here and
    /// nowhere else, their type and flags not interpreted.
    public var invalidFrames: Int
    /// 802.11 frames with the Retry bit (bad-FCS frames included, as tshark's `wlan.fc.retry == 1`).
    public var retryFrames: Int
    /// Of `retryBase`.
    @Nullable public var retryPercent: Double?
    public var beacons: Int
    public var management: ManagementCounts
    public var dataFrames: Int
    public var controlFrames: Int
    public var extensionFrames: Int
    public var fcsFrames: Int
    public var fcsBadFlagged: Int
    /// Frames whose recomputed FCS did not match (only with --check-fcs).
    @Nullable public var fcsBad: Int?
    public var malformedElements: Int
    @Nullable public var start: String?
    @Nullable public var end: String?
    @Nullable public var durationSeconds: Double?
    public var bss: [BSSReport]
    public var transmitters: [TransmitterReport]
    /// Transmitters beyond the table's bound, counted in totals only.
    public var untrackedTransmitters: Int
    public var channels: [ChannelReport]
    public var roamingEvents: [RoamingEventReport]
    public var roamingEventsDropped: Int
    public var bssTransitionManagement: BSSTransitionReport
    public var findings: [Finding]
    public var status: Severity
    public var truncated: Bool
    @Nullable public var error: String?
    /// Every station (issue #30), most frames first.
    @Added public var stations: [CaptureStationReport] = []
    /// Frames from stations beyond the table's bound, not followed.
    @Added public var untrackedStations = 0
    /// BSSs whose TIMs set AIDs past the 1,024 BSSs followed (per file): a doze on one is
    /// counted in `tim_unknown`, not as buffered or not.
    @Added public var untrackedTimBsses = 0
}

extension CaptureReport {
    /// The frames a retry share is over, here and in a survey's check: the 802.11 frames less
    /// the invalid ones (whose Retry bit means nothing).
    public var retryBase: Int { Self.retryBase(dot11Frames: dot11Frames, invalidFrames: invalidFrames) }
    static func retryBase(dot11Frames: Int, invalidFrames: Int) -> Int { dot11Frames - invalidFrames }
}

public struct MultiCaptureReport: Codable, Sendable, Equatable {
    public var files: [CaptureReport]
    public var total: CaptureReport
    public var status: Severity

    public init(files: [CaptureReport], total: CaptureReport, status: Severity) {
        self.files = files
        self.total = total
        self.status = status
    }
}
