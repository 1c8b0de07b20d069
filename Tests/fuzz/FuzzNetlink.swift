// libFuzzer target: netlink buffers as recv() or a recording returns them, through every decoder
// (generic netlink family, nl80211 replies and events, rtnetlink routes, links, neighbours), the
// recording's cooked header, the meaning a replay matches requests by, and the Wi-Fi analysis, roam tracker and stall
// analysis (the link's activities paired from the events, joined with heartbeats) and the iPhone
// lens (the cache's entries and the completed scans) fed with what decoded.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

nonisolated(unsafe) var tracker = RoamTracker()
let perObjectDumps = [
    NL80211.request(family: 0x20, command: .getInterface, dump: true, sequence: 0),
    NL80211.request(family: 0x20, command: .getStation, dump: true, sequence: 0, ifindex: 4),
    NL80211.request(family: 0x20, command: .getWiphy, dump: true, sequence: 0, flags: [NL80211.Attr.splitWiphyDump]),
].compactMap { NetlinkRequestMeaning($0, protocol: Netlink.protocolGeneric) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let b = UnsafeRawBufferPointer(start: data, count: size)
    _ = NetlinkRecord.parse(b)
    for proto in [Netlink.protocolGeneric, Netlink.protocolRoute] {
        if let m = NetlinkRequestMeaning(b, protocol: proto) {
            _ = m.answers(m) && !m.subject().isEmpty
            // Per-object answers: the fuzzed request as one object of each dump pushdiag asks.
            let about = m.interface(names: [4: "wlan2"], wdevNames: [0x2_0000_0001: "wlan2"])
            _ = about?.description
            for dump in perObjectDumps { _ = m.answersPerObject(dump, at: about ?? .init(ifindex: 4, name: "wlan2"), names: [4: "wlan2"]) }
        }
    }
    var stations: [NL80211.Station] = []
    var survey: [NL80211.SurveyEntry] = []
    var scan: [NL80211.ScanBSS] = []
    var activity = LinkActivityLog(ifindex: 4)
    var n: Int64 = 0
    try? Netlink.forEachMessage(b) { m in
        _ = GenericNetlink.family(m)
        _ = RTNetlink.route(m)
        _ = RTNetlink.link(m)
        _ = RTNetlink.neighbour(m)
        if let e = NL80211.decode(m) {
            switch e {
            case .station(let s): stations.append(s)
            case .survey(_, let s): survey.append(s)
            case .scanBSS(_, let s): scan.append(s)
            default: break
            }
            _ = tracker.handle(e, time: 0, name: { "if\($0)" }, ssid: { _, _ in nil })
            // Each event 100 ms after the last, some at the same time (the half-open boundaries).
            n += Int64(size % 3) * 50_000_000
            if n % 3 == 0 { activity.requestedScan(at: n) }
            activity.add(e, at: n)
        }
        _ = m.errorCode
    }
    _ = Netlink.replyProgress(b, sequence: 1, port: nil, dump: true)
    var iface = NL80211.Interface(ifindex: 1)
    iface.frequency = survey.first?.frequency
    let samples = [
        WiFiSample(time: 0, interface: iface, survey: survey, stations: stations),
        WiFiSample(time: 1_000_000_000, interface: iface, survey: survey.reversed(), stations: stations.reversed()),
    ]
    _ = WiFiAnalysis.report(interface: iface, samples: samples, scan: scan, thresholds: Thresholds())
    // The iPhone lens on what decoded: the cache's entries and the scans whose results came, at
    // a moment (the exporter's) and over three samples of a walk on the first BSS.
    let entries = scan.map { WalkBSS($0, signalBelieved: true) }
    let lens = IPhoneLens()
    let on = scan.first?.bssid
    let signal = stations.first?.signal.map { Int($0) }
    let freq = scan.first?.frequency.map { Int($0) }
    let m = lens.moment(
        timeNs: n, bssid: on, ssid: "ward", freqMhz: freq, signalDbm: signal, readAtNs: n, entries: entries, completed: activity.completedScans)
    precondition((m.unknown == nil) == (m.roamIdle != nil && m.roamWithTraffic != nil && m.bssAbove67 != nil) || m.unknown == .noSignal)
    let walked = (0..<Int64(3)).map { i in WalkSample(timeNs: i * n / 2, bssid: on, ssid: "ward", freqMhz: freq, signalDbm: signal) }
    let seen = lens.apply(samples: walked, scans: [WalkScan(timeNs: n / 2, entries: entries)], heartbeats: [], marks: [], completed: activity.completedScans)
    precondition(seen.holes.map(\.samples).reduce(0, +) <= walked.count)
    let heartbeats = (0..<min(size, 64)).map { i in
        StallAnalysis.Heartbeat(sentNs: Int64(i) * 50_000_000, rttMs: data[i] == 0 ? nil : Double(data[i]))
    }
    let r = StallAnalysis.explain(heartbeats: heartbeats, timeoutMs: 100, activities: activity.finished(at: n + 1), scansSeen: activity.scansStarted)
    precondition(r.summary.byCause.map(\.count).reduce(0, +) == r.stalls.count && r.summary.bad <= heartbeats.count)
    return 0
}
