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
}
