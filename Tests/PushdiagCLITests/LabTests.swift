import Foundation
import PushdiagCore
import TestSupport
import Testing

/// Checks what `make lab` produced inside the Wi-Fi lab VM (Tests/lab/run.sh): pushdiag's
/// numbers and events against iw's, read from the same kernel at the same time. Runs only where
/// PUSHDIAG_LAB_RESULTS names the results folder (inside the VM).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["PUSHDIAG_LAB_RESULTS"] != nil, "runs inside the lab VM (make lab)"))
struct LabTests {
    let dir = URL(fileURLWithPath: ProcessInfo.processInfo.environment["PUSHDIAG_LAB_RESULTS"] ?? "/nonexistent")

    func text(_ name: String) throws -> String { try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) }
    /// For messages: the file's text, or why it could not be read.
    func peek(_ name: String) -> String { (try? text(name)) ?? "(\(name) missing)" }
    func object(_ name: String) throws -> [String: Any] { try json(try text(name)) }

    /// `iw dev X survey dump` → frequency → (key → value) for the numeric lines.
    static func iwBlocks(_ text: String, start: String, key: (String) -> String?) -> [String: [String: Int64]] {
        var out: [String: [String: Int64]] = [:]
        var current: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix(start) {
                current = nil
                if let k = key(String(line)) { current = k }
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            let number = parts[1].split(separator: " ").first.flatMap { Int64($0) }
            if parts[0] == "frequency", let n = number {
                current = String(n)
                continue
            }
            if let c = current, let n = number { out[c, default: [:]][parts[0]] = n }
        }
        return out
    }

    static func survey(_ t: String) -> [String: [String: Int64]] {
        iwBlocks(t, start: "Survey data from") { _ in nil }
    }

    static func stations(_ t: String) -> [String: [String: Int64]] {
        iwBlocks(t, start: "Station ") { line in line.split(separator: " ").dropFirst().first.map(String.init) }
    }

    @Test func wifiSurveyAndStationMatchIw() throws {
        let status = try text("wifi.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0", "\(peek("wifi.err"))")
        let report = try object("wifi.json")
        let before = Self.survey(try text("survey-before.txt"))
        let after = Self.survey(try text("survey-after.txt"))
        let survey = try #require(report["survey"] as? [[String: Any]])
        #expect(!survey.isEmpty && survey.count == after.count, "pushdiag \(survey.count) survey entries, iw \(after.count)")
        for e in survey {
            let f = String(try #require(e["frequency_mhz"] as? Int))
            let b = try #require(before[f])
            let a = try #require(after[f])
            for (ours, theirs) in [("active_ms", "channel active time"), ("busy_ms", "channel busy time")] {
                let v = try #require(e[ours] as? Int64 ?? (e[ours] as? Int).map(Int64.init), "\(f) \(ours)")
                #expect((b[theirs]!...a[theirs]!).contains(v), "\(f) MHz \(ours) \(v) not within iw's \(b[theirs]!)…\(a[theirs]!)")
            }
            #expect(Int64(e["noise_dbm"] as? Int ?? 0) == a["noise"], "\(f) MHz noise")
        }

        let sb = Self.stations(try text("station-before.txt"))
        let sa = Self.stations(try text("station-after.txt"))
        let stations = try #require(report["stations"] as? [[String: Any]])
        #expect(stations.count == 1 && sa.count == 1)
        for s in stations {
            let mac = try #require(s["mac"] as? String)
            let b = try #require(sb[mac])
            let a = try #require(sa[mac])
            for (ours, theirs) in [
                ("tx_packets", "tx packets"), ("tx_retries", "tx retries"), ("tx_failed", "tx failed"), ("rx_packets", "rx packets"),
                ("connected_seconds", "connected time"),
            ] {
                let v = Int64(try #require(s[ours] as? Int, "\(mac) \(ours)"))
                #expect((b[theirs]!...a[theirs]!).contains(v), "\(mac) \(ours) \(v) not within iw's \(b[theirs]!)…\(a[theirs]!)")
            }
            #expect(Int64(s["signal_dbm"] as? Int ?? 0) == a["signal"])
        }
        // The BSSes of the SSID from the scan cache: both APs, 802.11r/k/v all advertised by hostapd.
        let bss = try #require(report["bss"] as? [[String: Any]])
        #expect(bss.count == 2)
        for b in bss {
            #expect(b["fast_transition"] as? Bool == true && b["radio_measurement"] as? Bool == true && b["bss_transition"] as? Bool == true, "\(b)")
        }
        #expect(bss.filter { $0["current"] as? Bool == true }.count == 1)
    }

    @Test func watchReportsEachRoamAsIwEventSaw() throws {
        let status = try text("watch.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0", "\(peek("watch.err"))")
        let roams = try text("roams.txt").split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let lines = try text("watch.jsonl").split(separator: "\n").map { try json(String($0)) }
        let events = lines.filter { $0["event"] as? String != "summary" }
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary" && summary["roams"] as? Int == 2)

        let roamEvents = events.filter { $0["event"] as? String == "roam" }
        #expect(roamEvents.count == 2)
        for (i, r) in roamEvents.enumerated() where roams.count == 3 {
            #expect(r["from_bssid"] as? String == roams[i] && r["bssid"] as? String == roams[i + 1], "roam \(i): \(r)")
            #expect(r["ssid"] as? String == "ward-3")
            #expect((r["gap_ms"] as? Double ?? -1) >= 0)
            // Both APs and the station do FT-PSK: wpa_supplicant roams by fast transition.
            #expect(r["fast_transition"] as? Bool == true, "roam \(i): \(r)")
        }
        // iw event: every "disconnected" and "connected to" line has its pushdiag event, in order.
        var iw: [(String, String?)] = []
        for line in try text("iw-event.txt").split(separator: "\n") where line.contains("wlan2 (phy") {
            if line.contains("disconnected") {
                let reason = line.components(separatedBy: "reason: ").dropFirst().first?.split(separator: ":").first.map(String.init)
                iw.append(("disconnect", reason))
            } else if let r = line.components(separatedBy: "failed to connect to ").dropFirst().first {
                // A refused attempt (the lab retries a roam hwsim refused): "…, status: 55: Invalid FTIE".
                iw.append(("failed", String(r.prefix(17))))
            } else if let r = line.components(separatedBy: "connected to ").dropFirst().first {
                iw.append(("connect", r.trimmingCharacters(in: .whitespaces)))
            }
        }
        let ours: [(String, String?)] = events.map { e in
            let failed = e["event"] as? String == "connect" && (e["status_code"] as? Int ?? 0) != 0
            let kind = e["event"] as? String == "disconnect" ? "disconnect" : failed ? "failed" : "connect"
            return (kind, kind == "disconnect" ? (e["reason_code"] as? Int).map(String.init) : e["bssid"] as? String)
        }
        #expect(iw.map { "\($0.0) \($0.1 ?? "")" } == ours.map { "\($0.0) \($0.1 ?? "")" })
    }

    @Test func captureOnTheMonitorSeesBothAPs() throws {
        let status = try text("capture.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1", "2"].contains(status), "\(peek("capture.err"))")
        let report = try object("capture.json")
        let bss = try #require(report["bss"] as? [[String: Any]]).filter { ($0["beacons"] as? Int ?? 0) > 0 }
        #expect(bss.count == 2, "beacons from both APs")
        for b in bss {
            #expect(b["ssid"] as? String == "ward-3")
            #expect(b["bss_load"] is [String: Any], "BSS Load in \(b["bssid"] ?? "?")")
            #expect(b["radio_measurement"] as? Bool == true && b["bss_transition"] as? Bool == true)
            #expect(b["fast_transition"] as? Bool == true && b["mobility_domain"] as? Int == 0xb2a1, "802.11r via the mobility domain a1b2")
        }
        #expect(Set(bss.compactMap { $0["channel"] as? Int }) == [1, 6])
    }

    /// One line naming the interface or the capability, and exit 3.
    @Test func errorsNameWhatIsWrong() throws {
        for (file, words) in [
            ("error-nosuch.txt", "no such interface: nosuch0"), ("error-lo.txt", "lo is not a wireless interface"),
            ("error-perm.txt", "CAP_NET_RAW"),
        ] {
            let lines = try text(file).split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0].contains(words) && lines[1] == "3", "\(file): \(lines)")
        }
    }

    /// ip route get and ip -d link as the oracle for the route through VLAN 20.
    @Test func routeThroughARealVLAN() throws {
        let status = try text("route-vlan.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "0", "\(peek("route-vlan.err"))")
        let route = try #require((try object("route-vlan.json")["routes"] as? [[String: Any]])?.first)
        let link = try text("ip-link-vlan.txt")
        let get = try text("ip-route-get.txt")
        #expect(link.contains("vlan protocol 802.1Q id 20"))
        #expect(route["vlan_id"] as? Int == 20)
        #expect(route["interface"] as? String == "vl0.20" && get.contains("dev vl0.20"))
        #expect(route["devices"] as? [String] == ["vl0.20", "vl0"])
        #expect(route["gateway"] as? String == "10.20.0.1" && get.contains("via 10.20.0.1"))
        #expect(route["gateway_state"] as? String == "reachable")
        #expect(get.contains("src \(route["source"] as? String ?? "?")"))
    }

    /// netem (the kernel's own delay and loss) as the oracle for heartbeat round trips and loss.
    @Test func heartbeatThroughNetem() throws {
        let qdisc = try text("netem-qdisc.txt")
        #expect(qdisc.contains("delay 50ms") && qdisc.contains("loss 5%"), "\(qdisc)")
        let j = try object("netem.json")
        let sent = j["sent"] as? Int ?? 0
        #expect(sent == 300, "\(peek("netem.err"))")
        let rtt = try #require(j["rtt_ms"] as? [String: Any])
        let median = rtt["median"] as? Double ?? 0
        // 50 ms of netem plus the emulated machine's own time (a few ms, more on a loaded host).
        #expect(median >= 50 && median < 80, "median round trip \(median) ms through 50 ms of netem delay")
        #expect((rtt["min"] as? Double ?? 0) >= 50)
        // 5% loss over 300 heartbeats: 15 expected, standard deviation about 3.8; the bounds are
        // more than three deviations away.
        let loss = j["loss_percent"] as? Double ?? -1
        #expect(loss >= 1 && loss <= 10, "measured loss \(loss)% through 5% of netem loss")
    }

    // MARK: walk (Tests/lab/walk.sh)

    /// iw event's moves in the station's namespace: (time in s, "disconnect" / "connect" /
    /// "failed", BSSID).
    func iwMoves(_ name: String) throws -> [(time: Double, kind: String, bssid: String?)] {
        try text(name).split(separator: "\n").compactMap { line in
            guard line.contains("wlan2 (phy"), let t = Double(line.prefix { $0 != ":" }) else { return nil }
            if line.contains("disconnected") { return (t, "disconnect", nil) }
            if let r = line.components(separatedBy: "failed to connect to ").dropFirst().first { return (t, "failed", String(r.prefix(17))) }
            if let r = line.components(separatedBy: "connected to ").dropFirst().first { return (t, "connect", String(r.prefix(17))) }
            return nil
        }
    }

    /// The walk's moves are iw's: every disconnect/connect pair, with the same BSSIDs and a link
    /// gap within 100 ms of iw's own timestamps; the 802.11r roam says so, the WPA-PSK one and
    /// the one after the AP went away do not.
    @Test func walkMovesAreIwsAndSay80211r() throws {
        let status = try text("walk.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1", "2"].contains(status), "\(peek("walk.err"))")
        let report = try object("walk.json")
        let roams = try #require(report["roams"] as? [[String: Any]])
        let iw = try iwMoves("walk-iw-event.txt")
        var pairs: [(from: Double, to: Double, bssid: String)] = []
        var down: Double?
        for m in iw {
            if m.kind == "disconnect" { down = m.time }
            if m.kind == "connect", let d = down, let b = m.bssid {
                pairs.append((d, m.time, b))
                down = nil
            }
        }
        #expect(roams.count == pairs.count, "walk \(roams.count) moves, iw \(pairs.count): \(roams)")
        for (r, p) in zip(roams, pairs) {
            #expect(r["to_bssid"] as? String == p.bssid)
            let gap = try #require(r["link_gap_ms"] as? Double)
            #expect(abs(gap - (p.to - p.from) * 1000) < 100, "walk \(gap) ms, iw \((p.to - p.from) * 1000) ms")
        }
        // The three moves the lab made on purpose: the last three with another AP.
        let expected = try text("walk-bssids.txt").split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let moves = roams.filter { $0["from_bssid"] as? String != $0["to_bssid"] as? String }.suffix(3)
        #expect(
            moves.map { "\($0["from_bssid"] as? String ?? "?")>\($0["to_bssid"] as? String ?? "?")" } == [
                "\(expected[0])>\(expected[1])", "\(expected[1])>\(expected[2])", "\(expected[2])>\(expected[3])",
            ])
        #expect(moves.map { $0["fast_transition"] as? Bool } == [true, false, false])
        #expect(moves.map { $0["location"] as? String } == ["ward 3", "corridor", "ward 5"])
        // Two roams between live APs keep the TCP connection (each heartbeat crosses the air).
        #expect(moves.prefix(2).allSatisfy { $0["connection"] as? String == "kept" }, "\(moves)")
        // After the AP went away: kept, or reconnected within the schedule (0.5+1+2+4×4 s of
        // waiting plus at most 5 s of connect timeout per attempt).
        let last = try #require(moves.last)
        let fate = last["connection"] as? String
        #expect(fate == "kept" || fate == "reconnected", "\(last)")
        if fate == "reconnected" {
            let attempts = try #require(last["reconnect_attempts"] as? Int)
            #expect((last["reconnect_ms"] as? Double ?? .infinity) <= 19_500 + Double(attempts) * 5000)
        }
    }

    /// The responder is the oracle for heartbeats: it answered every heartbeat the walk counts as
    /// answered and none the walk did not send; one connection, plus one per reconnect.
    @Test func walkHeartbeatsAreTheRespondersAndPlacesAreOnTheirSamples() throws {
        let report = try object("walk.json")
        let c = try #require(report["connection"] as? [String: Any])
        let served = try text("walk-responder.log").split(separator: "\n").first { $0.hasPrefix("served ") }
        let numbers = try #require(served).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
        #expect(numbers.count == 3, "\(peek("walk-responder.log"))")
        let (connections, requests) = (numbers[0], numbers[1])
        let sent = try #require(c["heartbeats_sent"] as? Int)
        let answered = try #require(c["heartbeats_answered"] as? Int)
        #expect(sent >= 20 && answered <= requests && requests <= sent, "sent \(sent), answered \(answered), responder \(requests)")
        if c["heartbeats_lost"] as? Int == 0 { #expect(answered == requests) }
        #expect(connections == 1 + (c["reconnects"] as? Int ?? -1))
        // Places run in the order they were named, each on a stretch of samples.
        let samples = try #require(report["samples"] as? [[String: Any]])
        var order: [String] = []
        for s in samples { if let l = s["location"] as? String, order.last != l { order.append(l) } }
        #expect(order == ["ward 3", "corridor", "ward 5"])
        let places = try #require(report["locations"] as? [[String: Any]])
        #expect(places.map { $0["name"] as? String } == ["ward 3", "corridor", "ward 5"])
        #expect(places.allSatisfy { ($0["samples"] as? Int ?? 0) > 0 && $0["signal_median_dbm"] is Double })
        #expect(samples.filter { $0["bssid"] is String }.allSatisfy { $0["ssid"] as? String == "ward-3" && $0["signal_dbm"] is Int })
    }

    /// `walk --replay` of the walk's own recording gives the same report.
    @Test func walkReplayIsTheWalk() throws {
        #expect(try text("walk-replay.json") == (try text("walk.json")), "\(peek("walk-replay.err"))")
    }
}
