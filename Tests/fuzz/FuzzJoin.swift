// libFuzzer target: what a rejoin shows on the wire, through every parser pushdiag join reads —
// Ethernet frames of a station (EAPOL and EAP, DHCP, DNS over IPv4 and IPv6), each payload
// parser alone, the association response's elements (BSS Max Idle Period) — and the join's
// analysis fed the packets that decoded as events at times taken from the input, so that any
// order, duplicate or gap of events reaches the step logic; the input as text is also a join
// recording's join.jsonl (JoinLog.decode), whose events and windows go through the analysis;
// the station's own frames (a silence's end) and the AP idle ladder's rungs from the same events;
// and the input as a join report whose limits survey and heartbeat take (`JoinLimits.decode`,
// `--join-limits`), graded against a server's spacing taken from the input's size.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let b = UnsafeRawBufferPointer(start: data, count: size)
    _ = DHCPMessage.parse(b)
    _ = DNSMessage.parse(b)
    _ = EAPOLPacket.parse(b)
    _ = BSSMaxIdle.inAssociationResponse(b)
    _ = BSSMaxIdle.find(b)
    if case .success(let limits) = JoinLimits.decode(Array(b), file: "fuzz") {
        let every = Double(size % 4000 + 1)
        let server = ServerHeartbeats(
            registered: true, arrivals: [every, 2 * every], registeredAt: 0, acknowledged: 2, timeoutS: 60, endedAt: 2 * every + 1)
        let row = ThresholdRow.safeInterval
        _ =
            SafeIntervalCheck.grade(server, limits: limits, ranges: SurveyLimits(warning: row.defaultRange(.warning), critical: row.defaultRange(.critical)))
            .message
    }
    if case .success(let (header, logged, windows)) = JoinLog.decode(String(decoding: b, as: UTF8.self), file: "fuzz") {
        for w in windows.prefix(4) { _ = JoinAnalysis.cycle(w.cycle, events: JoinAnalysis.window(w, of: logged), setup: header.setup) }
        _ = APIdleReport.conclude(rungs: APIdle.rungs(logged), bssMaxIdleS: nil, pathIdleTimeoutS: header.pathIdleTimeoutS).findings
    }
    // The input as a list of frames: [time u8][length u8][frame], each frame an Ethernet frame.
    var events: [JoinEvent] = [JoinEvent(0, .cycleStart("fuzz"))]
    var o = 0
    var t: Int64 = 0
    while let dt = b.u8(at: o), let len = b.u8(at: o + 1) {
        let frame = b.slice(o + 2, min(Int(len), b.count - o - 2)) ?? b.suffix(from: o + 2)
        t += Int64(dt) * 1_000_000 - 20_000_000
        if let k = JoinEvent.Kind.stationFrame(ethernet: frame, station: MACAddress(rawValue: UInt64(dt))) { events.append(JoinEvent(t, k)) }
        switch StationPacket.parse(ethernet: frame) {
        case .eapol(let p)?: events.append(JoinEvent(t, .eapol(p)))
        case .dhcp(let m)?: events.append(JoinEvent(t, .dhcp(m)))
        case .dns(let m, let s, let d)?: events.append(JoinEvent(t, .dns(m, server: m.isResponse ? s : d)))
        case .tcp(let s)?: events.append(JoinEvent(t, .tcp(s)))
        case nil:
            // A byte that is no packet picks a milestone instead.
            let milestones: [JoinEvent.Kind] = [
                .scanStarted, .scanFinished(aborted: dt & 1 == 0),
                .authenticated(bssid: nil, status: [0, 1, 76, 126][Int(len & 3)], algorithm: UInt16(dt & 3), transaction: UInt16(len >> 2 & 3)),
                .associated(bssid: nil, status: UInt16(len & 2), maxIdle: nil), .connected(bssid: nil, status: 0, timedOut: len & 4 != 0),
                .portAuthorized, .operstate(len & 7), .addressAdded("10.0.0.\(len)/24"), .addressRemoved("10.0.0.\(dt)/24"),
                .addressAdded("2001:db8::\(len)/64"),
                .gateway(IPAddress(dt & 1 == 0 ? "10.0.0.1" : "fe80::1")!, .reachable),
                .push(.resolveStarted("p")), .push(.tcpStarted(IPAddress("10.0.0.\(dt)")!)), .push(.tcpConnected), .push(.tlsDone), .push(.helloDone),
                .push(.heartbeatSent),
                .push(.heartbeatAnswered), .cycleEnd, .pushAgain("fuzz"), .notVisible(JoinStep.allCases[Int(len) % JoinStep.allCases.count], "fuzz"),
                .stepFailed(JoinStep.allCases[Int(dt) % JoinStep.allCases.count], "fuzz"),
                .silenceStart(idleS: Double(len)), .silenceEnd, .rungEnd, .disconnected(reason: UInt16(len), byAP: dt & 1 == 0),
                .eapolSent(.other(type: len), acked: true),
            ]
            events.append(JoinEvent(t, milestones[Int(dt ^ len) % milestones.count]))
        }
        o += 2 + Int(len)
    }
    let setup = JoinCycleSetup(resolvesName: size & 1 == 0, tls: size & 2 == 0, hello: size & 4 == 0)
    let c = JoinAnalysis.cycle(1, events: events, setup: setup)
    let idle = APIdleReport.conclude(rungs: APIdle.rungs(events), bssMaxIdleS: Double(size), pathIdleTimeoutS: nil)
    _ = JoinAnalysis.report(interface: "wlan0", server: "s", mode: "kick", cycles: [c, c], thresholds: JoinThresholds(), apIdle: idle)
    return 0
}
