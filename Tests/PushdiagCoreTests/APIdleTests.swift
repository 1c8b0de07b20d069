import Testing

@testable import PushdiagCore

/// `join --find-ap-idle` from synthetic rungs: each outcome from the events that decide it, the
/// silence measured from the station's last frame, the limits and the safe interval.
@Suite struct APIdleTests {
    typealias K = JoinEvent.Kind
    static func at(_ s: Double, _ k: K) -> JoinEvent { JoinAnalysisTests.at(s * 1000, k) }
    static let arp = K.stationSent("ARP")

    @Test func aDropDuringTheSilenceIsTimedFromTheStationsLastFrame() throws {
        let r = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 60)), Self.at(2, Self.arp), Self.at(42.5, .disconnected(reason: 4, byAP: true)),
                Self.at(44, .operstate(6)), Self.at(44.1, .rungEnd),
            ]))
        #expect(r.outcome == .dropped && r.silentS == 40.5 && r.reason == 4 && r.stationFrames == 1)
        #expect(r.detail.contains("4 (inactivity)") && r.detail.contains("40.5s"), "\(r.detail)")
    }

    @Test func aSilenceKeptIsCheckedByThePushAfterIt() throws {
        let r = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(10.2, .push(.heartbeatAnswered)), Self.at(10.3, .rungEnd),
            ]))
        #expect(r.outcome == .kept && r.silentS == 10 && r.stationFrames == 0 && r.reason == nil)
        // Without an answer and without a disconnection nothing is known.
        let u = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(15, .stepFailed(.tcpConnect, "timed out")), Self.at(15, .rungEnd),
            ]))
        #expect(u.outcome == .unverified && u.detail.contains("tcp_connect failed: timed out"))
    }

    @Test func theStationsOwnFramesShortenTheSilence() throws {
        let r = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 10)), Self.at(4, Self.arp), Self.at(6, .eapolSent(.start, acked: true)), Self.at(10, .silenceEnd),
                Self.at(10.1, .push(.heartbeatAnswered)), Self.at(10.2, .rungEnd),
            ]))
        // Gaps 4, 2 and 4 s: the longest silence is 4 s, short of the rung.
        #expect(r.outcome == .notSilent && r.silentS == 4 && r.stationFrames == 2)
    }

    @Test func aStationKeepingItselfAliveIsKeptAlive() throws {
        let r = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 20)), Self.at(7.9, .keepAliveSent), Self.at(20, .silenceEnd), Self.at(20.1, .push(.heartbeatAnswered)),
                Self.at(20.2, .rungEnd),
            ]))
        #expect(r.outcome == .keptAlive && r.silentS == 12.1 && r.keepAlives == 1 && r.stationFrames == 1, "\(r)")
        let report = APIdleReport.conclude(rungs: [r], bssMaxIdleS: 14.336, pathIdleTimeoutS: nil)
        #expect(report.keptS == 12.1 && report.droppedAfterS == nil && report.findings.first?.message.contains("keep-alives") == true)
        // Keep-alives most of the frames: kept alive, the other frame named (a full lab run on
        // CI, 2026-11-26: five keep-alives and one frame more in a 20 s rung).
        let most = try #require(
            APIdle.rung(
                [
                    Self.at(0, .silenceStart(idleS: 20)), Self.at(4, .keepAliveSent), Self.at(8, .keepAliveSent), Self.at(9, Self.arp),
                    Self.at(12, .keepAliveSent), Self.at(16, .keepAliveSent), Self.at(19.5, .keepAliveSent), Self.at(20, .silenceEnd),
                    Self.at(20.1, .push(.heartbeatAnswered)), Self.at(20.2, .rungEnd),
                ]))
        #expect(most.outcome == .keptAlive && most.silentS == 4 && most.keepAlives == 5 && most.stationFrames == 6, "\(most)")
        #expect(most.detail.contains("(5, empty frames") && most.detail.contains("and 1 other frame of its own"), "\(most.detail)")
        // A keep-alive beside as many other frames: not silent, both counted.
        let mixed = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 20)), Self.at(7.9, .keepAliveSent), Self.at(9, Self.arp), Self.at(20, .silenceEnd),
                Self.at(20.1, .push(.heartbeatAnswered)), Self.at(20.2, .rungEnd),
            ]))
        #expect(mixed.outcome == .notSilent && mixed.stationFrames == 2 && mixed.keepAlives == 1 && mixed.detail.contains("(1 keep-alive)"))
    }

    @Test func theSilenceBeginsWithTheStationsLastFrameBeforeTheRung() throws {
        let events = [
            Self.at(-1.5, Self.arp), Self.at(0, .silenceStart(idleS: 30)), Self.at(16, .disconnected(reason: 4, byAP: true)), Self.at(17, .rungEnd),
        ]
        #expect(APIdle.rungs(events).first?.silentS == 17.5)
        // A disconnection after the push was answered is not the silence's; a stop during the
        // push leaves the rung without its end: interrupted.
        let late = APIdle.rungs([
            Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(10.2, .push(.heartbeatAnswered)),
            Self.at(10.5, .disconnected(reason: 3, byAP: true)), Self.at(11, .rungEnd),
        ])
        #expect(late.map(\.outcome) == [.kept])
        let stopped = APIdle.rungs([Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(10.2, .stepFailed(.dns, "stopped"))])
        #expect(stopped.map(\.outcome) == [.interrupted])
        // Reason 7 during the silence: the AP refused a frame no packet socket saw (a connection
        // probe); its limit is at most that silence.
        let refused = APIdle.rungs([Self.at(0, .silenceStart(idleS: 60)), Self.at(30.1, .disconnected(reason: 7, byAP: true)), Self.at(31, .rungEnd)])
        #expect(refused.first?.outcome == .dropped && refused.first?.detail.contains("at most") == true)
        // A kept rung beyond the 30 s after which a mac80211 station probes its AP says so.
        let long = APIdle.rungs([
            Self.at(0, .silenceStart(idleS: 60)), Self.at(60, .silenceEnd), Self.at(60.1, .push(.heartbeatAnswered)), Self.at(61, .rungEnd),
        ])
        #expect(long.first?.outcome == .kept && long.first?.detail.contains("probes its AP after 30s") == true, "\(long)")
    }

    /// nl80211's count of frames sent, read at the silence's start and end, against the frames
    /// the interface showed: the difference is what no packet socket sees (mac80211's probes).
    @Test func framesTheInterfaceDidNotShowMakeTheSilenceUnknown() throws {
        let hidden = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 20)), Self.at(0.001, .stationCounters(txPackets: 100)), Self.at(9, Self.arp),
                Self.at(19.999, .stationCounters(txPackets: 103)), Self.at(20, .silenceEnd), Self.at(20.1, .push(.heartbeatAnswered)),
                Self.at(20.2, .rungEnd),
            ]))
        #expect(hidden.outcome == .notSilent && hidden.hiddenFrames == 2 && hidden.silentS == nil && hidden.stationFrames == 1, "\(hidden)")
        // The counter wraps; as many frames as were seen: nothing hidden, the rung as it was.
        let none = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 20)), Self.at(0.001, .stationCounters(txPackets: UInt32.max)), Self.at(20, .stationCounters(txPackets: 0)),
                Self.at(20, Self.arp), Self.at(20.001, .silenceEnd), Self.at(20.1, .push(.heartbeatAnswered)), Self.at(20.2, .rungEnd),
            ]))
        #expect(none.hiddenFrames == 0 && none.outcome == .kept && none.silentS == 20, "\(none)")
        // The counters go through join.jsonl; a count that is no u32 is refused.
        let header = JoinLog.Header(
            interface: "w", ifindex: 1, server: "s:1", mode: "link", setup: JoinCycleSetup(resolvesName: false, tls: false, hello: false), notes: [])
        let text = JoinLog.encode(header: header, events: [Self.at(1, .stationCounters(txPackets: 7))], windows: [])
        #expect(try JoinLog.decode(text, file: "j").get().1 == [Self.at(1, .stationCounters(txPackets: 7))])
        guard case .failure = JoinLog.decode(text.replacingOccurrences(of: "\"count\":7", with: "\"count\":-7"), file: "j") else {
            Issue.record("a negative count was accepted")
            return
        }
    }

    @Test func anAPThatForgotSilentlyRefusesTheFirstFrameAfter() throws {
        let r = try #require(
            APIdle.rung([
                Self.at(0, .silenceStart(idleS: 20)), Self.at(20, .silenceEnd), Self.at(20.01, .disconnected(reason: 7, byAP: true)),
                Self.at(21, .rungEnd),
            ]))
        #expect(r.outcome == .dropped && r.silentS == 20 && r.reason == 7 && r.detail.hasPrefix("the AP had forgotten the station"))
    }

    @Test func theStationLeavingOrAStopIsNoDrop() throws {
        let left = try #require(APIdle.rung([Self.at(0, .silenceStart(idleS: 20)), Self.at(5, .disconnected(reason: 3, byAP: false))]))
        #expect(left.outcome == .stationLeft)
        let stopped = try #require(APIdle.rung([Self.at(0, .silenceStart(idleS: 20)), Self.at(5, Self.arp)]))
        #expect(stopped.outcome == .interrupted && stopped.silentS == nil)
        #expect(APIdle.rung([Self.at(0, .silenceEnd)]) == nil)
    }

    @Test func rungsAreFoundInAnyOrder() {
        let events = [
            Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(10.2, .push(.heartbeatAnswered)), Self.at(10.3, .rungEnd),
            Self.at(11, .silenceStart(idleS: 30)), Self.at(40, .disconnected(reason: 4, byAP: true)), Self.at(42, .rungEnd),
        ]
        let rungs = APIdle.rungs(events)
        #expect(rungs.map(\.outcome) == [.kept, .dropped] && rungs.map(\.silentS) == [10, 29])
        #expect(APIdle.rungs(events.reversed()) == rungs)
    }

    @Test func theSafeIntervalIsTheLowestLimit() {
        let kept = APIdle.Rung(idleS: 30, outcome: .kept, silentS: 30, reason: nil, stationFrames: 0, detail: "")
        let dropped = APIdle.Rung(idleS: 60, outcome: .dropped, silentS: 41.2, reason: 4, stationFrames: 0, detail: "")
        let r = APIdleReport.conclude(rungs: [kept, dropped], bssMaxIdleS: 39.936, pathIdleTimeoutS: 300)
        #expect(r.keptS == 30 && r.droppedAfterS == 41.2 && r.droppedReason == 4)
        // What the AP kept is safe; its drop (its check period in it) is not a limit when a rung was kept.
        #expect(r.limits.map(\.source) == [.apKept, .bssMaxIdle, .pathIdleTimeout] && r.safeIntervalS == 30)
        #expect(r.findings.map(\.severity) == [.ok] && r.findings[0].message.contains("having kept 30s"), "\(r.findings)")
        // An AP that drops sooner than it advertises is a warning.
        let early = APIdleReport.conclude(rungs: [dropped], bssMaxIdleS: 60, pathIdleTimeoutS: nil)
        #expect(early.safeIntervalS == 41.2 && early.findings.map(\.severity) == [.warning] && early.findings[0].threshold == 60)
        // An AP that advertises no period: the finding names no threshold (it gave 0 s).
        let silent = APIdleReport.conclude(rungs: [kept, dropped], bssMaxIdleS: nil, pathIdleTimeoutS: nil)
        #expect(silent.findings.map(\.severity) == [.ok] && silent.findings[0].threshold == nil && silent.findings[0].value == 41.2, "\(silent.findings)")
        // Nothing measured: UNKNOWN, and no interval.
        let none = APIdleReport.conclude(rungs: [], bssMaxIdleS: nil, pathIdleTimeoutS: nil)
        #expect(none.safeIntervalS == nil && none.limits.isEmpty && none.findings.map(\.severity) == [.unknown])
        // Seconds spelt as the thresholds spell them (they said "s" where every other finding says "seconds").
        #expect(Set((r.findings + early.findings + silent.findings + none.findings).map(\.unit)) == [ValueUnit.seconds.rawValue])
    }

    @Test func theStationsFramesAreNamedAndOthersIgnored() {
        let station = MACAddress("02:00:00:00:02:00")!
        func frame(from src: String, type: [UInt8], _ payload: [UInt8] = []) -> [UInt8] {
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + MACAddress(src)!.bytes + type + payload
        }
        var ipv4 = [UInt8](repeating: 0, count: 20)
        ipv4[0] = 0x45
        ipv4[9] = 17
        ipv4[16...19] = [10, 40, 0, 1]
        let cases: [([UInt8], K?)] = [
            (frame(from: "02:00:00:00:02:00", type: [0x08, 0x06], [UInt8](repeating: 0, count: 28)), .stationSent("ARP")),
            (frame(from: "02:00:00:00:02:00", type: [0x08, 0x00], ipv4), .stationSent("IPv4 UDP to 10.40.0.1")),
            (frame(from: "02:00:00:00:02:00", type: [0x08, 0x00], [0x45]), .stationSent("IPv4 ?")),
            // wpa_supplicant's keep-alive: nothing after the Ethernet header.
            (frame(from: "02:00:00:00:02:00", type: [0x08, 0x00]), .keepAliveSent),
            (frame(from: "02:00:00:00:02:00", type: [0x88, 0xCC]), .stationSent("ethertype 0x88cc")),
            (frame(from: "02:00:00:00:01:00", type: [0x08, 0x06]), nil),
            (Array(frame(from: "02:00:00:00:02:00", type: [0x08, 0x06]).prefix(13)), nil),
        ]
        for (bytes, want) in cases {
            #expect(bytes.withUnsafeBytes { K.stationFrame(ethernet: $0, station: station) } == want, "\(bytes)")
        }
    }

    @Test func theLaddersEventsAndHeaderAreRecorded() throws {
        let header = JoinLog.Header(
            interface: "wlan2", ifindex: 4, server: "push.lab:3000", mode: "wpa_supplicant",
            setup: JoinCycleSetup(resolvesName: true, tls: false, hello: false), notes: [], station: MACAddress("02:00:00:00:02:00"),
            apIdleRungs: [10, 20], pathIdleTimeoutS: 300)
        let own = [Self.at(0, .silenceStart(idleS: 10)), Self.at(10, .silenceEnd), Self.at(11, .rungEnd)]
        let text = JoinLog.encode(header: header, events: own + [Self.at(5, Self.arp)], windows: [])
        let (h, events, _) = try JoinLog.decode(text, file: "j").get()
        #expect(h == header && events == own)
        let bad = text.replacingOccurrences(of: "\"ap_idle_rungs\":[10,20]", with: "\"ap_idle_rungs\":[-1]")
        #expect(bad != text)
        guard case .failure(let e) = JoinLog.decode(bad, file: "j") else {
            Issue.record("a negative rung was accepted")
            return
        }
        #expect(e.description == "j:1: an idle time that is not between 1 ms and 10^7 s")
    }
}
