/// What a Wi-Fi driver's nl80211 counters are worth, by its kernel driver name (the basename of
/// /sys/class/net/IF/device/driver). A counter a driver does not keep is absent from its replies
/// (pushdiag then says UNKNOWN); one it fills with something other than what the name says is
/// `unreliable`, and pushdiag does not use it even though the kernel hands it over.
public struct DriverProfile: Sendable, Equatable {
    /// The raw values are doctor's (`DoctorCounter.table`).
    public enum Counter: String, Sendable {
        /// Kept and meaningful.
        case kept
        /// Not reported (absent from the replies) for a client interface.
        case absent
        /// Reported, but not to be believed (always 0, or not what its name says).
        case unreliable
        /// Reported, but counting only some frames: a lower bound.
        case undercounted
        /// Survey only: each dump's times cover the driver's last measurement period (they are
        /// replaced, not added to), so a sample's own busy/active is the ratio, not a difference.
        case perPeriod = "per_period"
    }

    /// The driver family ("iwlwifi", "rtw88").
    public var family: String
    /// Names the driver shows in sysfs: exact names, or prefixes ending in "*".
    public var names: [String]
    /// Channel busy/active time in the survey for the channel in use.
    public var survey: Counter
    public var txRetries: Counter
    public var txFailed: Counter
    /// The station's signal (`NL80211_STA_INFO_SIGNAL`).
    public var signal: Counter = .kept
    /// Why, in words, for the notes and the UNKNOWN checks.
    public var surveyWhy: String?
    public var retriesWhy: String?
    public var failedWhy: String?
    public var signalWhy: String?

    /// A station entry as far as this driver is believed: what it fills wrongly is nil, as
    /// though it had not been reported (every output then shows no number for it).
    public func believed(_ station: NL80211.Station) -> NL80211.Station {
        var s = station
        if txRetries == .unreliable { s.txRetries = nil }
        if txFailed == .unreliable { s.txFailed = nil }
        if signal == .unreliable {
            s.signal = nil
            s.signalAverage = nil
        }
        return s
    }

    /// Whether `driver` (the sysfs name) is this family's.
    public func matches(_ driver: String) -> Bool {
        names.contains { n in n.hasSuffix("*") ? driver.hasPrefix(n.dropLast()) : driver == n }
    }
}

public enum DriverProfiles {
    /// One row per driver family, with where the knowledge comes from (paths in the Linux
    /// kernel tree, drivers/net/wireless/, as read in 2026; sysfs names of older kernels too
    /// where they differ: rtw88 was "rtw_pci" before 5.14). A driver not
    /// listed is taken at its word: what it reports is used, what it leaves out is UNKNOWN.
    public static let table: [DriverProfile] = [
        // iwlwifi (Intel, most laptops). mvm: iwl_mvm_mac_get_survey (intel/iwlwifi/mvm/
        // mac80211.c) answers index 0 only, with no channel (radio-wide, seen only with
        // NL80211_ATTR_SURVEY_RADIO_STATS) and only TIME, TIME_RX, TIME_TX, TIME_SCAN: no busy
        // time; -ENOENT without the firmware's RADIO_BEACON_STATS capability. mld (Wi-Fi 7
        // cards): iwl_mld_mac80211_get_survey (mld/scan.c) has per-channel busy time only after
        // a passive ACS scan of an AP interface, wiped by every other scan.
        // Retries: mvm sets status.rates[0].count from the firmware's failure_frame for single
        // frames (iwl_mvm_rx_tx_cmd_single, mvm/tx.c) but not for frames released by block-ack
        // (iwl_mvm_tx_reclaim): aggregated traffic's retries are not counted. mld
        // (iwl_mld_handle_tx_resp_notif, mld/tx.c) sets no count at all.
        DriverProfile(
            family: "iwlwifi", names: ["iwlwifi"], survey: .absent, txRetries: .undercounted, txFailed: .kept,
            surveyWhy: "iwlwifi keeps no channel busy time for a client interface",
            retriesWhy: "iwlwifi counts no retries of aggregated (A-MPDU) frames, and none at all on Wi-Fi 7 cards (iwlmld): TX_RETRIES is an undercount"),
        // rtw88 (Realtek PCIe/USB/SDIO): rtw_tx_report_tx_status (realtek/rtw88/tx.c) clears
        // the tx status and gives only ACK or no-ACK, and only for frames that asked for a
        // report; on PCIe rtw_pci_tx_isr marks every other frame acknowledged. So
        // NL80211_STA_INFO_TX_RETRIES stays 0 and TX_FAILED next to it. No .get_survey in
        // rtw_ops (realtek/rtw88/mac80211.c). Names: "rtw_pci" (one driver, before 5.14), then each chip's .name,
        // "rtw_8822ce", "rtw_8821cu", "rtw8723cs"; "rtw88_8822ce" since commit 581cf3a9cb61.
        DriverProfile(
            family: "rtw88", names: ["rtw88_*", "rtw_8*", "rtw8723*", "rtw8703*", "rtw_pci", "rtw_usb", "rtw_sdio"], survey: .absent, txRetries: .unreliable,
            txFailed: .unreliable, surveyWhy: "rtw88 keeps no channel survey",
            retriesWhy: "rtw88 reports TX_RETRIES as 0 whatever happens on the air (its tx status carries no retry count)",
            failedWhy: "rtw88 marks most frames acknowledged without a report (TX_FAILED stays near 0)"),
        // rtw89 (Realtek Wi-Fi 6/7): no .get_survey in rtw89_ops (realtek/rtw89/mac80211.c);
        // rtw89_pci_tx_status (pci.c) clears the status and sets ACK or not, no retry count.
        DriverProfile(
            family: "rtw89", names: ["rtw89_*"], survey: .absent, txRetries: .unreliable, txFailed: .kept,
            surveyWhy: "rtw89 keeps no channel survey",
            retriesWhy: "rtw89 reports TX_RETRIES as 0 whatever happens on the air (its tx status carries no retry count)"),
        // brcmfmac (Raspberry Pi, many SDIO/PCIe boards), full-MAC: brcmf_cfg80211_get_station
        // (broadcom/brcm80211/brcmfmac/cfg80211.c) fills TX_PACKETS and TX_FAILED from the
        // firmware's scb stats, never TX_RETRIES. brcmf_cfg80211_dump_survey, registered only
        // with BRCMF_FEAT_DUMP_OBSS, retunes the radio to each channel for ~100 ms
        // (ACS_MSRMNT_DELAY) and reports that visit's own window, not running totals.
        DriverProfile(
            family: "brcmfmac", names: ["brcmfmac"], survey: .unreliable, txRetries: .absent, txFailed: .kept,
            surveyWhy: "brcmfmac's survey retunes the radio to each channel for a moment and reports that visit only, not the channel in use",
            retriesWhy: "brcmfmac does not report TX_RETRIES"),
        // ath9k: ath9k_get_survey (ath/ath9k/main.c) gives the per-channel sums that
        // ath_update_survey_stats (link.c) accumulates: time, busy, rx, tx, noise. mac80211
        // counts retries from the tx status rates ath9k fills.
        DriverProfile(family: "ath9k", names: ["ath9k"], survey: .kept, txRetries: .kept, txFailed: .kept),
        // ath9k_htc (USB): no get_survey in its ops (ath/ath9k/htc_drv_main.c). Older kernels
        // name the USB driver "ath9k_hif_usb".
        DriverProfile(
            family: "ath9k_htc", names: ["ath9k_htc", "ath9k_hif_usb"], survey: .absent, txRetries: .kept, txFailed: .kept,
            surveyWhy: "ath9k_htc keeps no channel survey"),
        // mt76 (MediaTek mt7921/mt7922/mt7612u (mt76x2u)/mt7615…; not mt7601u, a driver of its
        // own): mt76_get_survey
        // (mediatek/mt76/mac80211.c) always gives time and busy, IN_USE on the main channel;
        // entries of other channels restart on each visit (mt76_set_channel), the one in use
        // does not. Retries from the tx status (mt76_tx_status_*).
        DriverProfile(
            family: "mt76", names: ["mt76x*", "mt76_*", "mt7603*", "mt7615*", "mt7622*", "mt7663*", "mt7915*", "mt7921*", "mt7925*", "mt7996*"], survey: .kept,
            txRetries: .kept, txFailed: .kept),
        // ath10k/ath11k: ath10k_wmi_event_pdev_bss_chan_info (ath/ath10k/wmi.c) and
        // ath11k_pdev_bss_chan_info_event assign the firmware's last period to survey->time
        // and time_busy instead of adding to them (Sven Eckelmann, "ath10k: report survey info
        // as accumulated values", linux-wireless RFC, 2019-09-18; Markus Theil, "ath10k: use
        // cumulative survey statistics", 2020-05-04; neither merged), and old firmware's 31-bit
        // cycle counters wrap.
        DriverProfile(
            family: "ath10k", names: ["ath10k_*"], survey: .perPeriod, txRetries: .kept, txFailed: .kept,
            surveyWhy: "ath10k's survey gives the firmware's last measurement period, not running totals"),
        DriverProfile(
            family: "ath11k", names: ["ath11k_*"], survey: .perPeriod, txRetries: .kept, txFailed: .kept,
            surveyWhy: "ath11k's survey gives the firmware's last measurement period, not running totals"),
        // mac80211_hwsim (the lab's driver): mac80211_hwsim_get_survey fills only channels it
        // visited, time = the last visit's length, busy = time / 8 (a fixed 12.5%), noise -92.
        DriverProfile(
            family: "mac80211_hwsim", names: ["mac80211_hwsim"], survey: .unreliable, txRetries: .kept, txFailed: .kept,
            surveyWhy: "mac80211_hwsim's survey is its last scan's dwell time with busy fixed at one eighth"),
        // virt_wifi (drivers/net/wireless/virt_wifi.c, a cfg80211 full-MAC driver over an
        // Ethernet link; built out of tree in the lab): no dump_survey; virt_wifi_get_station
        // fills TX_PACKETS, TX_FAILED, a constant SIGNAL of -50 dBm and a constant 1 Mbit/s
        // bitrate; TX_FAILED counts frames virt_wifi_start_xmit dropped while not connected,
        // never a radio's failure. A virtual device: its name comes from ethtool, not sysfs.
        DriverProfile(
            family: "virt_wifi", names: ["virt_wifi"], survey: .absent, txRetries: .absent, txFailed: .unreliable, signal: .unreliable,
            surveyWhy: "virt_wifi keeps no channel survey (it has no radio)",
            retriesWhy: "virt_wifi keeps no retry counter (it has no radio)",
            failedWhy: "virt_wifi counts only frames dropped while not connected, never a failed transmission",
            signalWhy: "virt_wifi reports a constant -50 dBm (it has no radio)"),
    ]

    /// The profile of the driver named `driver` in sysfs, if it is known.
    public static func profile(_ driver: String) -> DriverProfile? { table.first { $0.matches(driver) } }
}
