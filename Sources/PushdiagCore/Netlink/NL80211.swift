/// nl80211 (`<linux/nl80211.h>`): the commands and attributes pushdiag uses, and decoders from
/// messages to plain values. The numbers mirror the kernel header; a test compares each with
/// the value compiled from the system's header.
extension String {
    func replacingUnderscoreRuns() -> String {
        var out = ""
        for ch in self where !(ch == "_" && out.last == "_") { out.append(ch) }
        return out
    }
}

public enum NL80211 {
    public enum Command: UInt8, Sendable {
        case getWiphy = 1, newWiphy = 3
        case getInterface = 5, newInterface = 7, setInterface = 6, delInterface = 8
        case getStation = 17, newStation = 19, delStation = 20
        case getScan = 32, triggerScan = 33, newScanResults = 34, scanAborted = 35
        case authenticate = 37, associate = 38, deauthenticate = 39, disassociate = 40
        case connect = 46, roam = 47, disconnect = 48
        case getSurvey = 50, newSurveyResults = 51
        case frame = 59, unprotectedDeauthenticate = 70, channelSwitchNotify = 88, radarDetect = 94, channelSwitchStartedNotify = 110
        case portAuthorized = 125
        case controlPortFrameTxStatus = 139

        /// The kernel's name, for messages ("NL80211_CMD_GET_SCAN").
        public var kernelName: String {
            var out = "NL80211_CMD_"
            for ch in String(describing: self) {
                if ch.isUppercase { out += "_" }
                out += ch.uppercased()
            }
            return out.replacingUnderscoreRuns()
        }
    }

    /// `NL80211_ATTR_*`.
    public enum Attr {
        public static let wiphy: UInt16 = 1, ifindex: UInt16 = 3, ifname: UInt16 = 4, iftype: UInt16 = 5, mac: UInt16 = 6
        public static let staInfo: UInt16 = 21, wiphyFreq: UInt16 = 38, generation: UInt16 = 46, bss: UInt16 = 47
        public static let ssid: UInt16 = 52, reasonCode: UInt16 = 54, timedOut: UInt16 = 65, disconnectedByAP: UInt16 = 71
        public static let frame: UInt16 = 51, ack: UInt16 = 92
        /// `NL80211_ATTR_SCAN_FREQUENCIES` (the channels a scan asks for, nested u32s),
        /// `NL80211_ATTR_RADAR_EVENT` (`NL80211_RADAR_*`), `NL80211_ATTR_CH_SWITCH_COUNT` (beacons
        /// until a channel switch).
        public static let scanFrequencies: UInt16 = 44, radarEvent: UInt16 = 168, channelSwitchCount: UInt16 = 183
        /// `NL80211_ATTR_SCAN_FREQ_KHZ`: the channels in kHz, in place of `scanFrequencies`, for a
        /// scan asked with `NL80211_SCAN_FLAG_FREQ_KHZ` (Linux 5.10 and later).
        public static let scanFreqKHz: UInt16 = 292
        public static let statusCode: UInt16 = 72, reqIE: UInt16 = 77, respIE: UInt16 = 78, surveyInfo: UInt16 = 84
        public static let wdev: UInt16 = 153, channelWidth: UInt16 = 159, centerFreq1: UInt16 = 160, pad: UInt16 = 229
        /// A flag on GET_SURVEY: include the radio-wide entry (no frequency) a driver may keep
        /// instead of, or besides, per-channel ones (`NL80211_ATTR_SURVEY_RADIO_STATS`).
        public static let surveyRadioStats: UInt16 = 218
        public static let wiphyName: UInt16 = 2, supportedIftypes: UInt16 = 32, softwareIftypes: UInt16 = 99
        public static let interfaceCombinations: UInt16 = 120
        /// A flag on GET_WIPHY: the kernel may split a wiphy over several messages (as iw asks).
        public static let splitWiphyDump: UInt16 = 174
    }

    /// `NL80211_SURVEY_INFO_*`.
    public enum Survey {
        public static let frequency: UInt16 = 1, noise: UInt16 = 2, inUse: UInt16 = 3, time: UInt16 = 4, timeBusy: UInt16 = 5
        public static let timeExtBusy: UInt16 = 6, timeRx: UInt16 = 7, timeTx: UInt16 = 8, timeScan: UInt16 = 9, pad: UInt16 = 10
    }

    /// `NL80211_STA_INFO_*`.
    public enum StaInfo {
        public static let inactiveTime: UInt16 = 1, signal: UInt16 = 7, txBitrate: UInt16 = 8, rxPackets: UInt16 = 9, txPackets: UInt16 = 10
        public static let txRetries: UInt16 = 11, txFailed: UInt16 = 12, signalAverage: UInt16 = 13, connectedTime: UInt16 = 16
        public static let beaconLoss: UInt16 = 18, pad: UInt16 = 33
    }

    /// `NL80211_RATE_INFO_*` (inside `NL80211_STA_INFO_TX_BITRATE`), in units of 100 kbit/s.
    public enum RateInfo {
        public static let bitrate: UInt16 = 1, bitrate32: UInt16 = 5
    }

    /// `NL80211_IFACE_COMB_*` and `NL80211_IFACE_LIMIT_*`.
    public enum Combination {
        public static let limits: UInt16 = 1, maxInterfaces: UInt16 = 2, staApBeaconIntervalMatch: UInt16 = 3, channels: UInt16 = 4
        public static let limitMax: UInt16 = 1, limitTypes: UInt16 = 2
    }

    /// `NL80211_IFTYPE_*` values pushdiag asks about.
    public enum IfType {
        public static let station: UInt32 = 2, ap: UInt32 = 3, monitor: UInt32 = 6
    }

    /// `NL80211_BSS_*`.
    public enum BSSAttr {
        public static let bssid: UInt16 = 1, frequency: UInt16 = 2, tsf: UInt16 = 3, informationElements: UInt16 = 6
        public static let signalMBm: UInt16 = 7, status: UInt16 = 9, seenMsAgo: UInt16 = 10, beaconIEs: UInt16 = 11, pad: UInt16 = 16
        /// `NL80211_BSS_STATUS_ASSOCIATED`.
        public static let statusAssociated: UInt32 = 1
    }

    /// `NL80211_IFTYPE_*` names.
    public static func interfaceTypeName(_ t: UInt32) -> String {
        switch t {
        case 1: return "IBSS"
        case 2: return "managed"
        case 3: return "AP"
        case 4: return "AP/VLAN"
        case 5: return "WDS"
        case 6: return "monitor"
        case 7: return "mesh point"
        case 8: return "P2P-client"
        case 9: return "P2P-GO"
        case 10: return "P2P-device"
        case 11: return "outside context of a BSS"
        case 12: return "NAN"
        default: return "unknown (\(t))"
        }
    }

    /// `NL80211_CHAN_WIDTH_*` in MHz ("20 MHz (no HT)" is 20).
    public static func channelWidthMHz(_ w: UInt32) -> Int? {
        switch w {
        case 0, 1: return 20
        case 2: return 40
        case 3: return 80
        case 4, 5: return 160
        case 6: return 5
        case 7: return 10
        case 13: return 320
        default: return nil
        }
    }

    // MARK: Requests

    /// `flags`: flag attributes (no value) to add, such as `Attr.surveyRadioStats`.
    public static func request(
        family: UInt16, command: Command, dump: Bool, sequence: UInt32, ifindex: UInt32? = nil, mac: MACAddress? = nil, flags: [UInt16] = []
    ) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: family, flags: Netlink.flagRequest | (dump ? Netlink.flagDump : Netlink.flagAck), sequence: sequence)
        b.genl(command: command.rawValue, version: 0)
        if let ifindex { b.attribute(Attr.ifindex, u32: ifindex) }
        if let mac { b.attribute(Attr.mac, mac.bytes) }
        for f in flags { b.attribute(f, []) }
        return b.finish()
    }

    /// `NL80211_CMD_TRIGGER_SCAN` for `ifindex`, limited to `frequencies` (MHz; every channel the
    /// radio allows when empty), as `iw dev IF scan trigger freq …` asks.
    public static func triggerScan(family: UInt16, sequence: UInt32, ifindex: UInt32, frequencies: [UInt32]) -> [UInt8] {
        var b = NetlinkMessageBuilder(type: family, flags: Netlink.flagRequest | Netlink.flagAck, sequence: sequence)
        b.genl(command: Command.triggerScan.rawValue, version: 0)
        b.attribute(Attr.ifindex, u32: ifindex)
        if !frequencies.isEmpty {
            // A nested list: attribute i holds the i-th frequency (nl80211 reads the values only).
            var nested: [UInt8] = []
            for (i, f) in frequencies.enumerated() {
                nested += [8, 0, UInt8(truncatingIfNeeded: i + 1), UInt8(truncatingIfNeeded: (i + 1) >> 8)]
                nested += withUnsafeBytes(of: f.littleEndian, Array.init)
            }
            b.attribute(Attr.scanFrequencies, nested)
        }
        return b.finish()
    }

    // MARK: Decoded values

    public struct Interface: Equatable, Sendable {
        public var ifindex: UInt32
        public var name: String?
        public var type: UInt32?
        public var mac: MACAddress?
        public var ssid: [UInt8]?
        public var frequency: UInt32?
        public var channelWidth: UInt32?
        public var wiphy: UInt32?
    }

    /// A radio (wiphy): what interface types it can have, alone and together. A split dump
    /// gives it in parts: `merge` them by index.
    public struct Wiphy: Equatable, Sendable {
        public var index: UInt32
        public var name: String?
        /// `NL80211_ATTR_SUPPORTED_IFTYPES`.
        public var interfaceTypes: Set<UInt32> = []
        /// `NL80211_ATTR_SOFTWARE_IFTYPES`: types that need no hardware slot (mac80211's
        /// monitor), allowed beside any combination.
        public var softwareInterfaceTypes: Set<UInt32> = []
        public var combinations: [InterfaceCombination] = []

        public init(index: UInt32) { self.index = index }

        public mutating func merge(_ o: Wiphy) {
            if name == nil { name = o.name }
            interfaceTypes.formUnion(o.interfaceTypes)
            softwareInterfaceTypes.formUnion(o.softwareInterfaceTypes)
            combinations += o.combinations
        }

        /// Whether an interface of type `b` can exist beside one of type `a` on this radio: `b`
        /// is a software type, or a combination allows both at once.
        public func allows(_ a: UInt32, beside b: UInt32) -> Bool {
            guard interfaceTypes.contains(a), interfaceTypes.contains(b) else { return false }
            if softwareInterfaceTypes.contains(b) || softwareInterfaceTypes.contains(a) { return true }
            return combinations.contains { $0.allows([a, b]) }
        }
    }

    public struct InterfaceCombination: Equatable, Sendable {
        public struct Limit: Equatable, Sendable {
            public var max: UInt32
            public var types: Set<UInt32>
        }
        public var limits: [Limit] = []
        public var maxInterfaces: UInt32 = 0
        public var channels: UInt32 = 0

        /// Whether interfaces of these types (one each) fit: each placed in a limit that lists
        /// its type and still has room, within the total.
        public func allows(_ types: [UInt32]) -> Bool {
            guard types.count <= Int(maxInterfaces) else { return false }
            var room = limits.map { Int($0.max) }
            func place(_ i: Int) -> Bool {
                if i == types.count { return true }
                for (k, l) in limits.enumerated() where room[k] > 0 && l.types.contains(types[i]) {
                    room[k] -= 1
                    if place(i + 1) { return true }
                    room[k] += 1
                }
                return false
            }
            return place(0)
        }
    }

    public struct SurveyEntry: Equatable, Sendable {
        public var frequency: UInt32
        public var noise: Int8?
        public var inUse = false
        /// Milliseconds (`NL80211_SURVEY_INFO_TIME*`); nil when the driver does not report them.
        public var active: UInt64?
        public var busy: UInt64?
        public var extBusy: UInt64?
        public var rx: UInt64?
        public var tx: UInt64?
    }

    public struct Station: Equatable, Sendable {
        public var mac: MACAddress
        public var ifindex: UInt32?
        public var txPackets: UInt32?
        public var txRetries: UInt32?
        public var txFailed: UInt32?
        public var rxPackets: UInt32?
        public var signal: Int8?
        /// The driver's running average of the signal (dBm).
        public var signalAverage: Int8?
        /// The signal an iPhone here would roam on, which survey, the exporter and the walk all
        /// judge: the driver's average where it keeps one (a phone smooths its RSSI; one frame's
        /// reading swings by several dB), else the last frame's.
        public var roamSignal: Int8? { signalAverage ?? signal }
        /// The last transmit rate, Mbit/s (from the 32-bit field when the driver gives it).
        public var txBitrateMbps: Double?
        public var connectedTime: UInt32?
        public var inactiveTime: UInt32?
    }

    public struct ScanBSS: Equatable, Sendable {
        public var bssid: MACAddress
        public var frequency: UInt32?
        /// Signal in mBm (100 × dBm).
        public var signalMBm: Int32?
        public var status: UInt32?
        public var seenMsAgo: UInt32?
        public var ssid: [UInt8]?
        public var channel: UInt8?
        public var bssLoadStations: UInt16?
        public var bssLoadUtilization: UInt8?
        public var fastTransition = false
        public var radioMeasurement = false
        public var bssTransition = false
        public var malformedElements = false

        public var associated: Bool { status == BSSAttr.statusAssociated }

        /// The scan cache's entry for `bssid`: the cache keeps one per BSSID and channel, so an
        /// AP's radio that came back as another SSID on another channel has two, the old one
        /// stale. The one the station is associated with, else the one on `frequency` (the
        /// link's), else the one seen last.
        public static func entry(for bssid: MACAddress, frequency: UInt32?, in scan: [ScanBSS]) -> ScanBSS? {
            let mine = scan.filter { $0.bssid == bssid }
            return mine.first(where: \.associated) ?? mine.first { frequency != nil && $0.frequency == frequency }
                ?? mine.min { ($0.seenMsAgo ?? .max) < ($1.seenMsAgo ?? .max) }
        }
    }

    /// What a message of the nl80211 family says.
    public enum Event: Equatable, Sendable {
        case wiphy(Wiphy)
        case interface(Interface)
        case survey(ifindex: UInt32?, SurveyEntry)
        case station(Station)
        case scanBSS(ifindex: UInt32?, ScanBSS)
        /// `fastTransition`: the association request's elements hold a Fast BSS Transition element
        /// (802.11r reassociation); nil when the event carries no request elements.
        case connect(ifindex: UInt32?, bssid: MACAddress?, status: UInt16?, timedOut: Bool, fastTransition: Bool?)
        case roam(ifindex: UInt32?, bssid: MACAddress?, fastTransition: Bool?)
        /// An authentication frame exchanged with `bssid` (SME in wpa_supplicant, mac80211
        /// drivers): its algorithm (0 open, 1 shared key, 2 fast transition, 3 SAE) and, when the
        /// frame holds them, its status code (0 success; see `Authentication` for the others) and
        /// transaction sequence number (SAE: 1 commit, 2 confirm).
        case authenticate(ifindex: UInt32?, bssid: MACAddress?, algorithm: UInt16?, status: UInt16? = nil, transaction: UInt16? = nil)
        /// The (re)association response from `bssid` (SME in wpa_supplicant, mac80211 drivers):
        /// its status code and the AP's BSS Max Idle Period, from the frame the event carries.
        case associate(ifindex: UInt32?, bssid: MACAddress?, status: UInt16?, maxIdle: BSSMaxIdle?)
        case disconnect(ifindex: UInt32?, reason: UInt16?, byAP: Bool)
        /// A frame the supplicant sent over nl80211's control port (an EAPOL frame: the station's
        /// EAP responses and its 4-way handshake messages 2 and 4) and whether the AP acknowledged
        /// it. mac80211 hands the frame as the supplicant gave it, an Ethernet header first. With
        /// the control port, EAPOL frames reach no packet socket: this event is what shows them.
        case controlPortTxStatus(ifindex: UInt32?, frame: [UInt8], acked: Bool)
        /// A scan's results are in; `frequencies` are the channels it covered, MHz
        /// (`NL80211_ATTR_SCAN_FREQUENCIES`, or `NL80211_ATTR_SCAN_FREQ_KHZ`; empty when the
        /// event says neither).
        case newScanResults(ifindex: UInt32?, frequencies: [UInt32] = [])
        /// The BSS moves to another channel (`NL80211_CMD_CH_SWITCH_STARTED_NOTIFY`: announced,
        /// `beacons` before it; `NL80211_CMD_CH_SWITCH_NOTIFY`: done): the new channel's frequency.
        case channelSwitch(ifindex: UInt32?, frequency: UInt32?, started: Bool, beacons: UInt32?)
        /// A DFS event on `frequency` (`NL80211_CMD_RADAR_DETECT`; `event` is `NL80211_RADAR_*`:
        /// 0 radar detected, 1 CAC finished, 2 CAC aborted, 3 non-occupancy over, 4 pre-CAC
        /// expired, 5 CAC started).
        case radar(ifindex: UInt32?, frequency: UInt32?, event: UInt32?)
        /// Anything else, TRIGGER_SCAN and SCAN_ABORTED among them (a join reads them so).
        case other(command: UInt8, ifindex: UInt32?)
    }

    public static func decode(_ m: Netlink.Message) -> Event? {
        guard let cmd = m.genlCommand else { return nil }
        let attrs = m.genlAttributes
        var ifindex: UInt32?
        switch Command(rawValue: cmd) {
        case .newInterface:
            var i = Interface(ifindex: 0)
            Netlink.forEachAttribute(attrs) { t, v in
                switch t {
                case Attr.ifindex: i.ifindex = v.nlU32 ?? 0
                case Attr.ifname: i.name = v.nlString
                case Attr.iftype: i.type = v.nlU32
                case Attr.mac: i.mac = v.nlMAC
                case Attr.ssid: i.ssid = v.count <= 32 ? v.nlBytes : nil
                case Attr.wiphyFreq: i.frequency = v.nlU32
                case Attr.channelWidth: i.channelWidth = v.nlU32
                case Attr.wiphy: i.wiphy = v.nlU32
                default: break
                }
            }
            return .interface(i)
        case .newWiphy:
            var w: Wiphy?
            Netlink.forEachAttribute(attrs) { t, v in
                if t == Attr.wiphy, let i = v.nlU32 { w = Wiphy(index: i) }
            }
            guard var wiphy = w else { return nil }
            Netlink.forEachAttribute(attrs) { t, v in
                switch t {
                case Attr.wiphyName: wiphy.name = v.nlString
                case Attr.supportedIftypes: wiphy.interfaceTypes = flags(v)
                case Attr.softwareIftypes: wiphy.softwareInterfaceTypes = flags(v)
                case Attr.interfaceCombinations: Netlink.forEachAttribute(v) { _, c in wiphy.combinations.append(combination(c)) }
                default: break
                }
            }
            return .wiphy(wiphy)
        case .newSurveyResults:
            var entry: SurveyEntry?
            forEach(Attr.surveyInfo, in: attrs, ifindex: &ifindex) { entry = survey($0) }
            return entry.map { .survey(ifindex: ifindex, $0) }
        case .newStation:
            var st: Station?
            var info: UnsafeRawBufferPointer?
            forEachAttribute(attrs, ifindex: &ifindex) { t, v in
                switch t {
                case Attr.mac: if let mac = v.nlMAC { st = Station(mac: mac) }
                case Attr.staInfo: info = v
                default: break
                }
            }
            guard var s = st else { return nil }
            s.ifindex = ifindex
            if let info { station(info, into: &s) }
            return .station(s)
        case .newScanResults:
            var bss: ScanBSS?
            var hasBSS = false
            forEach(Attr.bss, in: attrs, ifindex: &ifindex) {
                hasBSS = true
                bss = scanBSS($0)
            }
            if let bss { return .scanBSS(ifindex: ifindex, bss) }
            // A cache entry that did not parse is not a scan that completed.
            if hasBSS { return .other(command: cmd, ifindex: ifindex) }
            var frequencies: [UInt32] = []
            forEach(Attr.scanFrequencies, in: attrs, ifindex: &ifindex) { nested in
                Netlink.forEachAttribute(nested) { _, v in if let f = v.nlU32 { frequencies.append(f) } }
            }
            // The kernel sends one list or the other; kHz to whole MHz (every 2.4, 5 and 6 GHz
            // channel's centre is one; an 802.11ah channel's half MHz is dropped).
            forEach(Attr.scanFreqKHz, in: attrs, ifindex: &ifindex) { nested in
                Netlink.forEachAttribute(nested) { _, v in if let f = v.nlU32 { frequencies.append(f / 1000) } }
            }
            return .newScanResults(ifindex: ifindex, frequencies: frequencies)
        case .connect, .roam:
            let a = attributes(attrs, ifindex: &ifindex)
            let bssid = a[Attr.mac]?.nlMAC
            let ft = a[Attr.reqIE].map { ElementSummary.parse($0).fastTransitionElement }
            return cmd == Command.roam.rawValue
                ? .roam(ifindex: ifindex, bssid: bssid, fastTransition: ft)
                : .connect(ifindex: ifindex, bssid: bssid, status: a[Attr.statusCode]?.nlU16, timedOut: a[Attr.timedOut] != nil, fastTransition: ft)
        case .authenticate:
            var bssid: MACAddress?
            var algorithm: UInt16?
            var status: UInt16?
            var transaction: UInt16?
            forEach(Attr.frame, in: attrs, ifindex: &ifindex) { v in
                // An Authentication frame: a 24-byte management header (address 3 is the BSSID),
                // then the algorithm number, the transaction sequence and the status.
                if v.count >= 26, v[0] & 0xFC == 0xB0 {
                    bssid = v.mac(at: 16)
                    algorithm = v.u16le(at: 24)
                    transaction = v.u16le(at: 26)
                    if v.count >= 30 { status = v.u16le(at: 28) }
                }
            }
            return .authenticate(ifindex: ifindex, bssid: bssid, algorithm: algorithm, status: status, transaction: transaction)
        case .associate:
            var bssid: MACAddress?
            var status: UInt16?
            var idle: BSSMaxIdle?
            forEach(Attr.frame, in: attrs, ifindex: &ifindex) { v in
                // A (re)association response: the header (address 3 the BSSID), capability,
                // status, AID, then the elements.
                if v.count >= 28, v[0] & 0x0C == 0, v[0] >> 4 == 1 || v[0] >> 4 == 3 {
                    bssid = v.mac(at: 16)
                    status = v.u16le(at: 26)
                    idle = BSSMaxIdle.inAssociationResponse(v)
                }
            }
            return .associate(ifindex: ifindex, bssid: bssid, status: status, maxIdle: idle)
        case .controlPortFrameTxStatus:
            let a = attributes(attrs, ifindex: &ifindex)
            return .controlPortTxStatus(ifindex: ifindex, frame: a[Attr.frame]?.nlBytes ?? [], acked: a[Attr.ack] != nil)
        case .channelSwitchNotify, .channelSwitchStartedNotify:
            let a = attributes(attrs, ifindex: &ifindex)
            return .channelSwitch(
                ifindex: ifindex, frequency: a[Attr.wiphyFreq]?.nlU32, started: cmd == Command.channelSwitchStartedNotify.rawValue,
                beacons: a[Attr.channelSwitchCount]?.nlU32)
        case .radarDetect:
            let a = attributes(attrs, ifindex: &ifindex)
            return .radar(ifindex: ifindex, frequency: a[Attr.wiphyFreq]?.nlU32, event: a[Attr.radarEvent]?.nlU32)
        case .disconnect:
            let a = attributes(attrs, ifindex: &ifindex)
            return .disconnect(ifindex: ifindex, reason: a[Attr.reasonCode]?.nlU16, byAP: a[Attr.disconnectedByAP] != nil)
        default:
            forEachAttribute(attrs, ifindex: &ifindex) { _, _ in }
            return .other(command: cmd, ifindex: ifindex)
        }
    }

    /// A nested set of flag attributes whose types are the values (interface types).
    /// Reads a command that carries one attribute of substance (a survey entry, a BSS, a frame):
    /// the interface, and each attribute of type `type` handed to `body` in its turn.
    static func forEach(_ type: UInt16, in attrs: UnsafeRawBufferPointer, ifindex: inout UInt32?, _ body: (UnsafeRawBufferPointer) -> Void) {
        forEachAttribute(attrs, ifindex: &ifindex) { t, v in if t == type { body(v) } }
    }

    /// A command's attributes by type, the interface read into `ifindex` (iw's `nla_parse` into
    /// `tb[]`): for an event whose attributes are each read once. Of two attributes of one type
    /// the last is kept, as a switch over them that assigns would leave it.
    static func attributes(_ attrs: UnsafeRawBufferPointer, ifindex: inout UInt32?) -> [UInt16: UnsafeRawBufferPointer] {
        var table: [UInt16: UnsafeRawBufferPointer] = [:]
        forEachAttribute(attrs, ifindex: &ifindex) { t, v in table[t] = v }
        return table
    }

    /// Reads a command's attributes: the interface (`NL80211_ATTR_IFINDEX`) into `ifindex`, every
    /// other attribute handed to `body` with its type. The one place an event's interface is read.
    static func forEachAttribute(_ attrs: UnsafeRawBufferPointer, ifindex: inout UInt32?, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        Netlink.forEachAttribute(attrs) { t, v in
            if t == Attr.ifindex { ifindex = v.nlU32 } else { body(t, v) }
        }
    }

    static func flags(_ b: UnsafeRawBufferPointer) -> Set<UInt32> {
        var out: Set<UInt32> = []
        Netlink.forEachAttribute(b) { t, _ in out.insert(UInt32(t)) }
        return out
    }

    static func combination(_ b: UnsafeRawBufferPointer) -> InterfaceCombination {
        var c = InterfaceCombination()
        Netlink.forEachAttribute(b) { t, v in
            switch t {
            case Combination.limits:
                Netlink.forEachAttribute(v) { _, l in
                    var limit = InterfaceCombination.Limit(max: 0, types: [])
                    Netlink.forEachAttribute(l) { lt, lv in
                        if lt == Combination.limitMax { limit.max = lv.nlU32 ?? 0 }
                        if lt == Combination.limitTypes { limit.types = flags(lv) }
                    }
                    c.limits.append(limit)
                }
            case Combination.maxInterfaces: c.maxInterfaces = v.nlU32 ?? 0
            case Combination.channels: c.channels = v.nlU32 ?? 0
            default: break
            }
        }
        return c
    }

    static func survey(_ b: UnsafeRawBufferPointer) -> SurveyEntry? {
        var e = SurveyEntry(frequency: 0)
        Netlink.forEachAttribute(b) { t, v in
            switch t {
            case Survey.frequency: e.frequency = v.nlU32 ?? 0
            case Survey.noise: e.noise = v.nlS8
            case Survey.inUse: e.inUse = true
            case Survey.time: e.active = v.nlU64
            case Survey.timeBusy: e.busy = v.nlU64
            case Survey.timeExtBusy: e.extBusy = v.nlU64
            case Survey.timeRx: e.rx = v.nlU64
            case Survey.timeTx: e.tx = v.nlU64
            default: break
            }
        }
        // No frequency: the radio-wide entry (RADIO_STATS), kept when it has times.
        return e.frequency == 0 && e.active == nil && e.busy == nil ? nil : e
    }

    static func station(_ b: UnsafeRawBufferPointer, into s: inout Station) {
        Netlink.forEachAttribute(b) { t, v in
            switch t {
            case StaInfo.txPackets: s.txPackets = v.nlU32
            case StaInfo.txRetries: s.txRetries = v.nlU32
            case StaInfo.txFailed: s.txFailed = v.nlU32
            case StaInfo.rxPackets: s.rxPackets = v.nlU32
            case StaInfo.signal: s.signal = v.nlS8
            case StaInfo.signalAverage: s.signalAverage = v.nlS8
            case StaInfo.txBitrate:
                var r16: UInt16?
                var r32: UInt32?
                Netlink.forEachAttribute(v) { rt, rv in
                    if rt == RateInfo.bitrate { r16 = rv.nlU16 }
                    if rt == RateInfo.bitrate32 { r32 = rv.nlU32 }
                }
                if let r = r32.map(Double.init) ?? r16.map(Double.init), r > 0 { s.txBitrateMbps = r / 10 }
            case StaInfo.connectedTime: s.connectedTime = v.nlU32
            case StaInfo.inactiveTime: s.inactiveTime = v.nlU32
            default: break
            }
        }
    }

    static func scanBSS(_ b: UnsafeRawBufferPointer) -> ScanBSS? {
        // Filled as the attributes come; an entry with no BSSID is none.
        var r = ScanBSS(bssid: MACAddress(rawValue: 0))
        var hasBSSID = false
        var ies: UnsafeRawBufferPointer?
        var beaconIEs: UnsafeRawBufferPointer?
        Netlink.forEachAttribute(b) { t, v in
            switch t {
            case BSSAttr.bssid: if let m = v.nlMAC { (r.bssid, hasBSSID) = (m, true) }
            case BSSAttr.frequency: r.frequency = v.nlU32
            case BSSAttr.signalMBm: r.signalMBm = v.nlS32
            case BSSAttr.status: r.status = v.nlU32
            case BSSAttr.seenMsAgo: r.seenMsAgo = v.nlU32
            case BSSAttr.informationElements: ies = v
            case BSSAttr.beaconIEs: beaconIEs = v
            default: break
            }
        }
        guard hasBSSID else { return nil }
        // The same element parser as the capture analyser, over the probe response's elements
        // (or the beacon's when the driver kept only those).
        if let e = ies ?? beaconIEs {
            let s = ElementSummary.parse(e)
            r.ssid = s.ssid.map(Array.init)
            r.channel = s.channel
            r.bssLoadStations = s.bssLoad?.stationCount
            r.bssLoadUtilization = s.bssLoad?.utilization
            r.fastTransition = s.fastTransition
            r.radioMeasurement = s.radioMeasurement
            r.bssTransition = s.bssTransition
            r.malformedElements = s.malformed
            if let b2 = beaconIEs, ies != nil {
                // Capabilities advertised only in beacons still count.
                let sb = ElementSummary.parse(b2)
                r.fastTransition = r.fastTransition || sb.fastTransition
                r.radioMeasurement = r.radioMeasurement || sb.radioMeasurement
                r.bssTransition = r.bssTransition || sb.bssTransition
                if r.bssLoadUtilization == nil, let l = sb.bssLoad {
                    r.bssLoadStations = l.stationCount
                    r.bssLoadUtilization = l.utilization
                }
            }
        }
        return r
    }
}
