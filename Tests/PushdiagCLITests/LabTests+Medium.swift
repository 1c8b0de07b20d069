import Foundation
import TestSupport
import Testing

/// The lab on the radio medium (Tests/lab/medium.sh, Tests/lab/medium/corridor.json): signals
/// that move, retries that happen, roams the client decides. Oracles: iw's station dump every
/// second, iw event, and the medium's own log of every link.
extension LabTests {
    static func unixTime(_ rfc3339: String) -> Double? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: rfc3339)?.timeIntervalSince1970
    }

    /// `iw station dump` readings, stamped `@ UNIX-TIME` before and `@@ UNIX-TIME` after by the
    /// lab's sampler → (from, to, signal dBm): the kernel answered somewhere in between.
    func iwSignals(_ name: String) throws -> [(from: Double, to: Double, dbm: Int)] {
        var out: [(Double, Double, Int)] = []
        var start: Double?
        var dbm: Int?
        for line in try text(name).split(separator: "\n") {
            if line.hasPrefix("@@ ") {
                if let s = start, let v = dbm, let e = Double(line.dropFirst(3)) { out.append((s, e, v)) }
                (start, dbm) = (nil, nil)
            } else if line.hasPrefix("@ ") {
                start = Double(line.dropFirst(2))
            } else if line.trimmingCharacters(in: .whitespaces).hasPrefix("signal:") {
                dbm = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
            }
        }
        return out
    }

    /// The medium's log: (Unix time, link name → signal dBm).
    func mediumLinks(_ name: String) throws -> [(time: Double, links: [String: Double])] {
        try text(name).split(separator: "\n").compactMap { line in
            guard let o = try? json(String(line)), let wall = o["wall"] as? Double, let links = o["links"] as? [String: Any] else { return nil }
            return (wall, links.compactMapValues { $0 as? Double })
        }
    }

    /// The walk's samples: (time, BSSID, signal).
    func walkSamples(_ report: [String: Any]) -> [(time: Double, bssid: String, dbm: Int)] {
        (report["samples"] as? [[String: Any]] ?? []).compactMap { s in
            guard let t = (s["time"] as? String).flatMap(Self.unixTime), let b = s["bssid"] as? String, let v = s["signal_dbm"] as? Int else { return nil }
            return (t, b, v)
        }
    }

    static let mediumLink = ["02:00:00:00:00:00": "ap1-sta", "02:00:00:00:01:00": "ap2-sta"]

    /// The medium's signals on one link from `from` to `to` (with the log lines on either side).
    static func range(_ medium: [(time: Double, links: [String: Double])], _ link: String, _ from: Double, _ to: Double) -> ClosedRange<Double>? {
        let lo = medium.lastIndex { $0.time <= from } ?? 0
        let hi = medium.firstIndex { $0.time >= to } ?? medium.count - 1
        guard lo <= hi else { return nil }
        let values = medium[lo...hi].compactMap { $0.links[link] }
        guard let a = values.min(), let b = values.max() else { return nil }
        return a...b
    }

    /// Every signal the walk read and every one iw read equals the medium's link within 2 dB at
    /// the moment it was read (the walk's sample time; iw's reading, between the stamps before
    /// and after it), over a fall from about -40 to -80 dBm; and where the medium's signal held
    /// still (within 1 dB) over both readings, the walk equals iw within 2 dB.
    @Test func theMediumMovesTheSignalWalkAndIwRead() throws {
        let report = try object("sticky-walk.json")
        let samples = walkSamples(report)
        let iw = try iwSignals("sticky-iw-station.txt")
        let medium = try mediumLinks("sticky-medium.jsonl")
        #expect(samples.count > 40 && iw.count > 10 && medium.count > 40, "walk \(samples.count), iw \(iw.count), medium \(medium.count)")
        for s in samples {
            let link = try #require(Self.mediumLink[s.bssid], "\(s)")
            let m = try #require(Self.range(medium, link, s.time, s.time), "\(s)")
            #expect(m.lowerBound - 2 <= Double(s.dbm) && Double(s.dbm) <= m.upperBound + 2, "walk \(s.dbm) dBm at \(s.time), medium \(m)")
        }
        var steady = 0
        for r in iw {
            let m = try #require(Self.range(medium, "ap1-sta", r.from, r.to), "\(r)")
            #expect(m.lowerBound - 2 <= Double(r.dbm) && Double(r.dbm) <= m.upperBound + 2, "iw \(r.dbm) dBm between \(r.from) and \(r.to), medium \(m)")
            for s in samples where abs(s.time - (r.from + r.to) / 2) <= 1 {
                guard let both = Self.range(medium, "ap1-sta", min(s.time, r.from), max(s.time, r.to)), both.upperBound - both.lowerBound <= 1 else { continue }
                #expect(abs(s.dbm - r.dbm) <= 2, "walk \(s.dbm) dBm at \(s.time), iw \(r.dbm) between \(r.from) and \(r.to)")
                steady += 1
            }
        }
        #expect(steady > 5, "walk and iw compared \(steady) times where the signal held still")
        let signals = samples.map(\.dbm)
        #expect((signals.max() ?? -100) >= -45 && (signals.min() ?? 0) <= -78, "the fall the scenario walks: \(signals)")
    }

    /// Without bgscan wpa_supplicant holds on to ap1 below -70 dBm while the scan cache shows ap2
    /// 8 dB or more stronger: the walk says sticky client. With bgscan it moves, and does not.
    @Test func aStickyClientIsFoundWhereTheStationStayedAndNotWhereItRoamed() throws {
        let sticky = try object("sticky-walk.json")
        let stayed = try text("sticky-wpa-status.txt").contains("bssid=02:00:00:00:00:00")
        #expect(stayed, "\(peek("sticky-wpa-status.txt"))")
        let checks = (sticky["findings"] as? [[String: Any]] ?? []).compactMap { $0["check"] as? String }
        #expect(checks.contains("sticky_client"), "\(checks)")
        #expect(try iwMoves("sticky-iw-event.txt").filter { $0.kind == "connect" }.isEmpty, "\(peek("sticky-iw-event.txt"))")
        let roamed = try object("bgscan-walk.json")
        let roamedChecks = (roamed["findings"] as? [[String: Any]] ?? []).compactMap { $0["check"] as? String }
        #expect(!roamedChecks.contains("sticky_client"), "\(roamedChecks)")
    }

    /// bgscan roams by itself (no wpa_cli roam): the walk reports every roam iw event saw, the
    /// move from ap1 (2412 MHz) to ap2 (5180 MHz) as a band change, with the signal it had on
    /// ap1 before (below bgscan's -65 dBm) and the stronger one on ap2 after.
    @Test func bgscanRoamsByItselfAndTheWalkSeesEachRoamAndTheBandChange() throws {
        let status = try text("bgscan-walk.status").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(["0", "1", "2"].contains(status), "\(peek("bgscan-walk.err"))")
        let report = try object("bgscan-walk.json")
        let roams = try #require(report["roams"] as? [[String: Any]])
        let connects = try iwMoves("bgscan-iw-event.txt").filter { $0.kind == "connect" }
        #expect(!connects.isEmpty && roams.count == connects.count, "walk \(roams.count) moves, iw \(connects.count) connects: \(roams)")
        for (r, c) in zip(roams, connects) { #expect(r["to_bssid"] as? String == c.bssid, "\(r) \(c)") }
        let band = try #require(
            roams.first { $0["from_bssid"] as? String == "02:00:00:00:00:00" && $0["to_bssid"] as? String == "02:00:00:00:01:00" }, "\(roams)")
        #expect(band["band_changed"] as? Bool == true && band["from_freq_mhz"] as? Int == 2412 && band["to_freq_mhz"] as? Int == 5180, "\(band)")
        let at = try #require((band["time"] as? String).flatMap(Self.unixTime))
        let samples = walkSamples(report)
        let before = try #require(samples.last { $0.time < at && $0.bssid == "02:00:00:00:00:00" })
        let after = try #require(samples.first { $0.time > at && $0.bssid == "02:00:00:00:01:00" })
        #expect(before.dbm < -65 && after.dbm > before.dbm, "before \(before), after \(after)")
    }

    /// A link held about 7 dB over the noise floor: the station's own retries, more than 15%
    /// (CRITICAL) in wifi and survey, from the station counters, which lie between iw's readings
    /// before and after.
    @Test func aWeakLinkRetransmitsForReal() throws {
        let wifi = try object("weak-wifi.json")
        let percent = try #require(wifi["retransmission_percent"] as? Double, "\(peek("weak-wifi.err"))")
        #expect(percent > 15 && wifi["status"] as? String == "critical", "\(percent) \(wifi["status"] ?? "")")
        #expect(wifi["retransmission_source"] as? String == "station_retries" && wifi["retransmission_trust"] as? String == "measured")
        let before = Self.stations(try text("weak-station-before.txt"))["02:00:00:00:00:00"]
        let after = Self.stations(try text("weak-station-after.txt"))["02:00:00:00:00:00"]
        let b = try #require(before)
        let a = try #require(after)
        let station = try #require((wifi["stations"] as? [[String: Any]])?.first { $0["mac"] as? String == "02:00:00:00:00:00" })
        for (ours, theirs) in [("tx_packets", "tx packets"), ("tx_retries", "tx retries")] {
            let v = try #require((station[ours] as? Int).map(Int64.init), "\(station)")
            #expect((b[theirs]!...a[theirs]!).contains(v), "\(ours) \(v) not within iw's \(b[theirs]!)…\(a[theirs]!)")
        }
        #expect(a["tx retries"]! > b["tx retries"]!, "iw saw no retries")
        let survey = try object("weak-survey.json")
        let check = try #require((survey["checks"] as? [[String: Any]])?.first { $0["check"] as? String == "retransmissions" }, "\(peek("weak-survey.err"))")
        #expect(check["status"] as? String == "critical" && (check["value"] as? Double ?? 0) > 15, "\(check)")
    }
}
