/// Where a Wi-Fi value comes from and what it is worth: written once here, read by the analysis,
/// the verdicts and every renderer; the raw values are the JSON's.

/// The channel utilisation's source: the channel's survey entry, the radio-wide survey, or the
/// AP's advertised BSS Load.
public enum UtilizationSource: String, Codable, Sendable {
    case survey
    case radioSurvey = "radio_survey"
    case bssLoad = "bss_load"
}

/// What the utilisation is worth: measured over the window, over each sample's own period,
/// radio-wide, or the AP's own figure.
public enum UtilizationTrust: String, Codable, Sendable {
    case measured
    case measuredPeriod = "measured_period"
    case measuredRadioWide = "measured_radio_wide"
    case advertised
}

/// The retransmissions' source: the station's retry counters, or frames given up.
public enum RetransmissionSource: String, Codable, Sendable {
    case stationRetries = "station_retries"
    case txFailed = "tx_failed"
}

/// What the retransmission figure is worth: measured, or a lower bound (frames given up, or
/// retries a driver undercounts).
public enum RetransmissionTrust: String, Codable, Sendable {
    case measured
    case lowerBound = "lower_bound"
}
