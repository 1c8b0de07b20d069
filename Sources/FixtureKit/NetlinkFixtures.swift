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
    public static func utilization(_ records: [Record]) -> [Record] {
        var sample = -1
        return records.map { r in
            var r = r
            if isRequest(r.bytes, command: NL80211.Command.getSurvey.rawValue) { sample += 1 }
            guard sample >= 0, sample < utilizationActive.count else { return r }
            messages(r.bytes) { _, cmd, range in
                guard cmd == NL80211.Command.newSurveyResults.rawValue else { return }
                for (t, vo, vl) in attributes(r.bytes, range) where t == NL80211.Attr.surveyInfo {
                    let inner = attributes(r.bytes, vo..<(vo + vl))
                    guard let f = inner.first(where: { $0.0 == NL80211.Survey.frequency }),
                        f.2 >= 4, UInt32(r.bytes[f.1]) | UInt32(r.bytes[f.1 + 1]) << 8 == labFrequency
                    else { continue }
                    for (it, io, il) in inner where il == 8 {
                        if it == NL80211.Survey.time { put(utilizationActive[sample], into: &r.bytes, at: io) }
                        if it == NL80211.Survey.timeBusy { put(utilizationBusy[sample], into: &r.bytes, at: io) }
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

    /// name → (source, transformation)
    public static let all: [(name: String, source: String, transform: @Sendable ([Record]) -> [Record])] = [
        ("wifi-utilization-57pct.pcap", source, utilization),
        ("wifi-retries-20pct.pcap", source, { stationCounters($0, packets: retriesPackets, retries: retriesRetries, failed: retriesFailed) }),
        ("wifi-counter-wrap.pcap", source, { stationCounters($0, packets: wrapPackets, retries: wrapRetries) }),
        ("wifi-reassociation.pcap", source, { stationCounters($0, packets: reassocPackets, retries: reassocRetries, connected: reassocConnected) }),
        ("watch-cmd-roam.pcap", sourceWatch, commandRoam),
    ]
}
