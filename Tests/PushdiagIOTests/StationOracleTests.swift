import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The per-station counts (issue #30) against tshark's fields on every shared capture and every
/// fixture: frames, retries and PM-set frames per station, its dozes (count, total, longest) and
/// silences (start, length) from its frames' times, listen interval and AID, deauthentications
/// and disassociations per reason (per station and per AP), BSS transition requests (and the
/// disassociation-imminent bit) and responses by status, authentication algorithms, and each
/// BSS's beacon interval and DTIM period; a retransmitted deauthentication, disassociation or
/// action frame (Retry set, its transmitter's last sequence number) counted once. tshark reads
/// every file with every field in one run (`tsharkLines`); the station rules are applied here
/// to tshark's fields, independently of StationAnalysis.
@Suite(
    .enabled(
        if: TestPaths.which("tshark") != nil && TestPaths.which("editcap") != nil,
        "tshark or editcap is not installed: the per-station oracle is skipped"))
struct StationOracleTests {
    static let fields = [
        "wlan.fc.version", "wlan.fc.type_subtype", "wlan.fc.ds", "wlan.fc.pwrmgt", "wlan.fc.retry", "wlan.fc.protected", "wlan.ra", "wlan.ta",
        "wlan.bssid", "wlan.fixed.listen_ival", "wlan.fixed.aid", "wlan.fixed.status_code", "wlan.fixed.auth.alg", "wlan.fixed.reason_code",
        "wlan.fixed.category_code", "wlan.fixed.action_code", "wlan.fixed.request_mode.disassoc_imminent",
        "wlan.fixed.bss_transition_status_code", "wlan.tim.dtim_period", "wlan.fixed.beacon", "wlan.rsn.pmkid.count", "frame.time_epoch",
        "wlan.seq", "wlan.frag",
    ]

    /// What tshark's fields say of one station (or one AP's steering).
    struct Expected: Equatable, CustomStringConvertible {
        var frames = 0
        var retries = 0
        var powerSave = 0
        var listenInterval: Int?
        var aid: Int?
        var deauth: [String: Int] = [:]
        var disassoc: [String: Int] = [:]
        var btmRequests = 0
        var btmImminent = 0
        var btmResponses: [String: Int] = [:]
        /// Protected (802.11w) action frames, whose category is encrypted.
        var protectedActions = 0
        var auth: [String: Int] = [:]
        /// Dozes that ended: count, total and longest in ms (to the microsecond).
        var dozes = 0
        var dozeTotalMs = 0.0
        var dozeLongestMs: Double?
        /// Each silence's start (RFC 3339) and length in ms.
        var silences: [String] = []
        var description: String {
            "frames \(frames) retries \(retries) pm \(powerSave) li \(listenInterval.map(String.init) ?? "nil") aid \(aid.map(String.init) ?? "nil") deauth \(deauth) disassoc \(disassoc) btm \(btmRequests)/\(btmImminent) \(btmResponses) protected actions \(protectedActions) auth \(auth) dozes \(dozes) \(dozeTotalMs)/\(dozeLongestMs.map { "\($0)" } ?? "nil") ms silences \(silences)"
        }
    }

    /// frame.time_epoch ("1700000000.123456789") in nanoseconds, exactly.
    static func epochNs(_ s: Substring) -> Int64? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard let sec = Int64(parts[0]) else { return nil }
        let frac = parts.count > 1 ? String(parts[1].prefix(9)) : ""
        return sec * 1_000_000_000 + (Int64(frac.padding(toLength: 9, withPad: "0", startingAt: 0)) ?? 0)
    }

    static func ms(_ ns: Int64) -> Double { (Double(ns) / 1000).rounded() / 1000 }

    /// A station's dozes and silences from its frames' times, PM and retry bits (tshark's
    /// frame.time_epoch, wlan.fc.pwrmgt, wlan.fc.retry): a doze from a frame with PM set to its
    /// next frame (a retransmission that still has PM set does not wake it) or to a
    /// deauthentication or disassociation of it (`leave`); a silence is a gap
    /// of more than 10 s between its frames, or from its last frame to the capture's end; at
    /// most 64 silences a station, as pushdiag keeps.
    struct Timeline {
        var last: Int64?
        var dozeStart: Int64?
        var dozeBSSID: Substring?
        var silences: [(Int64, Int64)] = []
        var dozes: [Int64] = []

        mutating func frame(at t: Int64, pm: Bool, retry: Bool, bssid: Substring) {
            if let l = last, t - l > 10_000_000_000, silences.count < 64 { silences.append((l, t - l)) }
            if let d = dozeStart, !(retry && pm) {
                dozes.append(max(0, t - d))
                dozeStart = nil
            }
            if pm, dozeStart == nil { (dozeStart, dozeBSSID) = (t, bssid) }
            last = t
        }

        /// Gone from `bssid` (a deauthentication or disassociation, either way): a doze on it ends
        /// there; one the station's own frame just began (sent with PM set) was none.
        mutating func leave(at t: Int64, bssid: Substring, byStation: Bool) {
            guard let d = dozeStart else { return }
            if d == t, byStation {
                dozeStart = nil
            } else if dozeBSSID == bssid {
                dozes.append(max(0, t - d))
                dozeStart = nil
            }
        }

        func apply(to e: inout Expected, end: Int64) {
            e.dozes = dozes.count
            e.dozeTotalMs = StationOracleTests.ms(dozes.reduce(0, +))
            e.dozeLongestMs = dozes.max().map(StationOracleTests.ms)
            var all = silences
            if let l = last, end - l > 10_000_000_000, all.count < 64 { all.append((l, end - l)) }
            e.silences = all.map { "\(Timestamp.rfc3339(nanoseconds: $0.0)) \(StationOracleTests.ms($0.1))" }
        }
    }

    static func int(_ s: Substring) -> Int? {
        if s.hasPrefix("0x") { return Int(s.dropFirst(2), radix: 16) }
        return Int(s)
    }

    static func flag(_ s: Substring) -> Bool { s == "1" || s == "True" }

    static func isGroup(_ mac: Substring) -> Bool { (Int(mac.prefix(2), radix: 16) ?? 1) & 1 != 0 }

    /// Per station, per AP, and per BSS (beacon interval, DTIM period), from tshark's lines.
    static func expected(_ lines: [Substring]) -> (stations: [String: Expected], aps: [String: Expected], beacons: [String: (Int?, Int?)]) {
        var stations: [String: Expected] = [:]
        var aps: [String: Expected] = [:]
        var beacons: [String: (Int?, Int?)] = [:]
        var timelines: [String: Timeline] = [:]
        // Each transmitter's last deauthentication, disassociation or action frame: "seq/frag".
        var lastRobust: [Substring: String] = [:]
        var end = Int64.min
        for line in lines {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            let time = f.count == fields.count ? epochNs(f[21]) : nil
            if let time { end = max(end, time) }
            guard f.count == fields.count, f[0] == "0", let ts = int(f[1]) else { continue }
            let type = ts >> 4
            let sub = ts & 0xF
            let ds = int(f[2]) ?? 0
            let ra = f[6]
            let ta = f[7]
            let bssid = f[8]
            let protected = flag(f[5])
            // Frames from a station.
            let fromStation =
                !ta.isEmpty && !isGroup(ta)
                && ((type == 2 && ds == 1 && !ra.isEmpty) || (type == 1 && sub == 10)
                    || (type == 0 && [0, 2, 10, 11, 12, 13].contains(sub) && !bssid.isEmpty && ta != bssid && ra == bssid))
            if fromStation {
                var e = stations[String(ta), default: Expected()]
                e.frames += 1
                if flag(f[4]) { e.retries += 1 }
                if flag(f[3]) { e.powerSave += 1 }
                stations[String(ta)] = e
                if let time { timelines[String(ta), default: Timeline()].frame(at: time, pm: flag(f[3]), retry: flag(f[4]), bssid: bssid) }
            }
            // A retransmission of the transmitter's last deauthentication, disassociation or
            // action frame (Retry set, the same sequence and fragment numbers) is a duplicate:
            // a frame and a retry above, counted no further.
            if type == 0, [10, 12, 13].contains(sub), !ta.isEmpty, !f[22].isEmpty {
                let sc = "\(f[22])/\(f[23])"
                let repeated = flag(f[4]) && lastRobust[ta] == sc
                lastRobust[ta] = sc
                if repeated { continue }
            }
            // A protected management frame (802.11w): its body encrypted, a deauthentication's or
            // disassociation's reason is "unknown" and an action frame's kind is not known.
            guard type == 0, !protected || [10, 12, 13].contains(sub), !ra.isEmpty, !ta.isEmpty, !bssid.isEmpty else { continue }
            let byAP = ta == bssid
            let (sta, ap) = byAP ? (String(ra), String(ta)) : (String(ta), String(ra))
            let staOK = !isGroup(Substring(sta))
            switch sub {
            case 8:
                if bssid != "ff:ff:ff:ff:ff:ff" {
                    var b = beacons[String(bssid), default: (nil, nil)]
                    if let v = int(f[19]) { b.0 = v }
                    if let v = int(f[18]) { b.1 = v }
                    beacons[String(bssid)] = b
                }
            case 0, 2:
                if !isGroup(ta), let li = int(f[9]) { stations[String(ta), default: Expected()].listenInterval = li }
            case 1, 3:
                if !isGroup(ra), int(f[11]) == 0, let aid = int(f[10]) { stations[String(ra), default: Expected()].aid = aid }
            case 11:
                if !byAP, !isGroup(ta), let alg = int(f[12]) { stations[String(ta), default: Expected()].auth[String(alg), default: 0] += 1 }
            case 10, 12:
                guard let reason = protected ? "unknown" : int(f[13]).map(String.init) else { continue }
                func count(_ e: inout Expected) {
                    if sub == 12 { e.deauth[reason, default: 0] += 1 } else { e.disassoc[reason, default: 0] += 1 }
                }
                if !isGroup(Substring(ap)) { count(&aps[ap, default: Expected()]) }
                if staOK { count(&stations[sta, default: Expected()]) }
                if staOK, let time { timelines[sta]?.leave(at: time, bssid: Substring(ap), byStation: !byAP) }
            case 13:
                guard protected || int(f[14]) == 10, let action = protected ? -1 : int(f[15]) else { continue }
                func count(_ e: inout Expected) {
                    if protected {
                        e.protectedActions += 1
                    } else if action == 7 {
                        e.btmRequests += 1
                        if flag(f[16]) { e.btmImminent += 1 }
                    } else if action == 8, let status = int(f[17]) {
                        e.btmResponses[String(status), default: 0] += 1
                    }
                }
                if !isGroup(Substring(ap)) { count(&aps[ap, default: Expected()]) }
                if staOK { count(&stations[sta, default: Expected()]) }
            default: break
            }
        }
        for (sta, t) in timelines { t.apply(to: &stations[sta, default: Expected()], end: end) }
        return (stations, aps, beacons)
    }

    static func ours(_ s: CaptureStationReport) -> Expected {
        Expected(
            frames: s.frames, retries: s.retryFrames, powerSave: s.powerSaveFrames, listenInterval: s.listenInterval, aid: s.aid,
            deauth: s.steering.deauthByReason, disassoc: s.steering.disassocByReason, btmRequests: s.steering.btmRequests,
            btmImminent: s.steering.btmDisassociationImminent,
            btmResponses: s.steering.btmResponsesByStatus, protectedActions: s.steering.protectedActions, auth: s.authAlgorithms, dozes: s.dozes.count,
            dozeTotalMs: s.dozes.totalMs,
            dozeLongestMs: s.dozes.longestMs, silences: s.silences.map { "\($0.start) \($0.durationMs)" })
    }

    static func ours(_ s: SteeringReport) -> Expected {
        Expected(
            deauth: s.deauthByReason, disassoc: s.disassocByReason, btmRequests: s.btmRequests, btmImminent: s.btmDisassociationImminent,
            btmResponses: s.btmResponsesByStatus, protectedActions: s.protectedActions)
    }

    /// Captures whose beacons' TIM element follows an element on which tshark's dissector throws
    /// (an RSN element whose suite counts run past it): tshark abandons the element list there,
    /// pushdiag reads on past a malformed element (iw's rule, InformationElements.swift), so only
    /// pushdiag sees the DTIM period.
    static let timAfterAnException: Set<String> = ["tcpdump/tests__ieee802.11_parse_elements_oobr.pcap"]

    /// tshark's lines (`fields`, tab-separated) for each of `paths`, from one tshark. A tshark
    /// start costs about a quarter second of CPU, and one per file (about 300) was most of the
    /// suite's CPU. Each file is converted to pcapng by editcap (Wireshark's own reading of it,
    /// in milliseconds), the files' sections are concatenated into one file, and the section
    /// number tshark gives each frame (`frame.section_number`, from 1) names its file. A file
    /// editcap cannot read gives no lines, as tshark gives none; one cut short gives the frames
    /// before the cut, as tshark does. Checked on 2026-11-27 against one tshark per file, on
    /// every shared capture and fixture (282): the same lines, but for one frame of two files
    /// whose record's microseconds are 1,000,000 or more (aircrack-ng's wep_64_ptw captures).
    /// tshark prints that time from a pcap as its seconds and an overlong fraction
    /// (1177961534.1000046000, read as .1 s); editcap's pcapng carries the same instant
    /// normalised (1177961535.000046), which is how pushdiag reads it too.
    static func tsharkLines(_ paths: [String]) throws -> [[Substring]] {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let editcap = TestPaths.which("editcap")!
        let lock = NSLock()
        nonisolated(unsafe) var sections = [Int](repeating: 0, count: paths.count)
        nonisolated(unsafe) var failures: [String] = []
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            let out = dir.appendingPathComponent("\(i).pcapng")
            do {
                _ = try run(editcap, ["-F", "pcapng", paths[i], out.path])
                let n = (try? Data(contentsOf: out)).map(Self.sectionCount) ?? 0
                lock.withLock { sections[i] = n }
            } catch {
                lock.withLock { failures.append("editcap \(paths[i]): \(error)") }
            }
        }
        guard failures.isEmpty else { throw OracleFailure(description: failures.joined(separator: "; ")) }
        let all = dir.appendingPathComponent("all.pcapng")
        var joined = Data()
        for i in paths.indices where sections[i] > 0 { joined.append(try Data(contentsOf: dir.appendingPathComponent("\(i).pcapng"))) }
        try joined.write(to: all)
        // The file each section came from.
        var owner: [Int] = [-1]
        for i in paths.indices { owner += Array(repeating: i, count: sections[i]) }
        let r = try run(
            TestPaths.which("tshark")!,
            ["-n", "-r", all.path, "-T", "fields", "-E", "occurrence=f", "-e", "frame.section_number"] + fields.flatMap { ["-e", $0] },
            timeout: 600)
        var lines = [[Substring]](repeating: [], count: paths.count)
        for line in r.stdout.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let tab = line.firstIndex(of: "\t"), let section = Int(line[..<tab]), section > 0, section < owner.count else {
                throw OracleFailure(description: "tshark line without a section number: \(line)")
            }
            lines[owner[section]].append(line[line.index(after: tab)...])
        }
        return lines
    }

    struct OracleFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The Section Header Blocks of a pcapng file, walked by the blocks' lengths.
    static func sectionCount(_ d: Data) -> Int {
        let b = [UInt8](d)
        var o = 0
        var big = false
        var count = 0
        func u32(_ at: Int) -> UInt32 {
            let v = (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }
            return big ? v.byteSwapped : v
        }
        while o + 12 <= b.count {
            if u32(o) == 0x0A0D_0D0A {
                count += 1
                big = false  // the byte-order magic, read little-endian first
                big = u32(o + 8) != 0x1A2B_3C4D
            }
            let length = Int(u32(o + 4))
            guard length >= 12, length % 4 == 0 else { break }
            o += length
        }
        return count
    }

    /// One file: the differences, and how many stations were compared.
    static func compare(_ path: String, name: String, lines: [Substring]) throws -> (mismatches: [String], stations: Int, dozes: Int, silences: Int) {
        let (stations, aps, beacons) = expected(lines)
        let report = CaptureFileAnalysis.analyze(path: path, options: .init()).report(file: name)
        // An nlmon capture (fixtures/watch-*): tshark finds 802.11 frames inside nl80211 messages;
        // pushdiag capture refuses the link type.
        guard report.linkType.flatMap({ LinkType(rawValue: Int32($0)) }) != nil else { return ([], 0, 0, 0) }
        var out: [String] = []
        var ourStations: [String: Expected] = [:]
        for s in report.stations { ourStations[s.mac.description] = ours(s) }
        for mac in Set(stations.keys).union(ourStations.keys) {
            // A station that only an AP addressed, with nothing counted, may be absent on either side.
            let theirs = stations[mac] ?? Expected()
            let mine = ourStations[mac] ?? Expected()
            if theirs != mine { out.append("\(name): station \(mac): tshark \(theirs), pushdiag \(mine)") }
        }
        for b in report.bss {
            let mine = ours(b.steering)
            let theirs = aps[b.bssid.description] ?? Expected()
            if theirs != mine { out.append("\(name): AP \(b.bssid) steering: tshark \(theirs), pushdiag \(mine)") }
            if let (interval, dtim) = beacons[b.bssid.description],
                interval != b.beaconIntervalTu || (dtim != b.dtimPeriod && !Self.timAfterAnException.contains(name))
            {
                out.append(
                    "\(name): BSS \(b.bssid): beacon interval/DTIM tshark \(String(describing: interval))/\(String(describing: dtim)), pushdiag \(String(describing: b.beaconIntervalTu))/\(String(describing: b.dtimPeriod))"
                )
            }
        }
        for ap in aps.keys where !report.bss.contains(where: { $0.bssid.description == ap }) && aps[ap] != Expected() {
            out.append("\(name): AP \(ap): tshark \(aps[ap]!), absent from pushdiag's BSS table")
        }
        return (out, stations.count, stations.values.reduce(0) { $0 + $1.dozes }, stations.values.reduce(0) { $0 + $1.silences.count })
    }

    @Test func perStationCountsEqualTshark() throws {
        let files = try OracleTests.capturesAndFixtures()
        let all = files
        let started = Date()
        let tshark = try Self.tsharkLines(all.map(\.0))
        let lock = NSLock()
        nonisolated(unsafe) var mismatches: [String] = []
        nonisolated(unsafe) var stations = 0
        nonisolated(unsafe) var dozes = 0
        nonisolated(unsafe) var silences = 0
        nonisolated(unsafe) var failures: [String] = []
        DispatchQueue.concurrentPerform(iterations: all.count) { i in
            do {
                let (m, n, d, q) = try Self.compare(all[i].0, name: all[i].1, lines: tshark[i])
                lock.withLock {
                    mismatches += m
                    stations += n
                    dozes += d
                    silences += q
                }
            } catch {
                lock.withLock { failures.append("\(all[i].1): \(error)") }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(mismatches.isEmpty, "\(mismatches.count) differences:\n\(mismatches.sorted().prefix(40).joined(separator: "\n"))")
        #expect(files.count > (TestPaths.hasSharedPcaps ? 200 : 10))
        #expect(dozes > 0 && silences > 0, "the captures should hold dozes and silences to compare")
        print(
            "station oracle: \(files.count) captures, \(stations) stations, \(dozes) dozes, \(silences) silences, \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
    }
}
