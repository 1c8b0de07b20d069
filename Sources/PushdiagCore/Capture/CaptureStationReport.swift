/// The per-station part of `pushdiag capture`'s report model (issue #30). Maps of counts are
/// keyed by the numeric code as a string (`{"4": 2}`); renderers name the codes.

/// How a roam authenticated to its new AP.
public enum RoamType: String, Codable, Sendable, CaseIterable {
    /// 802.11r over the air: FT authentication (algorithm 2) with the target.
    case ftOverTheAir = "ft_over_the_air"
    /// 802.11r over the DS: FT Action frames through the current AP, then a reassociation with an FT element.
    case ftOverTheDS = "ft_over_the_ds"
    /// A PMKID in the (re)association request's RSN element: PMKSA caching or opportunistic key caching.
    case pmksaCaching = "pmksa_caching"
    /// SAE authentication (algorithm 3) with the target.
    case sae
    /// A full 802.1X (EAP) authentication after the association.
    case eap = "eap_8021x"
    /// Open System authentication and none of the above (a PSK's four-way handshake follows).
    case open

    /// 802.11r: graded with the walk's fast-transition limits.
    public var isFastTransition: Bool { self == .ftOverTheAir || self == .ftOverTheDS }
}

public enum SilenceEdgeKind: String, Codable, Sendable {
    /// The station's last frame before the silence had the Power Management bit set.
    case dozing
    case deauthentication
    case disassociation
    /// It came back on another BSS.
    case roam
    /// It came back by authenticating or (re)associating with the same BSS.
    case association
    /// It came back after a doze.
    case woke
    /// Nothing marks that side of the silence.
    case nothing
    /// The capture ended first.
    case endOfCapture = "end_of_capture"
}

public enum FrameSender: String, Codable, Sendable {
    case ap, station
}

/// What preceded or followed a silence.
public struct SilenceEdge: Codable, Sendable, Equatable {
    public var kind: SilenceEdgeKind
    /// Who sent the deauthentication or disassociation.
    @Nullable public var by: FrameSender? = nil
    @Nullable public var reasonCode: Int? = nil
    /// The BSS it dozed in, left, or came back on.
    @Nullable public var bssid: MACAddress? = nil
}

public struct SilenceReport: Codable, Sendable, Equatable {
    /// The station's last frame before the gap.
    public var start: String
    public var durationMs: Double
    public var before: SilenceEdge
    public var after: SilenceEdge
}

public struct DozeReport: Codable, Sendable, Equatable {
    /// Dozes that ended within the capture: from a frame with the PM bit set to the station's next frame.
    public var count: Int
    public var totalMs: Double
    @Nullable public var longestMs: Double?
    public var wokeByPsPoll: Int
    /// A data or null frame with the PM bit clear: out of power save.
    public var wokeByPmClear: Int
    /// A QoS data or QoS Null frame with the PM bit still set (a U-APSD trigger).
    public var wokeByUapsdTrigger: Int
    public var wokeByOther: Int
    /// Frames its AP sent it while it dozed.
    public var framesFromApWhileDozing: Int
    /// Dozes during which a beacon of its BSS set its AID in the TIM (frames buffered for it).
    @Nullable public var bufferedInTim: Int?
    @Nullable public var notBufferedInTim: Int?
    /// Dozes for which that is not known: its AID was not seen, or no beacon's TIM during the doze.
    public var timUnknown: Int
    /// It was dozing when the capture ended (that doze is not counted).
    public var dozingAtEnd: Bool
}

public struct StationRoamReport: Codable, Sendable, Equatable {
    /// The (re)association request.
    public var time: String
    @Nullable public var fromBssid: MACAddress?
    public var toBssid: MACAddress
    public var type: RoamType
    /// The (re)association response's status, when seen.
    @Nullable public var statusCode: Int?
    /// From the roam's first frame (or leaving the old BSS) to the successful response; for an 802.1X roam, to the
    /// 4-way handshake's message 4 (null until it is seen), as the man page says.
    @Nullable public var gapMs: Double?
    /// The walk's limits for the type (802.11r: ft_gap, others: roam_gap); critical when refused; null when no response was seen.
    @Nullable public var grade: Severity?
}

public struct SteeringReport: Codable, Sendable, Equatable {
    /// WNM BSS Transition Management (802.11v).
    public var btmQueries = 0
    public var btmRequests = 0
    /// Requests with the disassociation-imminent bit.
    public var btmDisassociationImminent = 0
    /// Neighbor Report candidates listed in the requests, in all.
    public var btmCandidates = 0
    public var btmResponses = 0
    public var btmResponsesByStatus: [String: Int] = [:]
    /// By the code in decimal; "unknown": protected frames (the reason encrypted); "other": codes
    /// past the first 32 (`CodeCounts`).
    public var deauthByReason: [String: Int] = [:]
    public var disassocByReason: [String: Int] = [:]
    public var deauthFromAp = 0
    public var deauthFromStations = 0
    public var disassocFromAp = 0
    public var disassocFromStations = 0
    public var saQueryRequests = 0
    public var saQueryResponses = 0
    /// Action frames protected under 802.11w, of any category (Block Ack setup, radio
    /// measurement, BTM, SA Query…): the category is encrypted, so the BTM and SA Query frames
    /// among them are not in the counts above.
    @Added public var protectedActions = 0
    public init() {}

    public var isEmpty: Bool { self == SteeringReport() }

    /// The counters, each a sum over frames: what adding two reports adds (the maps by code are
    /// the caller's, `CodeCounts`).
    static var counters: [WritableKeyPath<SteeringReport, Int>] {
        [
            \.btmQueries, \.btmRequests, \.btmDisassociationImminent, \.btmCandidates, \.btmResponses, \.deauthFromAp, \.deauthFromStations,
            \.disassocFromAp, \.disassocFromStations, \.saQueryRequests, \.saQueryResponses, \.protectedActions,
        ]
    }

    mutating func addCounters(_ o: SteeringReport) { for k in Self.counters { self[keyPath: k] += o[keyPath: k] } }
}

/// One hour of an AP's steering (the hours with any).
public struct SteeringHourReport: Codable, Sendable, Equatable {
    /// The hour's start.
    public var hour: String
    public var steering: SteeringReport
}

extension SteeringReport: AddedDefault {
    public static var addedDefault: SteeringReport { SteeringReport() }
}

public struct CaptureStationReport: Codable, Sendable, Equatable {
    public var mac: MACAddress
    /// The BSS it was last in (the one it left, when it left last).
    @Nullable public var bssid: MACAddress?
    /// Frames it sent (data To DS, PS-Poll, management to the BSS).
    public var frames: Int
    public var retryFrames: Int
    /// Frames it sent with the Power Management bit set.
    public var powerSaveFrames: Int
    /// From its last (re)association request (in beacon intervals).
    @Nullable public var listenInterval: Int?
    /// From its AP's last successful (re)association response.
    @Nullable public var aid: Int?
    /// Its BSS's beacon interval (TU) and DTIM period, from the beacons.
    @Nullable public var beaconIntervalTu: Int?
    @Nullable public var dtimPeriod: Int?
    /// Authentication frames it sent, by algorithm (0 open, 1 shared key, 2 FT, 3 SAE).
    public var authAlgorithms: [String: Int]
    public var dozes: DozeReport
    public var silences: [SilenceReport]
    public var silencesDropped: Int
    public var roams: [StationRoamReport]
    public var roamsDropped: Int
    public var steering: SteeringReport
}
