import PushdiagCore

/// Fixtures derived from the lab's real nl80211 recordings, for conditions mac80211_hwsim cannot
/// produce (it reports fixed survey times and no retries): counters are rewritten in place in the
/// recorded kernel replies, everything else stays as the kernel sent it.
public enum NetlinkFixtures {
    public struct Record: Sendable {
        public var time: Int64
        /// The whole record: cooked header and netlink messages.
        public var bytes: [UInt8]
        public init(time: Int64, bytes: [UInt8]) {
            self.time = time
            self.bytes = bytes
        }
    }

    /// Source recording (in fixtures/) and derived fixtures with what they contain.
    public static let source = "lab-wifi.pcap"
    public static let sourceWatch = "lab-watch-roams.pcap"
    /// Channel in use in the lab recording, and the three samples' survey counters (ms):
    /// Δbusy / Δactive = 1140 / 2000 = 57%.
    public static let labFrequency: UInt32 = 2412
    public static let utilizationActive: [UInt64] = [10_000, 11_000, 12_000]
    public static let utilizationBusy: [UInt64] = [1_000, 1_570, 2_140]
    /// Station counters of a link in steady use, for the fixtures about something else (the lab
    /// recording sent one frame in its window, fewer than a retry share is judged over):
    /// 30 retries for 1000 frames = 3%.
    public static let steadyPackets: [UInt32] = [1_000, 1_500, 2_000]
    public static let steadyRetries: [UInt32] = [0, 15, 30]
    static func steady(_ records: [Record]) -> [Record] { stationCounters(records, packets: steadyPackets, retries: steadyRetries) }
    /// Station counters: 200 retries for 1000 frames = 20%, 5 failed.
    public static let retriesPackets: [UInt32] = [1_000, 1_500, 2_000]
    public static let retriesRetries: [UInt32] = [0, 100, 200]
    public static let retriesFailed: [UInt32] = [0, 3, 5]
    /// Counters that wrap past 2^32 between the first two samples: Δpackets 512 + 512,
    /// Δretries 80 + 64 = 144 → 14.06%.
    public static let wrapPackets: [UInt32] = [0xFFFF_FF00, 0x0000_0100, 0x0000_0300]
    public static let wrapRetries: [UInt32] = [0xFFFF_FFC0, 0x0000_0010, 0x0000_0050]
    /// A reassociation between samples 1 and 2 (connected time goes down, counters restart):
    /// only samples 2→3 count, 5 retries for 100 frames = 5%.
    public static let reassocConnected: [UInt32] = [100, 2, 3]
    public static let reassocPackets: [UInt32] = [5_000, 10, 110]
    public static let reassocRetries: [UInt32] = [500, 0, 5]

    // MARK: Rewriting

    /// Offsets of attribute values in `bytes[range]`: (type, value start, value length).
    static func attributes(_ bytes: [UInt8], _ range: Range<Int>) -> [(UInt16, Int, Int)] {
        var out: [(UInt16, Int, Int)] = []
        var o = range.lowerBound
        while range.upperBound - o >= 4 {
            let len = Int(bytes[o]) | Int(bytes[o + 1]) << 8
            guard len >= 4, o + len <= range.upperBound else { break }
            let type = (UInt16(bytes[o + 2]) | UInt16(bytes[o + 3]) << 8) & Netlink.attributeTypeMask
            out.append((type, o + 4, len - 4))
            o += (len + 3) & ~3
        }
        return out
    }

    static func put<T: FixedWidthInteger>(_ v: T, into bytes: inout [UInt8], at o: Int) {
        for i in 0..<(T.bitWidth / 8) { bytes[o + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
    }

    /// Calls `body` for each netlink message in a record: (type, genl command, payload range).
    static func messages(_ bytes: [UInt8], _ body: (UInt16, UInt8, Range<Int>) -> Void) {
        var o = NetlinkRecord.headerLength
        while bytes.count - o >= 20 {
            let len = Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24
            guard len >= 16, o + len <= bytes.count else { return }
            let type = UInt16(bytes[o + 4]) | UInt16(bytes[o + 5]) << 8
            body(type, bytes[o + 16], (o + 20)..<(o + len))
            o += (len + 3) & ~3
        }
    }

    static func isRequest(_ bytes: [UInt8], command: UInt8) -> Bool {
        guard bytes.count >= NetlinkRecord.headerLength + 20 else { return false }
        let o = NetlinkRecord.headerLength
        return bytes[o + 6] & 0x01 != 0 && bytes[o + 16] == command
    }

    /// Rewrites the survey counters of the channel in use, sample by sample.
    public static func utilization(_ records: [Record], active: [UInt64] = utilizationActive, busy: [UInt64] = utilizationBusy) -> [Record] {
        var sample = -1
        return records.map { r in
            var r = r
            if isRequest(r.bytes, command: NL80211.Command.getSurvey.rawValue) { sample += 1 }
            guard sample >= 0, sample < active.count else { return r }
            messages(r.bytes) { _, cmd, range in
                guard cmd == NL80211.Command.newSurveyResults.rawValue else { return }
                for (t, vo, vl) in attributes(r.bytes, range) where t == NL80211.Attr.surveyInfo {
                    let inner = attributes(r.bytes, vo..<(vo + vl))
                    guard let f = inner.first(where: { $0.0 == NL80211.Survey.frequency }),
                        f.2 >= 4, UInt32(r.bytes[f.1]) | UInt32(r.bytes[f.1 + 1]) << 8 == labFrequency
                    else { continue }
                    for (it, io, il) in inner where il == 8 {
                        if it == NL80211.Survey.time { put(active[sample], into: &r.bytes, at: io) }
                        if it == NL80211.Survey.timeBusy { put(busy[sample], into: &r.bytes, at: io) }
                    }
                }
            }
            return r
        }
    }

    /// Rewrites the peer's station counters sample by sample (nil leaves a counter alone).
    public static func stationCounters(
        _ records: [Record], packets: [UInt32], retries: [UInt32], failed: [UInt32]? = nil, connected: [UInt32]? = nil
    ) -> [Record] {
        var sample = -1
        return records.map { r in
            var r = r
            if isRequest(r.bytes, command: NL80211.Command.getStation.rawValue) { sample += 1 }
            guard sample >= 0, sample < packets.count else { return r }
            messages(r.bytes) { _, cmd, range in
                guard cmd == NL80211.Command.newStation.rawValue else { return }
                for (t, vo, vl) in attributes(r.bytes, range) where t == NL80211.Attr.staInfo {
                    for (it, io, il) in attributes(r.bytes, vo..<(vo + vl)) where il == 4 {
                        switch it {
                        case NL80211.StaInfo.txPackets: put(packets[sample], into: &r.bytes, at: io)
                        case NL80211.StaInfo.txRetries: put(retries[sample], into: &r.bytes, at: io)
                        case NL80211.StaInfo.txFailed: if let failed { put(failed[sample], into: &r.bytes, at: io) }
                        case NL80211.StaInfo.connectedTime: if let connected { put(connected[sample], into: &r.bytes, at: io) }
                        default: break
                        }
                    }
                }
            }
            return r
        }
    }

    /// A full-MAC driver's roam: the first disconnect event of the recording becomes an
    /// NL80211_CMD_ROAM to the BSSID of the connect event that followed it, which is dropped.
    public static func commandRoam(_ records: [Record]) -> [Record] {
        var out: [Record] = []
        var pendingRoam: Int?
        var done = false
        for r in records {
            var command: UInt8?
            var multicast = false
            var mac: [UInt8]?
            messages(r.bytes) { _, cmd, range in
                command = cmd
                multicast = r.bytes[NetlinkRecord.headerLength + 8..<NetlinkRecord.headerLength + 12].allSatisfy { $0 == 0 }
                for (t, vo, vl) in attributes(r.bytes, range) where t == NL80211.Attr.mac && vl == 6 { mac = Array(r.bytes[vo..<(vo + 6)]) }
            }
            if !done, multicast, command == NL80211.Command.disconnect.rawValue {
                pendingRoam = out.count
                out.append(r)  // replaced below, once the new BSSID is known
                continue
            }
            if let i = pendingRoam, multicast, command == NL80211.Command.connect.rawValue, let mac {
                let disconnect = out[i].bytes
                let o = NetlinkRecord.headerLength
                // The disconnect's headers and its wiphy and ifindex attributes, then the MAC.
                var roam = Array(disconnect[0..<(o + 20)])
                roam[o + 16] = NL80211.Command.roam.rawValue
                messages(disconnect) { _, _, range in
                    for (t, vo, vl) in attributes(disconnect, range) where t == NL80211.Attr.wiphy || t == NL80211.Attr.ifindex {
                        roam += Array(disconnect[(vo - 4)..<(vo + vl)])
                    }
                }
                roam += [10, 0, UInt8(NL80211.Attr.mac), 0] + mac + [0, 0]
                put(UInt32(roam.count - o), into: &roam, at: o)
                out[i] = Record(time: out[i].time, bytes: roam)
                pendingRoam = nil
                done = true
                continue  // the connect is what the roam replaces
            }
            out.append(r)
        }
        return out
    }

    // MARK: Drivers

    /// A radio-wide survey entry per sample (no frequency): iwlwifi's shape, time but no busy
    /// time (ms).
    public static let iwlwifiRadioTime: [UInt64] = [40_000, 41_000, 42_000]
    /// The associated AP's advertised BSS Load channel utilisation (x/255): 140 → 54.9%.
    public static let bssLoadAdvertised: UInt8 = 140
    /// Radio-wide survey with busy time, for a driver without per-channel entries: Δbusy
    /// 900 / Δactive 2000 = 45%.
    public static let radioActive: [UInt64] = [20_000, 21_000, 22_000]
    public static let radioBusy: [UInt64] = [5_000, 5_450, 5_900]
    /// rtw88: retries and failures stay 0 while 1000 frames are sent.
    public static let rtw88Retries: [UInt32] = [0, 0, 0]
    /// ath10k: the survey holds the firmware's last period (the same length each time, so it
    /// never advances): 300 busy of 600 ms = 50%. Station counters going back between samples 1
    /// and 2 without a reassociation (the connected time goes on): only 2→3 counts, 60 retries
    /// for 500 frames = 12%.
    public static let ath10kActive: [UInt64] = [200, 200, 200]
    public static let ath10kBusy: [UInt64] = [90, 110, 100]
    public static let ath10kPackets: [UInt32] = [5_000, 200, 700]
    public static let ath10kRetries: [UInt32] = [800, 10, 70]
    public static let ath10kConnected: [UInt32] = [100, 101, 102]

    /// A weak AP: −72 dBm (below iOS's −70), its average too.
    public static let weakSignal: Int8 = -72

    /// Rewrites the station entries' signal and signal average (one byte each).
    public static func stationSignal(_ records: [Record], dbm: Int8) -> [Record] {
        records.map { r in
            var r = r
            messages(r.bytes) { _, cmd, range in
                guard cmd == NL80211.Command.newStation.rawValue else { return }
                for (t, vo, vl) in attributes(r.bytes, range) where t == NL80211.Attr.staInfo {
                    for (it, io, il) in attributes(r.bytes, vo..<(vo + vl)) where il >= 1 {
                        if it == NL80211.StaInfo.signal || it == NL80211.StaInfo.signalAverage { r.bytes[io] = UInt8(bitPattern: dbm) }
                    }
                }
            }
            return r
        }
    }

    /// Replaces each survey dump's entries with `entry(sample)`'s (one message, the first one's
    /// header; none when it returns nil: an empty dump).
    public static func survey(_ records: [Record], entry: (Int) -> [Attribute]?) -> [Record] {
        var answered = 0
        return rewrite(records) { m, _, count in
            guard m.command == NL80211.Command.newSurveyResults.rawValue, !m.isRequest else { return true }
            guard answered != count, let e = entry(count - 1) else { return false }  // one per dump
            answered = count
            m.attributes = m.attributes.map { a in a.kind == NL80211.Attr.surveyInfo ? Attribute(type: a.type, children: e) : a }
            return true
        }
    }

    /// Rewrites the associated BSS's BSS Load element (id 11) in the scan results: its channel
    /// utilisation set to `utilization`, or the element removed when nil.
    public static func bssLoad(_ records: [Record], utilization: UInt8?) -> [Record] {
        rewrite(records) { m, _, _ in
            guard m.command == NL80211.Command.newScanResults.rawValue, !m.isRequest else { return true }
            m.attributes = m.attributes.map { a in
                guard a.kind == NL80211.Attr.bss, var children = a.children,
                    children.contains(where: { $0.kind == NL80211.BSSAttr.status })  // the associated one
                else { return a }
                for i in children.indices where children[i].kind == NL80211.BSSAttr.informationElements || children[i].kind == NL80211.BSSAttr.beaconIEs {
                    var ies = children[i].value
                    var o = 0
                    while o + 2 <= ies.count {
                        let id = ies[o]
                        let len = Int(ies[o + 1])
                        if id == 11, len == 5, o + 7 <= ies.count {
                            if let utilization {
                                ies[o + 4] = utilization
                            } else {
                                ies.removeSubrange(o..<(o + 7))
                                continue
                            }
                        }
                        o += 2 + len
                    }
                    children[i].value = ies
                }
                return Attribute(type: a.type, children: children)
            }
            return true
        }
    }

    /// Removes one station counter from every station entry (a driver that does not keep it).
    public static func withoutStationCounter(_ records: [Record], _ counter: UInt16) -> [Record] {
        rewrite(records) { m, _, _ in
            guard m.command == NL80211.Command.newStation.rawValue, !m.isRequest else { return true }
            m.attributes = m.attributes.map { a in
                guard a.kind == NL80211.Attr.staInfo, let c = a.children else { return a }
                return Attribute(type: a.type, children: c.filter { $0.kind != counter })
            }
            return true
        }
    }

    static func iwlwifiSurvey(_ k: Int) -> [Attribute]? {
        guard k < iwlwifiRadioTime.count else { return nil }
        let t = iwlwifiRadioTime[k]
        return [.u64(NL80211.Survey.time, t), .u64(NL80211.Survey.timeRx, t / 10), .u64(NL80211.Survey.timeTx, t / 20), .u64(NL80211.Survey.timeScan, 300)]
    }

    /// The drivers' fixtures: (name, what it is shaped like, the driver name to replay it with).
    public static let drivers: [(name: String, driver: String)] = [
        ("driver-iwlwifi.pcap", "iwlwifi"), ("driver-iwlwifi-no-bss-load.pcap", "iwlwifi"), ("driver-rtw88.pcap", "rtw_8822ce"),
        ("driver-brcmfmac.pcap", "brcmfmac"), ("driver-ath10k.pcap", "ath10k_pci"), ("driver-radio-wide.pcap", "mt7921e"),
    ]

    /// name → (source, transformation)
    public static let all: [(name: String, source: String, transform: @Sendable ([Record]) -> [Record])] = [
        ("wifi-utilization-57pct.pcap", source, { steady(utilization($0)) }),
        ("wifi-retries-20pct.pcap", source, { stationCounters($0, packets: retriesPackets, retries: retriesRetries, failed: retriesFailed) }),
        ("wifi-counter-wrap.pcap", source, { stationCounters($0, packets: wrapPackets, retries: wrapRetries) }),
        ("wifi-reassociation.pcap", source, { stationCounters($0, packets: reassocPackets, retries: reassocRetries, connected: reassocConnected) }),
        ("watch-cmd-roam.pcap", sourceWatch, commandRoam),
        // Issue 32's sequences as walk recordings (the push log and rtnetlink part copied).
        ("walk-ft-deauth/nl80211.pcap", sourceWalk, walkSampleBeforeEvents),
        ("walk-ft-failed-keys/nl80211.pcap", sourceWalk, walkFailedFastTransition),
        // Issue 29's lens: a strong and a weak AP.
        ("walk-strong-weak-ap/nl80211.pcap", sourceWalk, walkStrongAndWeakAP),
        ("wifi-weak-signal.pcap", source, { steady(stationSignal($0, dbm: weakSignal)) }),
        // iwlwifi: a radio-wide entry with on-air time but no busy time; the AP advertises 55%.
        ("driver-iwlwifi.pcap", source, { steady(bssLoad(survey($0, entry: iwlwifiSurvey), utilization: bssLoadAdvertised)) }),
        ("driver-iwlwifi-no-bss-load.pcap", source, { steady(bssLoad(survey($0, entry: iwlwifiSurvey), utilization: nil)) }),
        // rtw88: no survey; TX_RETRIES present and 0 while frames go out, TX_FAILED too.
        (
            "driver-rtw88.pcap", source,
            { stationCounters(survey($0, entry: { _ in nil }), packets: retriesPackets, retries: rtw88Retries, failed: rtw88Retries) }
        ),
        // brcmfmac: no survey, no TX_RETRIES at all.
        (
            "driver-brcmfmac.pcap", source,
            {
                withoutStationCounter(
                    stationCounters(survey($0, entry: { _ in nil }), packets: retriesPackets, retries: retriesRetries, failed: retriesFailed),
                    NL80211.StaInfo.txRetries)
            }
        ),
        // ath10k: a survey of the last period, and station counters that go back without a
        // reassociation.
        (
            "driver-ath10k.pcap", source,
            {
                stationCounters(
                    utilization($0, active: ath10kActive, busy: ath10kBusy), packets: ath10kPackets, retries: ath10kRetries, connected: ath10kConnected)
            }
        ),
        // Radio-wide survey only (NL80211_ATTR_SURVEY_RADIO_STATS), with busy time.
        (
            "driver-radio-wide.pcap", source,
            {
                steady(
                    survey($0) { k in
                        k < radioActive.count ? [.u64(NL80211.Survey.time, radioActive[k]), .u64(NL80211.Survey.timeBusy, radioBusy[k])] : nil
                    })
            }
        ),
    ]
}
