/// Where a Wi-Fi value comes from and what it is worth: written once here, read by the analysis,
/// the verdicts and every renderer; the raw values are the JSON's, `said` and `qualifier` the
/// words the text outputs give them.

/// The channel utilisation's source: the channel's survey entry, the radio-wide survey, or the
/// AP's advertised BSS Load.
public enum UtilizationSource: String, Codable, Sendable {
    case survey
    case radioSurvey = "radio_survey"
    case bssLoad = "bss_load"

    public var said: String {
        switch self {
        case .survey: return "survey"
        case .radioSurvey: return "radio-wide survey"
        case .bssLoad: return "AP's BSS Load"
        }
    }
}

/// What the utilisation is worth: measured over the window, over each sample's own period,
/// radio-wide, or the AP's own figure.
public enum UtilizationTrust: String, Codable, Sendable {
    case measured
    case measuredPeriod = "measured_period"
    case measuredRadioWide = "measured_radio_wide"
    case advertised

    /// What the text adds after the source's name.
    public var qualifier: String {
        switch self {
        case .measured, .measuredRadioWide: return ""
        case .measuredPeriod: return " (each sample's own period)"
        case .advertised: return " (the AP's own figure)"
        }
    }
}

/// The retransmissions' source: the station's retry counters, or frames given up.
public enum RetransmissionSource: String, Codable, Sendable {
    case stationRetries = "station_retries"
    case txFailed = "tx_failed"

    public var said: String {
        switch self {
        case .stationRetries: return "station counters"
        case .txFailed: return "frames given up"
        }
    }
}

/// What the retransmission figure is worth: measured, or a lower bound (frames given up, or
/// retries a driver undercounts).
public enum RetransmissionTrust: String, Codable, Sendable {
    case measured
    case lowerBound = "lower_bound"

    /// What the text adds after the source's name.
    public var qualifier: String {
        switch self {
        case .measured: return ""
        case .lowerBound: return ", a lower bound (UNKNOWN while within the limits)"
        }
    }
}

/// The signal's source: the AP's station entry.
public enum SignalSource: String, Codable, Sendable {
    case station

    public var said: String { "the AP's station entry" }
}

/// What the signal is worth: the driver measures it.
public enum SignalTrust: String, Codable, Sendable {
    case measured
}
