import PushdiagCore

/// Walk recordings derived from the lab's (fixtures/lab-walk/), for issue 32's two sequences:
/// the first roam of the recording (a deauthentication, an FT authentication with 02:…:00:00,
/// the reassociation and the connect) rewritten in place, and the channels moved so that the
/// move crosses bands (2437 → 2412 MHz, 2412 → 5180 MHz: the roam goes 2412 → 5180).
extension NetlinkFixtures {
    public static let sourceWalk = "lab-walk/nl80211.pcap"
    /// The recording's frequencies and what they become.
    public static let walkFrequencies: [UInt32: UInt32] = [2437: 2412, 2412: 5180]
    /// The reason the station gives when the fast transition's keys fail (2: previous
    /// authentication no longer valid, local).
    public static let failedKeysReason: UInt16 = 2

    /// The genl command of a record's first message when the kernel sent it to a multicast
    /// group (port 0, no request flag), else nil.
    static func event(_ r: Record) -> UInt8? {
        let o = NetlinkRecord.headerLength
        guard r.bytes.count >= o + 20, r.bytes[(o + 12)..<(o + 16)].allSatisfy({ $0 == 0 }), r.bytes[o + 6] & 0x01 == 0 else { return nil }
        let type = UInt16(r.bytes[o + 4]) | UInt16(r.bytes[o + 5]) << 8
        return type >= 16 ? r.bytes[o + 16] : nil
    }

    /// Every frequency attribute (the interface's, its centre frequency, a BSS's) moved by
    /// `walkFrequencies`.
    public static func walkBands(_ records: [Record]) -> [Record] {
        records.map { r in
            var r = r
            func move(at o: Int) {
                let f = UInt32(r.bytes[o]) | UInt32(r.bytes[o + 1]) << 8 | UInt32(r.bytes[o + 2]) << 16 | UInt32(r.bytes[o + 3]) << 24
                if let to = walkFrequencies[f] { put(to, into: &r.bytes, at: o) }
            }
            messages(r.bytes) { type, _, range in
                guard type >= 16 else { return }
                for (t, vo, vl) in attributes(r.bytes, range) {
                    if t == NL80211.Attr.wiphyFreq || t == NL80211.Attr.centerFreq1, vl == 4 { move(at: vo) }
                    if t == NL80211.Attr.bss {
                        for (bt, bo, bl) in attributes(r.bytes, vo..<(vo + vl)) where bt == NL80211.BSSAttr.frequency && bl == 4 { move(at: bo) }
                    }
                }
            }
            return r
        }
    }

    /// For the iPhone lens (issue 29): the lab walk heard as a strong and a weak AP. Each
    /// station entry's signal (and average) and each scan entry's signal become the AP's:
    /// `walkSignals[bssid]` dBm. The laptop stays on the weak one where an iPhone would leave it.
    public static let walkSignals: [MACAddress: Int8] = [MACAddress(rawValue: 0x0200_0000_0000): -60, MACAddress(rawValue: 0x0200_0000_0100): -75]

    public static func walkStrongAndWeakAP(_ records: [Record]) -> [Record] {
        records.map { r in
            var r = r
            messages(r.bytes) { type, cmd, range in
                guard type >= 16 else { return }
                let attrs = attributes(r.bytes, range)
                if cmd == NL80211.Command.newStation.rawValue,
                    let (_, mo, ml) = attrs.first(where: { $0.0 == NL80211.Attr.mac }), ml == 6,
                    let dbm = walkSignals[MACAddress(bytes: Array(r.bytes[mo..<(mo + 6)]))]
                {
                    for (t, vo, vl) in attrs where t == NL80211.Attr.staInfo {
                        for (it, io, il) in attributes(r.bytes, vo..<(vo + vl))
                        where il >= 1 && (it == NL80211.StaInfo.signal || it == NL80211.StaInfo.signalAverage) {
                            r.bytes[io] = UInt8(bitPattern: dbm)
                        }
                    }
                }
                for (t, vo, vl) in attrs where t == NL80211.Attr.bss {
                    let inner = attributes(r.bytes, vo..<(vo + vl))
                    guard let (_, bo, bl) = inner.first(where: { $0.0 == NL80211.BSSAttr.bssid }), bl == 6,
                        let dbm = walkSignals[MACAddress(bytes: Array(r.bytes[bo..<(bo + 6)]))]
                    else { continue }
                    for (it, io, il) in inner where it == NL80211.BSSAttr.signalMBm && il == 4 { put(Int32(dbm) * 100, into: &r.bytes, at: io) }
                }
            }
            return r
        }
    }

    /// Sequence 2: the sample the walk took after the first roam is answered before the roam's
    /// events are read (the race of a slow machine: the kernel has moved, the events are still
    /// queued), so a sample says the new AP and its channel before the disconnect arrives.
    public static func walkSampleBeforeEvents(_ records: [Record]) -> [Record] {
        var out = walkBands(records)
        guard let deauth = out.firstIndex(where: { event($0) == NL80211.Command.deauthenticate.rawValue }),
            let connect = out[deauth...].firstIndex(where: { event($0) == NL80211.Command.connect.rawValue })
        else { return out }
        // The sample after the connect: the second GET_INTERFACE after it (the first answers the
        // tracker's SSID lookup), through the GET_STATION's done.
        let getInterface = out.indices.filter { $0 > connect && isRequest(out[$0].bytes, command: NL80211.Command.getInterface.rawValue) }
        guard getInterface.count >= 2,
            let station = out.indices.first(where: { $0 > getInterface[1] && isRequest(out[$0].bytes, command: NL80211.Command.getStation.rawValue) })
        else { return out }
        let sample = Array(out[getInterface[1]...(station + 2)])
        out.removeSubrange(getInterface[1]...(station + 2))
        // Just before the first event of the roam (an event the walk ignores may precede the
        // deauthentication), a microsecond apart.
        let at = deauth > 0 && event(out[deauth - 1]) != nil ? deauth - 1 : deauth
        let start = out[at].time - Int64(sample.count + 1) * 1000
        out.insert(contentsOf: sample.enumerated().map { Record(time: start + Int64($0.offset) * 1000, bytes: $0.element.bytes) }, at: at)
        return out
    }

    /// Sequence 1: the fast transition reassociates without a disconnect first; the station
    /// then drops the new AP (reason 2, local) and joins it again with an open-system
    /// authentication, answering the SSID lookup of that connect as it answered the first.
    public static func walkFailedFastTransition(_ records: [Record]) -> [Record] {
        let out = walkBands(records)
        guard let deauth = out.firstIndex(where: { event($0) == NL80211.Command.deauthenticate.rawValue }),
            let disconnect = out[deauth...].firstIndex(where: { event($0) == NL80211.Command.disconnect.rawValue }),
            let auth = out[disconnect...].firstIndex(where: { event($0) == NL80211.Command.authenticate.rawValue }),
            let connect = out[auth...].firstIndex(where: { event($0) == NL80211.Command.connect.rawValue }),
            let nextSample = out.indices.filter({ $0 > connect && isRequest(out[$0].bytes, command: NL80211.Command.getInterface.rawValue) }).dropFirst()
                .first
        else { return out }
        var drop = out[disconnect]
        messages(drop.bytes) { _, _, range in
            for (t, vo, vl) in attributes(drop.bytes, range) where t == NL80211.Attr.reasonCode && vl >= 2 { put(failedKeysReason, into: &drop.bytes, at: vo) }
        }
        var open = out[auth]
        messages(open.bytes) { _, _, range in
            // The authentication frame's algorithm (after its 24-byte header): 0, open system.
            for (t, vo, vl) in attributes(open.bytes, range) where t == NL80211.Attr.frame && vl >= 26 { put(UInt16(0), into: &open.bytes, at: vo + 24) }
        }
        let lookup = Array(out[(connect + 1)..<nextSample])
        let t0 = out[nextSample - 1].time
        let step = (out[nextSample].time - t0) / Int64(lookup.count + 4)
        let inserted = [drop, open, out[connect]] + lookup
        var result = Array(out[..<nextSample]) + inserted.enumerated().map { Record(time: t0 + Int64($0.offset + 1) * step, bytes: $0.element.bytes) }
        result += out[nextSample...]
        // No deauthentication or disconnect before the reassociation.
        result.remove(at: disconnect)
        result.remove(at: deauth)
        return result
    }
}
