import Foundation
import PushdiagCore
import TestSupport
import Testing

/// pushdiag join against real rejoins (Tests/lab/join.sh, into join/): wpa_supplicant's
/// DISCONNECT and RECONNECT three times, the interface down and up, a rejoin with netem
/// delaying DNS's queries alone, WPA2-Enterprise, two through WPA3-SAE, and two each through
/// iwd and NetworkManager on the system bus,
/// each found by itself. Oracles, recorded beside each run in the same VM: iw event -t,
/// ip -ts monitor, nlmon (rtnetlink's messages as the kernel sent them) and tcpdump on the
/// station's interface (both read here with tshark).
extension LabTests {
    static let joinRuns = ["join", "join-link", "join-dns-delay", "join-eap", "join-sae", "join-iwd", "join-networkmanager"]
    /// How close a step's start or end must be to the event or packet it stands for: the issue's
    /// 10 ms. (pushdiag's own stamps around connect, send and receive ran up to 21 ms from the
    /// packets under the lab's emulation, so the TCP step and the first heartbeat are timed from
    /// the segments the interface saw.)
    static let joinToleranceMs = 10.0
    /// Netlink carries no kernel timestamp: a boundary pushdiag takes from an nl80211 or rtnetlink
    /// event is the time its thread received it, which under the lab's emulation lagged the
    /// kernel's own record (nlmon) by up to 13 ms once the binary was paged in (2026-11-26, seven
    /// runs; 73 ms before), and now and then more: 25.6 ms once, and 55 ms once in CI with
    /// NetworkManager's debug log running beside it (2026-11-26). The oracle is that record, never
    /// another tool's receive time. Most boundaries are within `joinNetlinkToleranceMs`, and
    /// every one within `netlinkLagMs`: an outlier is the emulator's scheduling; a boundary off by
    /// more, or many off by less, is pushdiag taking the wrong event.
    static let joinNetlinkToleranceMs = 25.0
    static let netlinkLagMs = 75.0
    /// The share of a run's netlink boundaries allowed between the two.
    static let netlinkOutlierShare = 0.1

    /// Whether a heartbeat in flight from `t` for `flight` seconds overlapped one of `spans` (an
    /// activity's start and end as the kernel sent them, nlmon's stamps): true or false when it did
    /// or did not by more than `netlinkLagMs` at every edge, nil within that of an edge, where
    /// pushdiag's own receive of the same events, as late as that under emulation, may fairly say
    /// either.
    static func overlap(_ t: Double, _ flight: Double, _ spans: [(Double, Double)]) -> Bool? {
        let lag = netlinkLagMs / 1000
        if spans.contains(where: { $0.0 < t + flight - lag && $0.1 > t + lag }) { return true }
        if !spans.contains(where: { $0.0 < t + flight + lag && $0.1 > t - lag }) { return false }
        return nil
    }
    static let joinPacketSteps: Set<String> = ["dhcp", "tcp_connect", "first_heartbeat"]
    /// The checks that grade the lab's timing: its TCG emulation runs DHCP, PEAP and the rest
    /// several times slower than hardware, so a rejoin may pass a field warning limit (1 s per
    /// group, 5 s to push-ready) on a loaded machine. Those alone may make a run's exit 1.
    static let joinTimingChecks: Set<String> = ["push_ready", "join_link", "join_keys", "join_address", "join_name", "join_push"]

    /// A join run's exit status is its report's status (0 OK, 1 WARNING), and a WARNING is only
    /// ever the lab's timing: no CRITICAL (a cycle never push-ready), no warning of anything else
    /// (the AP idle ladder's among them). stop 36's CI exited 1 on join-ap-idle with nothing on
    /// stderr and every other check passing.
    func expectJoinStatus(_ run: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try text("join/\(run).status").trimmingCharacters(in: .whitespacesAndNewlines)
        let report = try object("join/\(run).json")
        let findings = report["findings"] as? [[String: Any]] ?? []
        let worse = findings.filter { ($0["severity"] as? String ?? "ok") != "ok" }
        let said = worse.map { "\($0["severity"] ?? "?") \($0["check"] ?? "?"): \($0["message"] ?? "")" }.joined(separator: "; ")
        let expected = ["ok": "0", "warning": "1"][report["status"] as? String ?? ""]
        #expect(
            status == expected, "\(run): exit \(status), report \(report["status"] ?? "nil"): \(said) \(peek("join/\(run).err"))",
            sourceLocation: sourceLocation)
        #expect(
            worse.allSatisfy { $0["severity"] as? String == "warning" && Self.joinTimingChecks.contains($0["check"] as? String ?? "") },
            "\(run): \(said)", sourceLocation: sourceLocation)
    }

    /// A step of a join report: (name, status, start, end) in Unix seconds.
    typealias JoinStepTimes = (name: String, status: String, start: Double?, end: Double?, detail: String)

    func joinCycles(_ run: String) throws -> [[JoinStepTimes]] {
        let report = try object("join/\(run).json")
        return (report["cycles"] as? [[String: Any]] ?? []).map { c in
            (c["steps"] as? [[String: Any]] ?? []).map { s in
                let start = (s["start"] as? String).flatMap(Self.unixTime)
                let end = start.flatMap { st in (s["duration_ms"] as? Double).map { st + $0 / 1000 } }
                return (s["name"] as? String ?? "", s["status"] as? String ?? "", start, end, s["detail"] as? String ?? "")
            }
        }
    }

    /// `iw event -t` lines: (Unix time, the text after the interface).
    func iwEvents(_ run: String) throws -> [(time: Double, text: String)] {
        try text("join/\(run)-iw-event.txt").split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":"), let t = Double(line[..<colon]) else { return nil }
            return (t, String(line[line.index(after: colon)...]))
        }
    }

    /// `ip -ts monitor` lines: "[2026-11-26T06:30:56.227779] text" (UTC) → (Unix time, text).
    func ipMonitor(_ run: String) throws -> [(time: Double, text: String)] {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try text("join/\(run)-ip-monitor.txt").split(separator: "\n").compactMap { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            let stamp = String(line[line.index(after: line.startIndex)..<close])
            // ISO8601DateFormatter reads milliseconds only: the microseconds are added back.
            guard let dot = stamp.lastIndex(of: "."), let micros = Double("0" + stamp[dot...]),
                let whole = f.date(from: String(stamp[..<dot]) + ".000Z")
            else { return nil }
            return (whole.timeIntervalSince1970 + micros, String(line[line.index(after: close)...]))
        }
    }

    /// tshark's fields of the station's packets (or of `capture`, nlmon's): (time, fields…), one
    /// array per packet.
    func joinPackets(_ run: String, _ capture: String = "wlan2", filter: String, fields: [String]) throws -> [(time: Double, fields: [String])] {
        try packets("join/\(run)-\(capture).pcap", filter: filter, fields: fields)
    }

    /// One tshark over a capture of a run: each packet's time and what it printed of `fields`.
    /// The join's checks read about a dozen filters of each run's two captures; one tshark a
    /// capture, its filters then asked of the fields here (`PacketFields.has`), costs a sixth of
    /// the tshark starts (each about a quarter of a second of CPU).
    func joinPacketFields(_ run: String, _ capture: String, filter: String, fields: [String]) throws -> [PacketFields] {
        try joinPackets(run, capture, filter: filter, fields: fields).map { p in
            PacketFields(time: p.time, fields: Dictionary(uniqueKeysWithValues: zip(fields, p.fields)))
        }
    }

    /// A packet's fields as tshark printed them. A field that stands several times in the packet
    /// (a frame of nlmon holding two netlink messages) is printed comma-separated, and a filter's
    /// comparison holds when any of its values does, as in tshark's display filters.
    struct PacketFields {
        var time: Double
        var fields: [String: String]
        /// The printed value (comma-separated values for a field seen several times).
        subscript(_ field: String) -> String { fields[field] ?? "" }
        /// tshark's `field == value`, or a value `matching` what is asked.
        func has(_ field: String, _ value: String) -> Bool { has(field) { $0 == value } }
        func has(_ field: String, matching: (Substring) -> Bool) -> Bool {
            self[field].split(separator: ",").contains(where: matching)
        }
        /// tshark's filter naming a protocol: the frame carries it (frame.protocols).
        func carries(_ proto: String) -> Bool { self["frame.protocols"].split(separator: ":").contains { $0 == proto } }
    }

    /// The distance from `t` to the nearest of `times`, in ms (infinity when there is none).
    static func nearestMs(_ t: Double, _ times: [Double]) -> Double { times.map { abs($0 - t) * 1000 }.min() ?? .infinity }

    @Test func joinRejoinsAndTheAPsIdleLimit() throws {
        for run in Self.joinRuns { try expectJoinStatus(run) }
        let report = try object("join/join.json")
        let cycles = try #require(report["cycles"] as? [[String: Any]])
        #expect(cycles.count == 3 && cycles.allSatisfy { $0["push_ready_ms"] is Double }, "\(cycles.map { $0["push_ready_ms"] ?? "nil" })")
        // hostapd advertises ap_max_inactivity in units of 1,000 TU (1.024 s), rounded down.
        let idle = try #require(Int(try text("join/join-ap-max-inactivity.txt").trimmingCharacters(in: .whitespacesAndNewlines)))
        let advertised = Double(idle * 1000 / 1024) * 1.024
        for c in cycles { #expect((c["bss_max_idle_s"] as? Double).map { abs($0 - advertised) < 0.001 } == true, "\(c["bss_max_idle_s"] ?? "nil")") }
        // Every rejoin ran DHCP (udhcpc from wpa_cli's action script): each cycle shows it, and
        // no step took negative time.
        for run in Self.joinRuns {
            for (n, steps) in try joinCycles(run).enumerated() {
                let dhcp = steps.first { $0.name == "dhcp" }
                // "DISCOVER, OFFER, REQUEST, ACK: 10.40.0.119, …", with a count of DISCOVERs where a
                // client sent more than one (iwd's, before dnsmasq's ping check was turned off).
                #expect(
                    dhcp?.status == "ok" && dhcp?.detail.contains("ACK") == true && dhcp?.detail.contains(": 10.40.0.") == true,
                    "\(run) cycle \(n + 1): \(String(describing: dhcp))")
                #expect(steps.allSatisfy { s in s.start.flatMap { st in s.end.map { $0 >= st } } ?? true }, "\(run) cycle \(n + 1)")
            }
        }
    }

    /// Every step's start and end within 10 ms of the kernel event or packet it stands for.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func joinStepsAreTheEventsAndPacketsTheyStandFor() throws {
        for run in Self.joinRuns {
            let iw = try iwEvents(run)
            let ip = try ipMonitor(run)
            let iwTimes = { (p: (String) -> Bool) in iw.filter { p($0.text) }.map(\.time) }
            let ipTimes = { (p: (String) -> Bool) in ip.filter { p($0.text) }.map(\.time) }
            // The station's packets: DHCP, the push server's TCP port, DNS.
            let station = try joinPacketFields(
                run, "wlan2", filter: "dhcp || tcp.port == 3000 || dns",
                fields: [
                    "frame.protocols", "dhcp.option.dhcp", "tcp.flags.syn", "tcp.flags.ack", "tcp.len", "tcp.srcport", "tcp.dstport", "dns.flags.response",
                ])
            let dhcp = station.filter { $0.carries("dhcp") }
            let tcp = station.filter { $0.has("tcp.srcport", "3000") || $0.has("tcp.dstport", "3000") }
            let dns = station.filter { $0.carries("dns") }
            // nlmon's messages.
            let nlmon = try joinPacketFields(
                run, "nlmon", filter: "netlink",
                fields: [
                    "netlink-route.ifla_operstate", "nl80211.cmd", "netlink.hdr_pid", "netlink.hdr_flags.request", "netlink.hdr_flags.multi",
                    "netlink-route.nltype", "netlink-route.ifa_address.ipv4", "netlink-route.nd_state", "netlink-route.nd_family", "wlan.fixed.status_code",
                ])
            let times = { (p: (PacketFields) -> Bool) in nlmon.filter(p).map(\.time) }
            let operstateUp = times { $0.has("netlink-route.ifla_operstate", "6") }
            let controlPortTxStatus = times { $0.has("nl80211.cmd", "139") }
            // nl80211's events as the kernel sent them (nlmon's stamp), not as iw received them: iw's
            // own thread lagged the kernel by up to 15 ms in the lab, 33 ms once in CI, where
            // pushdiag stayed within 7 ms of the kernel (2026-11-26), and 173 ms once in CI
            // (2026-11-29), where matching iw's success to the kernel's event within 100 ms left the
            // first association out. The event's own frame says which were successes (tshark
            // decodes NL80211_ATTR_FRAME: the status code of the authentication or association
            // response).
            let kernelEvent = { (cmd: Int) in
                times { $0.has("nl80211.cmd", "\(cmd)") && $0.has("netlink.hdr_pid", "0") && $0.has("netlink.hdr_flags.request", "0") }
            }
            let kernelSuccess = { (cmd: Int) in
                times {
                    $0.has("nl80211.cmd", "\(cmd)") && $0.has("netlink.hdr_pid", "0") && $0.has("netlink.hdr_flags.request", "0")
                        && $0.has("wlan.fixed.status_code") { UInt16($0.dropFirst(2), radix: 16) == 0 }
                }
            }
            // A scan ends at NEW_SCAN_RESULTS (34), or at SCAN_ABORTED (35): NetworkManager's
            // second ActivateConnection aborted the scan it had begun and used what it knew.
            let (scanStarted, scanFinished, authenticated, associated) = (
                kernelEvent(33), kernelEvent(34) + kernelEvent(35), kernelSuccess(37), kernelSuccess(38)
            )
            let iwAuthOK = iwTimes { $0.contains(": auth ") && $0.contains("status: 0") }
            let iwAssocOK = iwTimes { $0.contains(": assoc ") && $0.contains("status: 0") }
            // rtnetlink likewise: RTM_NEWADDR of the lab's address, RTM_NEWNEIGH to REACHABLE (ip
            // monitor says which neighbour). The kernel's notifications are the messages that are
            // neither a request nor part of a dump; they carry the port of the process whose
            // request made the change (iwd's, where iwd adds the address and the gateway's entry
            // itself), so the port is not what tells them.
            let notification = { (p: PacketFields) in p.has("netlink.hdr_flags.request", "0") && p.has("netlink.hdr_flags.multi", "0") }
            let newAddress = times {
                $0.has("netlink-route.nltype", "20") && notification($0) && $0.has("netlink-route.ifa_address.ipv4") { $0.hasPrefix("10.40.0.") }
            }
            // IPv4 neighbours only (tshark names no neighbour's address: ip monitor says which is
            // the gateway, within 500 ms, its own thread's lag on a loaded VM; iw's lagged 173 ms).
            let neighbourReachable = times {
                $0.has("netlink-route.nltype", "28") && notification($0) && $0.has("netlink-route.nd_state", "2") && $0.has("netlink-route.nd_family", "2")
            }
            let ipGatewayReachable = ipTimes { $0.contains("10.40.0.1 dev wlan2") && $0.contains("REACHABLE") && !$0.hasPrefix(" Deleted") }
            // A scan only where a cycle scanned (iwd went straight to the BSS it knew).
            let scanned = try joinCycles(run).contains { $0.contains { $0.name == "scan" && $0.status == "ok" } }
            #expect(
                iwAuthOK.count > 0 && iwAssocOK.count > 0 && (!scanned || scanFinished.count > 0) && newAddress.count > 0 && ipGatewayReachable.count > 0,
                "\(run): iw, ip monitor or nlmon saw no join")
            // What each boundary stands for: the times it may be.
            let oracle: [String: (start: [Double]?, end: [Double]?)] = [
                "scan": (scanStarted, scanFinished),
                "authentication": (nil, authenticated),
                "association": (nil, associated),
                "key_handshake": (nil, operstateUp),
                "dhcp": (dhcp.filter { ["1", "3"].contains($0["dhcp.option.dhcp"]) }.map(\.time), dhcp.filter { $0["dhcp.option.dhcp"] == "5" }.map(\.time)),
                "address": (nil, newAddress),
                "gateway": (nil, neighbourReachable.filter { Self.nearestMs($0, ipGatewayReachable) <= 500 }),
                "tcp_connect": (
                    tcp.filter { $0["tcp.flags.syn"] == "1" && $0["tcp.flags.ack"] == "0" }.map(\.time),
                    tcp.filter { $0["tcp.flags.syn"] == "1" && $0["tcp.flags.ack"] == "1" }.map(\.time)
                ),
                "first_heartbeat": (
                    tcp.filter { $0["tcp.len"] != "0" && $0["tcp.dstport"] == "3000" }.map(\.time),
                    tcp.filter { $0["tcp.len"] != "0" && $0["tcp.dstport"] != "3000" }.map(\.time)
                ),
            ]
            var compared = 0
            var netlink: [(what: String, ms: Double)] = []
            let cycles = try joinCycles(run)
            for (n, steps) in cycles.enumerated() {
                for s in steps where s.status == "ok" {
                    let what = "\(run) cycle \(n + 1) \(s.name)"
                    let packets = Self.joinPacketSteps.contains(s.name)
                    // A netlink boundary is checked against the outliers' bound here, and with the
                    // others below.
                    let tolerance = packets ? Self.joinToleranceMs : Self.netlinkLagMs
                    // The keys end at message 4's TX status when the detail says so, else at the operstate;
                    // EAP seen in TX status events runs between two of them.
                    let txTimed = s.detail.contains("control-port TX status")
                    let oracle =
                        s.name == "key_handshake" && txTimed
                        ? ["key_handshake": (nil, controlPortTxStatus)]
                        : s.name == "eap" && txTimed ? ["eap": (controlPortTxStatus, controlPortTxStatus)] : oracle
                    if let o = oracle[s.name] {
                        for (edge, times, t) in [("start", o.start, s.start), ("end", o.end, s.end)] {
                            guard let times, let t else { continue }
                            let ms = Self.nearestMs(t, times)
                            #expect(ms <= tolerance, "\(what) \(edge): \(ms) ms from the nearest")
                            if !packets { netlink.append(("\(what) \(edge)", ms)) }
                            compared += 1
                        }
                    }
                    // DNS: pushdiag's resolver call holds the queries and the answers it waited for.
                    if s.name == "dns", let a = s.start, let b = s.end {
                        let inside = dns.filter { $0.time >= a - Self.joinToleranceMs / 1000 && $0.time <= b + Self.joinToleranceMs / 1000 }
                        #expect(
                            inside.contains { $0["dns.flags.response"] == "0" } && inside.contains { $0["dns.flags.response"] == "1" }, "\(what): \(inside)")
                    }
                }
            }
            // Twelve at least, less the two of a scan the manager skipped (it went to a BSS it
            // knew: fresh-clone CI of 2026-11-27, 11 compared in join-dns-delay's one cycle).
            let skippedScans = cycles.filter { $0.contains { $0.name == "scan" && $0.status == "skipped" } }.count
            #expect(compared >= 12 - 2 * skippedScans, "\(run): \(compared) boundaries compared, \(skippedScans) scans skipped")
            let late = netlink.filter { $0.ms > Self.joinNetlinkToleranceMs }
            #expect(
                Double(late.count) <= (Double(netlink.count) * Self.netlinkOutlierShare).rounded(.up),
                "\(run): \(late.count) of \(netlink.count) netlink boundaries beyond \(Self.joinNetlinkToleranceMs) ms: \(late)")
        }
    }

    /// netem's delay on DNS's queries alone is the name step's, and no other step's.
    @Test func aDelayOnDNSIsTheNameStepsAlone() throws {
        let qdisc = try text("join/join-dns-delay-qdisc.txt")
        // tc prints "delay 300ms", or "delay 1s" from a second up.
        let delayMs = try #require(
            qdisc.firstMatch(of: /delay (\d+(?:\.\d+)?)(ms|s)\b/).flatMap { m in Double(m.1).map { $0 * (m.2 == "s" ? 1000 : 1) } }, "\(qdisc)")
        let delayed = try #require(try joinCycles("join-dns-delay").first)
        let normal = try joinCycles("join")
        func ms(_ s: JoinStepTimes?) -> Double? { s.flatMap { x in x.start.flatMap { a in x.end.map { ($0 - a) * 1000 } } } }
        let dns = try #require(ms(delayed.first { $0.name == "dns" }))
        #expect(dns >= delayMs, "the name step took \(dns) ms with \(delayMs) ms of delay")
        let usual = normal.compactMap { c in ms(c.first { $0.name == "dns" }) }.max() ?? 0
        #expect(usual < delayMs / 2, "without the delay the name step took \(usual) ms")
        // Every other step within what it took without the delay, plus half the delay.
        for name in ["key_handshake", "dhcp", "address", "gateway", "tcp_connect", "first_heartbeat"] {
            let v = ms(delayed.first { $0.name == name })
            let without = normal.compactMap { c in ms(c.first { $0.name == name }) }.max() ?? 0
            #expect(v.map { $0 < without + delayMs / 2 } == true, "\(name) took \(v.map { "\($0)" } ?? "nil") ms, \(without) without the delay")
        }
    }

    /// The recorded run (--record) replays to the report the live run printed, byte for byte:
    /// the same decoders and the same analysis on the same times.
    @Test func joinReplaysAsItRanLive() throws {
        let live = try text("join/join.json")
        let replay = try run(
            TestPaths.binary.path, ["join", "--replay", dir.appendingPathComponent("join/join-rec").path, "--format", "json"])
        #expect(replay.stdout == live, "\(replay.stderr)")
        for name in ["nl80211.pcap", "rtnetlink.pcap", "packets.pcap", "join.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("join/join-rec/\(name)").path), "\(name)")
        }
    }

    /// WPA3-Personal through an AP that keeps no PMKSA and asks every commit for an anti-clogging
    /// token (join.sh's lab_join_sae): the station offers its cached PMKID (open system), is
    /// refused (status 53), then runs SAE: commit, status 76 with a token, commit again, confirm.
    /// The authentication step ends at the confirm the association followed (the kernel's
    /// AUTHENTICATE of algorithm 3, transaction 2, status 0, as nlmon stamped it; pushdiag's
    /// receive of it within `netlinkLagMs`, never more than 5 ms before it: the two stamps'
    /// clocks), not at the open system exchange or
    /// a commit, and the token's status 76 is no refusal.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func joinTimesWPA3SAEToItsConfirm() throws {
        let report = try object("join/join-sae.json")
        let cycles = try #require(report["cycles"] as? [[String: Any]])
        #expect(cycles.count == 2 && cycles.allSatisfy { $0["push_ready_ms"] is Double }, "\(cycles.map { $0["push_ready_ms"] ?? "nil" })")
        let authenticate = try joinPacketFields(
            "join-sae", "nlmon", filter: "nl80211.cmd == 37 && netlink.hdr_pid == 0 && netlink.hdr_flags.request == 0",
            fields: ["wlan.fixed.auth.alg", "wlan.fixed.auth_seq", "wlan.fixed.status_code"])
        func kernel(alg: String, seq: String, status: String) -> [Double] {
            Self.once(
                authenticate.filter { $0.has("wlan.fixed.auth.alg", alg) && $0.has("wlan.fixed.auth_seq", seq) && $0.has("wlan.fixed.status_code", status) }
                    .map(\.time))
        }
        let confirms = kernel(alg: "3", seq: "0x0002", status: "0x0000")
        let tokens = kernel(alg: "3", seq: "0x0001", status: "0x004c")
        // The lab did what it says: a token asked and a confirm in each cycle.
        #expect(confirms.count >= 2 && tokens.count >= 2, "confirms \(confirms), tokens \(tokens)")
        for (n, steps) in try joinCycles("join-sae").enumerated() {
            let auth = try #require(steps.first { $0.name == "authentication" })
            #expect(auth.status == "ok" && auth.detail.hasSuffix("(SAE: commit and confirm)"), "cycle \(n + 1): \(auth)")
            let end = try #require(auth.end)
            let confirm = confirms.filter { $0 <= end + 0.005 }.max()
            #expect(confirm.map { (end - $0) * 1000 <= Self.netlinkLagMs } == true, "cycle \(n + 1): ends \(end), confirms \(confirms)")
            // The cycle's token came before the confirm the step ended at, inside the step.
            #expect(tokens.contains { t in confirm.map { t < $0 } == true && t >= (auth.start ?? .infinity) }, "cycle \(n + 1): tokens \(tokens)")
            #expect(!steps.contains { $0.detail.contains("authentication refused (status 76)") }, "cycle \(n + 1): \(steps.map(\.detail))")
        }
    }

    /// WPA2-Enterprise (PEAP against hostapd's own EAP server, PMKSA caching off): the EAP step is
    /// the station's responses, named by method, before the 4-way handshake.
    @Test func joinTimesEnterpriseEAP() throws {
        let steps = try #require(try joinCycles("join-eap").first)
        let eap = try #require(steps.first { $0.name == "eap" })
        let keys = try #require(steps.first { $0.name == "key_handshake" })
        #expect(eap.status == "ok" && eap.detail.hasPrefix("Identity, PEAP") && eap.detail.contains("control-port TX status"), "\(eap)")
        #expect(keys.status == "ok" && (eap.end ?? .infinity) <= (keys.start ?? 0) + 0.001 && (eap.end ?? 0) > (eap.start ?? .infinity), "\(eap) \(keys)")
        let report = try object("join/join-eap.json")
        #expect((report["cycles"] as? [[String: Any]])?.first?["bssid"] as? String == "02:00:00:00:01:00", "the Enterprise AP")
    }
}

/// join through iwd over D-Bus (join.sh's lab_join_iwd: wpa_supplicant stopped, iwd with its own
/// DHCP on a system bus of the VM's): `--kick auto` finds iwd, since NetworkManager has no owner
/// on the bus and wpa_supplicant's socket is gone, and each cycle starts at the network's Connect
/// after the station's Disconnect; the steps meet the same oracles as wpa_supplicant's (above).
/// Asked for NetworkManager, which is not running, join says so in one line and exits 3.
extension LabTests {
    /// A run through a manager on the bus: its mode, two cycles push-ready, each started by the
    /// manager's restore call, and the manager's own disconnect and association seen by iw (a
    /// local deauthentication per cycle); the authentication step where the kernel's AUTHENTICATE
    /// event said success (nlmon's stamp and the event's frame, not iw's stamp: iw's thread lagged
    /// the kernel by 173 ms once in CI).
    func expectRejoinsThrough(_ run: String, mode: String, trigger: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = try object("join/\(run).json")
        #expect(report["mode"] as? String == mode, "\(report["mode"] ?? "nil") \(peek("join/\(run).err"))", sourceLocation: sourceLocation)
        let cycles = try #require(report["cycles"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(
            cycles.count == 2 && cycles.allSatisfy { $0["push_ready_ms"] is Double }, "\(cycles.map { $0["push_ready_ms"] ?? "nil" })",
            sourceLocation: sourceLocation)
        for c in cycles {
            #expect((c["trigger"] as? String)?.hasPrefix(trigger) == true, "\(c["trigger"] ?? "nil")", sourceLocation: sourceLocation)
        }
        let iw = try iwEvents(run)
        #expect(iw.filter { $0.text.contains("disconnected (local request)") }.count == 2, "\(iw.map(\.text))", sourceLocation: sourceLocation)
        let authenticated = try joinPacketFields(
            run, "nlmon", filter: "nl80211.cmd == 37 && netlink.hdr_pid == 0 && netlink.hdr_flags.request == 0", fields: ["wlan.fixed.status_code"]
        ).filter { $0.has("wlan.fixed.status_code") { UInt16($0.dropFirst(2), radix: 16) == 0 } }.map(\.time)
        #expect(!authenticated.isEmpty, "\(run): nlmon holds no successful AUTHENTICATE", sourceLocation: sourceLocation)
        for (n, steps) in try joinCycles(run).enumerated() {
            let auth = steps.first { $0.name == "authentication" }
            #expect(
                auth?.status == "ok" && auth?.end.map { Self.nearestMs($0, authenticated) <= Self.netlinkLagMs } == true,
                "cycle \(n + 1): \(String(describing: auth))", sourceLocation: sourceLocation)
        }
    }

    @Test func joinFindsIwdOnTheSystemBus() throws {
        try expectRejoinsThrough("join-iwd", mode: "iwd", trigger: "iwd Network.Connect ward-3")
        let refused = try text("join/join-nm.err")
        #expect(try text("join/join-nm.status").trimmingCharacters(in: .whitespacesAndNewlines) == "3", "\(refused)")
        #expect(
            refused.split(separator: "\n").count == 1 && refused.contains("NetworkManager is not running")
                && refused.contains("org.freedesktop.NetworkManager"),
            "\(refused)")
    }

    /// NetworkManager (its wpa_supplicant in D-Bus mode): found with iwd gone, the device's
    /// Disconnect and ActivateConnection of the lab's connection.
    @Test func joinFindsNetworkManagerOnTheSystemBus() throws {
        try expectRejoinsThrough("join-networkmanager", mode: "networkmanager", trigger: "NetworkManager ActivateConnection ward-3")
    }
}

/// heartbeat --interface (#29 item 4): 200 heartbeats on the station while iw asks for three
/// passive scans of two other channels (join.sh's lab_join_heartbeat_scans). The scans heartbeat saw are
/// iw's, and a bad heartbeat is own_scan exactly when one of the kernel's scans (started to
/// finished, nlmon's stamps) overlapped its time in flight.
extension LabTests {
    @Test func heartbeatNamesTheScansThatStalledIt() throws {
        let status = try text("join/join-heartbeat.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1"].contains(status), "\(peek("join/join-heartbeat.err"))")
        let report = try object("join/join-heartbeat.json")
        #expect(report["sent"] as? Int == 200, "\(report["sent"] ?? "nil")")
        let summary = try #require(report["stall_summary"] as? [String: Any], "\(report.keys)")
        let stalls = try #require(report["stalls"] as? [[String: Any]])
        let events = try text("join/join-heartbeat-iw-event.txt").split(separator: "\n").filter { $0.contains("wlan2 (phy") }
        let started = events.filter { $0.contains("scan started") }.compactMap { Double($0.prefix { $0 != ":" }) }
        #expect(started.count >= 3 && summary["scans_seen"] as? Int == started.count, "heartbeat \(summary["scans_seen"] ?? "nil") scans, iw \(started.count)")
        let spans = try kernelScans("join/join-heartbeat-nlmon.pcap", each: started)
        #expect(summary["heartbeats"] as? Int == 200 && summary["bad"] as? Int == stalls.count, "\(summary)")
        let slower = try #require(summary["slower_than_ms"] as? Double)
        var own = 0
        for st in stalls {
            let t = try #require((st["time"] as? String).flatMap(Self.unixTime), "\(st)")
            let lost = st["lost"] as? Bool == true
            let flight = lost ? HeartbeatOptions.defaultTimeoutMs / 1000 : try #require(st["rtt_ms"] as? Double, "\(st)") / 1000
            #expect(lost || flight * 1000 > slower, "\(st) is not slower than \(slower) ms")
            guard let overlaps = Self.overlap(t, flight, spans) else { continue }
            #expect((st["cause"] as? String == "own_scan") == overlaps, "\(st): the kernel's scans \(spans)")
            if overlaps { own += 1 }
        }
        #expect(own >= 1, "no heartbeat was slowed by iw's scans \(spans): \(stalls)")
    }
}

/// heartbeat --interface across an address change (#29 item 4, rtnetlink; join.sh's
/// lab_join_address_flap): the station's address removed and added back 1 s later, with no
/// nl80211 event. Every stall clearly over one of the two changes the kernel announced (nlmon's
/// stamps; ip monitor saw as many) is link_change,
/// every stall clearly over neither is not, and at least one is.
extension LabTests {
    @Test func heartbeatNamesTheAddressChangeThatStalledIt() throws {
        let status = try text("join/join-flap.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1", "2"].contains(status), "\(peek("join/join-flap.err"))")
        let report = try object("join/join-flap.json")
        let stalls = try #require(report["stalls"] as? [[String: Any]], "\(report.keys)")
        let said = try ipMonitor("join-flap").filter { $0.text.contains("wlan2") && $0.text.contains("inet 10.40.0.") }
        // The kernel's RTM_NEWADDR and RTM_DELADDR of the station's IPv4 address, as nlmon stamped
        // them: its notifications, not ip's requests nor a dump's answers.
        try expectComplete("join/join-flap-nlmon.log")
        let changes = Self.once(
            try packets(
                "join/join-flap-nlmon.pcap",
                filter: "netlink-route.nltype in {20, 21} && netlink-route.ifa_family == 2"
                    + " && !(netlink.hdr_flags.request == 1) && !(netlink.hdr_flags.multi == 1)",
                fields: ["netlink-route.ifa_address.ipv4"]
            ).filter { $0.fields.first?.hasPrefix("10.40.0.") == true }.map(\.time))
        #expect(
            changes.count >= 2 && changes.count == said.count, "nlmon \(changes), ip monitor: \(peek("join/join-flap-ip-monitor.txt"))")
        let spans = changes.map { ($0, $0) }
        var named = 0
        for st in stalls {
            let t = try #require((st["time"] as? String).flatMap(Self.unixTime), "\(st)")
            let lost = st["lost"] as? Bool == true
            let flight = lost ? HeartbeatOptions.defaultTimeoutMs / 1000 : try #require(st["rtt_ms"] as? Double, "\(st)") / 1000
            let cause = st["cause"] as? String
            if cause == "link_change" { named += 1 }
            guard let overlaps = Self.overlap(t, flight, spans) else { continue }
            #expect((cause == "link_change") == overlaps, "\(st): the kernel's changes at \(changes)")
        }
        #expect(named >= 1, "no stall named the address change the kernel made at \(changes): \(stalls)")
    }
}

/// walk --scan-every and the co-channel count (#29; join.sh's lab_join_scan_every): the station
/// on the Enterprise AP at 2412, where ap1 (another SSID) shares the channel. Every scan iw saw
/// start during the walk is one the walk asked for, and the walk's co-channel count is the BSSs
/// iw's scan dump shows on the station's channel at -82 dBm or above.
extension LabTests {
    @Test func walkScanEveryAsksForItsScansAndCountsTheCoChannelAP() throws {
        let status = try text("join/join-scan-every-walk.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1"].contains(status), "\(peek("join/join-scan-every-walk.err"))")
        let report = try object("join/join-scan-every-walk.json")
        let summary = try #require(report["stall_summary"] as? [String: Any], "\(report.keys)")
        let started = try text("join/join-scan-every-iw-event.txt").split(separator: "\n").filter { $0.contains("wlan2 (phy") && $0.contains("scan started") }
        // 25 s after the push connection was ready, one scan every 10 s from the walk's first sample.
        let requested = try #require(summary["scans_requested"] as? Int)
        #expect(requested >= 2 && requested == started.count && summary["scans_seen"] as? Int == started.count, "\(summary), iw: \(started)")
        // A bad heartbeat during one of the walk's scans is named as the walk's own.
        for st in report["stalls"] as? [[String: Any]] ?? [] where st["cause"] as? String == "own_scan" {
            #expect((st["detail"] as? String ?? "").hasPrefix("pushdiag's scan (--scan-every)"), "\(st)")
        }
        // iw's scan dump: "BSS 02:00:00:00:00:00(on wlan2) -- associated", then "\tfreq: 2412",
        // "\tsignal: -30.00 dBm", "\tSSID: ward-3".
        var bsses: [(bssid: String, freq: Int?, signal: Double?, ssid: String?, associated: Bool)] = []
        for line in try text("join/join-scan-every-scan-dump.txt").split(separator: "\n") {
            if line.hasPrefix("BSS ") {
                bsses.append((String(line.dropFirst(4).prefix(17)), nil, nil, nil, line.contains("associated")))
                continue
            }
            guard !bsses.isEmpty else { continue }
            let field = line.trimmingCharacters(in: .whitespaces)
            if field.hasPrefix("freq: ") { bsses[bsses.count - 1].freq = Double(field.dropFirst(6)).map { Int($0) } }
            if field.hasPrefix("signal: ") { bsses[bsses.count - 1].signal = Double(field.dropFirst(8).prefix { $0 != " " }) }
            if field.hasPrefix("SSID: ") { bsses[bsses.count - 1].ssid = String(field.dropFirst(6)) }
        }
        let current = try #require(bsses.first { $0.associated }, "\(bsses)")
        let cochannel = bsses.filter { !$0.associated && $0.freq == current.freq && ($0.signal ?? -.infinity) >= -82 }
        #expect(cochannel.contains { $0.ssid != current.ssid }, "no BSS of another SSID on \(current.freq ?? 0) MHz: \(bsses)")
        let coverage = try #require(report["coverage"] as? [[String: Any]])
        #expect(
            coverage.compactMap { $0["cochannel_above_82"] as? Int }.max() == cochannel.count
                && coverage.allSatisfy { ($0["samples_with_scan"] as? Int ?? 0) > 0 },
            "\(coverage), iw: \(cochannel)")
        // ward-3-eap has one BSS: a place covered by one alone, as iw's dump counts it.
        let ssidAbove67 = bsses.filter { $0.ssid == current.ssid && ($0.signal ?? -.infinity) >= -67 }.count
        #expect(ssidAbove67 == 1 && coverage.allSatisfy { $0["bss_above_67"] as? Int == ssidAbove67 }, "\(coverage), iw: \(bsses)")
    }
}

/// `join --find-ap-idle` against hostapd's inactivity limit (join.sh's lab_join_ap_idle:
/// ap_max_inactivity 5 s, no poll): with wpa_supplicant's keep-alives off, the ladder's rungs of
/// 1 and 2 s are kept, the 26 s one is dropped, and the silence it measured is the one iw (the
/// disassociation) and tcpdump (the station's last frame before it) show; with them on, a 20 s
/// rung is kept alive.
extension LabTests {
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func theAPIdleLadderFindsHostapdsInactivityLimit() throws {
        for run in ["join-ap-idle", "join-ap-keepalive"] { try expectJoinStatus(run) }
        let limit = try #require(Double(try text("join/join-ap-idle-limit.txt").trimmingCharacters(in: .whitespacesAndNewlines)))
        let report = try object("join/join-ap-idle.json")
        let idle = try #require(report["ap_idle"] as? [String: Any], "\(report.keys)")
        let rungs = try #require(idle["rungs"] as? [[String: Any]])
        // Every rung's counters were read (nl80211's count of frames sent), and the first two showed
        // nothing the interface did not.
        #expect(rungs.dropLast().allSatisfy { $0["hidden_frames"] as? Int == 0 }, "\(rungs)")
        if let last = rungs.last, last["outcome"] as? String == "not_silent", (last["hidden_frames"] as? Int ?? 0) > 0 {
            // The station sent frames no packet socket shows (nl80211's count says how many; null
            // frames such as mac80211's probes of its AP), which the AP counts as activity: the
            // full lab's run of 2026-11-26 11:00 kept a 21 s silence so, with no frame on either
            // side's interface. The drop was not measured on such a run; pushdiag must say why,
            // and claim no silence.
            #expect(last["silent_s"] is NSNull && (last["detail"] as? String ?? "").contains("did not show"), "\(last)")
            return
        }
        #expect(rungs.map { $0["outcome"] as? String ?? "" } == ["kept", "kept", "dropped"], "\(rungs)")
        let kept = try #require(idle["kept_s"] as? Double)
        let dropped = try #require(idle["dropped_after_s"] as? Double)
        let droppedRung = try #require(rungs.last?["idle_s"] as? Double)
        // Within one rung: the limit lies between the longest silence kept and the rung dropped.
        #expect(kept < limit && limit <= droppedRung, "kept \(kept), limit \(limit), dropped rung \(droppedRung)")
        // hostapd checks inactivity in whole seconds, each check 0 to 19 s later at random than the
        // limit asks (its debug log, join-ap-idle-hostapd-debug.log), and without its poll
        // disassociates at the check that finds the limit reached: between the limit and about
        // 20 s after it (15.8 to 17.3 s for 15 in four runs, and twice beyond a 21 s rung).
        #expect(dropped >= limit && dropped < limit + 21, "\(dropped)")
        #expect(idle["dropped_reason"] as? Int == 4)
        // The oracle: the kernel's DISCONNECT (nlmon's stamp; iw says it was by the AP, reason 4,
        // but its thread's stamp lagged the kernel by 173 ms once in CI) and the station's last
        // frame before it in tcpdump's capture of its interface.
        let events = try iwEvents("join-ap-idle")
        // The ladder's is the last: with keep-alives off and a 5 s limit, the AP may drop the idle
        // station once before the run's own cycle.
        let said = try #require(events.last { $0.text.contains("disconnected (by AP)") && $0.text.contains("reason: 4") }, "\(events.map(\.text))")
        let kernel = try joinPackets("join-ap-idle", "nlmon", filter: "nl80211.cmd == 48 && netlink.hdr_pid == 0 && netlink.hdr_flags.request == 0", fields: [])
            .map(\.time)
        let dropAt = try #require(
            kernel.filter { $0 <= said.time + 0.05 && said.time - $0 < 1 }.min(), "nlmon's DISCONNECT before iw's at \(said.time): \(kernel)")
        let station = try #require(
            try joinPackets("join-ap-idle", filter: "frame.time_epoch < \(dropAt)", fields: ["eth.src"]).filter { $0.fields.first != nil }
                .last { p in p.fields[0] == (try? text("join/join-ap-idle-station.txt").trimmingCharacters(in: .whitespacesAndNewlines)) })
        let oracle = dropAt - station.time
        // The kernel's time of the event and pushdiag's receipt of it: within the netlink lag.
        #expect(abs(oracle - dropped) * 1000 <= Self.netlinkLagMs, "oracle \(oracle) s, pushdiag \(dropped) s")
        // The safe interval is the lowest limit: the longest silence kept (about 3 s), below the BSS
        // Max Idle Period advertised (5 s in units of 1,000 TU, rounded down) and the 5 minutes
        // given; the drop, its check period in it, is no limit when a rung was kept.
        #expect(idle["safe_interval_s"] as? Double == kept, "\(idle["safe_interval_s"] ?? "nil")")
        let advertised = Double(Int(limit) * 1000 / 1024) * 1.024
        let limits = (idle["limits"] as? [[String: Any]] ?? []).map { ($0["source"] as? String ?? "", $0["seconds"] as? Double ?? 0) }
        #expect(limits.map(\.0) == ["ap_kept", "bss_max_idle", "path_idle_timeout"] && abs(limits[1].1 - advertised) < 0.001, "\(limits)")
        // With wpa_supplicant's keep-alives (its default), the AP kept the station through a
        // rung longer than its limit.
        let alive = try #require(try object("join/join-ap-keepalive.json")["ap_idle"] as? [String: Any])
        let aliveRung = try #require((alive["rungs"] as? [[String: Any]])?.first)
        #expect(aliveRung["outcome"] as? String == "kept_alive" && (aliveRung["keep_alives"] as? Int ?? 0) >= 1, "\(aliveRung)")
        #expect((aliveRung["silent_s"] as? Double).map { $0 < limit } == true, "\(aliveRung)")
        // Recorded, it replays to the same report.
        let replay = try run(
            TestPaths.binary.path, ["join", "--replay", dir.appendingPathComponent("join/join-ap-idle-rec").path, "--format", "json"])
        #expect(replay.stdout == (try text("join/join-ap-idle.json")), "\(replay.stderr)")
    }
}

/// A channel switch named as the cause of the stalls it made (#29; join.sh's
/// lab_join_chan_switch): the AP announces a switch with blocktx during a walk, the heartbeats
/// sent while the station holds its frames are late, and walk's stalls say "channel_switch" for
/// those that overlapped the switch the kernel announced on the station (nlmon's stamps of
/// CH_SWITCH_STARTED_NOTIFY to CH_SWITCH_NOTIFY, which iw saw as channel switch started and
/// channel switch), and only for those.
extension LabTests {
    @Test func aChannelSwitchIsNamedAsTheStallsCause() throws {
        let status = try text("join/join-chan-switch-walk.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1", "2"].contains(status), "\(peek("join/join-chan-switch-walk.err")) \(peek("join/join-chan-switch-hostapd-cli.txt"))")
        let events = try iwEvents("join-chan-switch")
        // iw 5.19: "wlan2: channel switch started (count=9) freq=2412 …", then "wlan2: channel switch freq=2412 …".
        let started = try #require(events.first { $0.text.contains("channel switch started") }, "\(events.map(\.text))")
        let switched = try #require(
            events.first { $0.time >= started.time && $0.text.contains("channel switch ") && !$0.text.contains("switch started") },
            "\(events.map(\.text))")
        #expect(!events.contains { $0.text.contains("disconnected") }, "the station stayed: \(events.map(\.text))")
        let report = try object("join/join-chan-switch-walk.json")
        let stalls = try #require(report["stalls"] as? [[String: Any]], "\(report.keys)")
        // The switch as the kernel announced it (nlmon's stamps): pushdiag stamps an event when its
        // thread reads it, up to `netlinkLagMs` later under emulation.
        let kernel = try kernelEvents("join/join-chan-switch-nlmon.pcap", [.channelSwitchStartedNotify, .channelSwitchNotify])
        let began = try #require(
            kernel.last { $0.command == .channelSwitchStartedNotify && $0.time <= started.time }, "nlmon \(kernel), iw \(started.time)")
        let ended = try #require(kernel.first { $0.command == .channelSwitchNotify && $0.time >= began.time }, "nlmon \(kernel)")
        #expect(switched.time - ended.time < 1, "nlmon's switch at \(ended.time), iw's at \(switched.time)")
        let slack = Self.netlinkLagMs / 1000
        var named = 0
        for st in stalls {
            let t = try #require((st["time"] as? String).flatMap(Self.unixTime), "\(st)")
            // A lost heartbeat was in flight until walk's timeout (--timeout, 2 s by default).
            let flight = (st["rtt_ms"] as? Double).map { $0 / 1000 } ?? 2
            let overlaps = t < ended.time + slack && t + flight > began.time - slack
            if st["cause"] as? String == "channel_switch" {
                named += 1
                #expect(overlaps, "\(st): the kernel's switch from \(began.time) to \(ended.time)")
            }
        }
        #expect(named >= 1, "no stall named the switch the kernel made from \(began.time) to \(ended.time): \(stalls)")
        let counts = (report["stall_summary"] as? [String: Any])?["by_cause"] as? [[String: Any]] ?? []
        #expect(counts.contains { $0["cause"] as? String == "channel_switch" && $0["count"] as? Int == named }, "\(counts)")
    }
}
