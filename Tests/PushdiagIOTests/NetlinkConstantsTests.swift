import CNetlink
import PushdiagCore
import Testing

/// The core's mirrors of kernel constants, checked against the system's own headers.
struct NetlinkConstantsTests {
    /// PushdiagCore's mirror of <linux/nl80211.h> and <linux/genetlink.h> against the C values.
    @Test func constantsMatchTheKernelHeaders() {
        #expect(UInt32(NL80211.Command.getInterface.rawValue) == NL80211_CMD_GET_INTERFACE.rawValue)
        #expect(UInt32(NL80211.Command.newInterface.rawValue) == NL80211_CMD_NEW_INTERFACE.rawValue)
        #expect(UInt32(NL80211.Command.getStation.rawValue) == NL80211_CMD_GET_STATION.rawValue)
        #expect(UInt32(NL80211.Command.newStation.rawValue) == NL80211_CMD_NEW_STATION.rawValue)
        #expect(UInt32(NL80211.Command.getScan.rawValue) == NL80211_CMD_GET_SCAN.rawValue)
        #expect(UInt32(NL80211.Command.newScanResults.rawValue) == NL80211_CMD_NEW_SCAN_RESULTS.rawValue)
        #expect(UInt32(NL80211.Command.connect.rawValue) == NL80211_CMD_CONNECT.rawValue)
        #expect(UInt32(NL80211.Command.roam.rawValue) == NL80211_CMD_ROAM.rawValue)
        #expect(UInt32(NL80211.Command.disconnect.rawValue) == NL80211_CMD_DISCONNECT.rawValue)
        #expect(UInt32(NL80211.Command.authenticate.rawValue) == NL80211_CMD_AUTHENTICATE.rawValue)
        #expect(UInt32(NL80211.Command.getSurvey.rawValue) == NL80211_CMD_GET_SURVEY.rawValue)
        #expect(UInt32(NL80211.Command.newSurveyResults.rawValue) == NL80211_CMD_NEW_SURVEY_RESULTS.rawValue)
        #expect(UInt32(NL80211.Command.portAuthorized.rawValue) == NL80211_CMD_PORT_AUTHORIZED.rawValue)
        #expect(UInt32(NL80211.Command.controlPortFrameTxStatus.rawValue) == NL80211_CMD_CONTROL_PORT_FRAME_TX_STATUS.rawValue)
        #expect(UInt32(NL80211.Command.triggerScan.rawValue) == NL80211_CMD_TRIGGER_SCAN.rawValue)
        #expect(UInt32(NL80211.Command.scanAborted.rawValue) == NL80211_CMD_SCAN_ABORTED.rawValue)
        #expect(UInt32(NL80211.Command.channelSwitchNotify.rawValue) == NL80211_CMD_CH_SWITCH_NOTIFY.rawValue)
        #expect(UInt32(NL80211.Command.channelSwitchStartedNotify.rawValue) == NL80211_CMD_CH_SWITCH_STARTED_NOTIFY.rawValue)
        #expect(UInt32(NL80211.Command.radarDetect.rawValue) == NL80211_CMD_RADAR_DETECT.rawValue)
        let attrs: [(UInt16, nl80211_attrs)] = [
            (NL80211.Attr.wiphy, NL80211_ATTR_WIPHY), (NL80211.Attr.ifindex, NL80211_ATTR_IFINDEX), (NL80211.Attr.ifname, NL80211_ATTR_IFNAME),
            (NL80211.Attr.iftype, NL80211_ATTR_IFTYPE), (NL80211.Attr.mac, NL80211_ATTR_MAC), (NL80211.Attr.staInfo, NL80211_ATTR_STA_INFO),
            (NL80211.Attr.wiphyFreq, NL80211_ATTR_WIPHY_FREQ), (NL80211.Attr.bss, NL80211_ATTR_BSS), (NL80211.Attr.ssid, NL80211_ATTR_SSID),
            (NL80211.Attr.reasonCode, NL80211_ATTR_REASON_CODE), (NL80211.Attr.timedOut, NL80211_ATTR_TIMED_OUT),
            (NL80211.Attr.disconnectedByAP, NL80211_ATTR_DISCONNECTED_BY_AP), (NL80211.Attr.statusCode, NL80211_ATTR_STATUS_CODE),
            (NL80211.Attr.surveyInfo, NL80211_ATTR_SURVEY_INFO), (NL80211.Attr.channelWidth, NL80211_ATTR_CHANNEL_WIDTH),
            (NL80211.Attr.scanFrequencies, NL80211_ATTR_SCAN_FREQUENCIES), (NL80211.Attr.radarEvent, NL80211_ATTR_RADAR_EVENT),
            (NL80211.Attr.channelSwitchCount, NL80211_ATTR_CH_SWITCH_COUNT),
            (NL80211.Attr.frame, NL80211_ATTR_FRAME), (NL80211.Attr.reqIE, NL80211_ATTR_REQ_IE), (NL80211.Attr.ack, NL80211_ATTR_ACK),
            (NL80211.Attr.surveyRadioStats, NL80211_ATTR_SURVEY_RADIO_STATS),
        ]
        for (ours, theirs) in attrs { #expect(UInt32(ours) == theirs.rawValue) }
        let survey: [(UInt16, nl80211_survey_info)] = [
            (NL80211.Survey.frequency, NL80211_SURVEY_INFO_FREQUENCY), (NL80211.Survey.noise, NL80211_SURVEY_INFO_NOISE),
            (NL80211.Survey.inUse, NL80211_SURVEY_INFO_IN_USE), (NL80211.Survey.time, NL80211_SURVEY_INFO_TIME),
            (NL80211.Survey.timeBusy, NL80211_SURVEY_INFO_TIME_BUSY), (NL80211.Survey.timeExtBusy, NL80211_SURVEY_INFO_TIME_EXT_BUSY),
            (NL80211.Survey.timeRx, NL80211_SURVEY_INFO_TIME_RX), (NL80211.Survey.timeTx, NL80211_SURVEY_INFO_TIME_TX),
            (NL80211.Survey.timeScan, NL80211_SURVEY_INFO_TIME_SCAN),
        ]
        for (ours, theirs) in survey { #expect(UInt32(ours) == theirs.rawValue) }
        let sta: [(UInt16, nl80211_sta_info)] = [
            (NL80211.StaInfo.signal, NL80211_STA_INFO_SIGNAL), (NL80211.StaInfo.rxPackets, NL80211_STA_INFO_RX_PACKETS),
            (NL80211.StaInfo.txPackets, NL80211_STA_INFO_TX_PACKETS), (NL80211.StaInfo.txRetries, NL80211_STA_INFO_TX_RETRIES),
            (NL80211.StaInfo.txFailed, NL80211_STA_INFO_TX_FAILED), (NL80211.StaInfo.connectedTime, NL80211_STA_INFO_CONNECTED_TIME),
            (NL80211.StaInfo.signalAverage, NL80211_STA_INFO_SIGNAL_AVG), (NL80211.StaInfo.txBitrate, NL80211_STA_INFO_TX_BITRATE),
        ]
        for (ours, theirs) in sta { #expect(UInt32(ours) == theirs.rawValue) }
        #expect(UInt32(NL80211.RateInfo.bitrate) == NL80211_RATE_INFO_BITRATE.rawValue)
        #expect(UInt32(NL80211.RateInfo.bitrate32) == NL80211_RATE_INFO_BITRATE32.rawValue)
        let bss: [(UInt16, nl80211_bss)] = [
            (NL80211.BSSAttr.bssid, NL80211_BSS_BSSID), (NL80211.BSSAttr.frequency, NL80211_BSS_FREQUENCY),
            (NL80211.BSSAttr.informationElements, NL80211_BSS_INFORMATION_ELEMENTS), (NL80211.BSSAttr.signalMBm, NL80211_BSS_SIGNAL_MBM),
            (NL80211.BSSAttr.status, NL80211_BSS_STATUS), (NL80211.BSSAttr.beaconIEs, NL80211_BSS_BEACON_IES),
        ]
        for (ours, theirs) in bss { #expect(UInt32(ours) == theirs.rawValue) }
        #expect(Int32(GenericNetlink.controlID) == CNetlink_GENL_ID_CTRL())
        #expect(Int32(Netlink.protocolGeneric) == CNetlink_NETLINK_GENERIC() && Int32(Netlink.flagDump) == CNetlink_NLM_F_DUMP())
        #expect(Int32(Netlink.arphrdNetlink) == CNetlink_ARPHRD_NETLINK())
        #expect(Int(GenericNetlink.getFamily) == Int(CTRL_CMD_GETFAMILY) && Int(GenericNetlink.attrMulticastGroups) == Int(CTRL_ATTR_MCAST_GROUPS))
    }

    @Test func rtnetlinkConstantsMatchTheKernelHeaders() {
        #expect(Int(RTNetlink.getRoute) == Int(RTM_GETROUTE) && Int(RTNetlink.newRoute) == Int(RTM_NEWROUTE))
        #expect(Int(RTNetlink.getLink) == Int(RTM_GETLINK) && Int(RTNetlink.newLink) == Int(RTM_NEWLINK))
        #expect(Int(RTNetlink.getNeighbour) == Int(RTM_GETNEIGH) && Int(RTNetlink.newNeighbour) == Int(RTM_NEWNEIGH))
        #expect(Int(RTNetlink.delLink) == Int(RTM_DELLINK) && Int(RTNetlink.getAddress) == Int(RTM_GETADDR))
        #expect(Int(RTNetlink.newAddress) == Int(RTM_NEWADDR) && Int(RTNetlink.delAddress) == Int(RTM_DELADDR))
        #expect(Int(RTNetlink.groupLink) == Int(RTNLGRP_LINK.rawValue) && Int(RTNetlink.groupIPv4Address) == Int(RTNLGRP_IPV4_IFADDR.rawValue))
        #expect(Int(RTNetlink.groupIPv6Address) == Int(RTNLGRP_IPV6_IFADDR.rawValue) && Int(RTNetlink.groupNeighbour) == Int(RTNLGRP_NEIGH.rawValue))
        #expect(Int(RTNetlink.scopeLink) == Int(RT_SCOPE_LINK.rawValue))
        #expect(Int(RTNetlink.ifaAddress) == Int(IFA_ADDRESS) && Int(RTNetlink.ifaLocal) == Int(IFA_LOCAL))
        #expect(Int(RTNetlink.iflaCarrier) == Int(IFLA_CARRIER) && Int(RTNetlink.iflaOperstate) == Int(IFLA_OPERSTATE))
        #expect(Int(RTNetlink.rtaDst) == Int(RTA_DST.rawValue) && Int(RTNetlink.rtaOIF) == Int(RTA_OIF.rawValue))
        #expect(Int(RTNetlink.rtaGateway) == Int(RTA_GATEWAY.rawValue) && Int(RTNetlink.rtaPrefSrc) == Int(RTA_PREFSRC.rawValue))
        #expect(
            Int(RTNetlink.rtaMetrics) == Int(RTA_METRICS.rawValue) && Int(RTNetlink.rtaTable) == Int(RTA_TABLE.rawValue)
                && Int(RTNetlink.rtaVia) == Int(RTA_VIA.rawValue))
        #expect(Int(RTNetlink.iflaIfname) == Int(IFLA_IFNAME) && Int(RTNetlink.iflaMTU) == Int(IFLA_MTU))
        #expect(Int(RTNetlink.iflaLink) == Int(IFLA_LINK) && Int(RTNetlink.iflaLinkinfo) == Int(IFLA_LINKINFO))
        #expect(Int(RTNetlink.iflaVLANID) == Int(IFLA_VLAN_ID) && Int(RTNetlink.iflaInfoKind) == Int(IFLA_INFO_KIND))
        #expect(Int(RTNetlink.rtnUnicast) == Int(RTN_UNICAST) && Int(RTNetlink.rtnUnreachable) == Int(RTN_UNREACHABLE))
        #expect(Int(RTNetlink.afInet6) == Int(AF_INET6) && Int(RTNetlink.lookupTable) == Int(RTM_F_LOOKUP_TABLE))
    }
}
