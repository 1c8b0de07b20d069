import Foundation
import TestSupport
import Testing

/// A fast transition that fails for certain (Tests/lab/ft-refused.sh, #32): the AP the station
/// was not on runs with another passphrase, so it refuses the FT authentication (status 53,
/// Invalid PMKID) and the station joins the AP it left again.
/// Oracles: iw event, and watch's own recording replayed. The walk crosses the same refusal
/// (walk.sh, step 0) with its push connection held through the air.
extension LabTests {
    /// watch reports the one failed move as iw event saw it: from the AP it left to the AP it
    /// joined, the stage, status and target of the refusal from iw's "auth" line, and how it
    /// joined again; its disconnects and joins are iw's, in order; the recording replays to the
    /// same events.
    @Test func aRefusedFastTransitionIsOneFailedMoveAsIwSawIt() throws {
        let dir = "ft-refused"
        #expect(try text("\(dir)/watch.status").trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(peek("\(dir)/watch.err"))")
        let bssids = try text("\(dir)/bssids.txt").split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(bssids.count == 2)
        let (from, target) = (bssids[0], bssids[1])
        // iw: the refusal, and where the station went afterwards.
        let lines = try text("\(dir)/iw-event.txt").split(separator: "\n").filter { $0.contains("wlan2 (phy") }
        let refusal = try #require(lines.first { $0.contains("auth \(target) -> ") && !$0.contains("status: 0:") }, "\(lines)")
        let status = refusal.components(separatedBy: "status: ").dropFirst().first?.split(separator: ":").first.flatMap { Int($0) }
        #expect(status == 53, "\(refusal)")
        let moves = try iwMoves("\(dir)/iw-event.txt")
        // Where the station joined after the refusal (after a further refusal by the AP it went
        // back to, as once seen, the target itself: joined, then dropped for the passphrase).
        let refusedAt = try #require(Double(refusal.prefix { $0 != ":" }))
        let joined = try #require(moves.first { $0.kind == "connect" && $0.time > refusedAt }?.bssid, "\(moves)")

        let events = try text("\(dir)/watch.jsonl").split(separator: "\n").map { try json(String($0)) }
        let failed = events.filter { $0["event"] as? String == "roam" && $0["fast_transition_failure"] is [String: Any] }
        try #require(failed.count == 1, "\(events)")
        let m = failed[0]
        let why = m["fast_transition_failure"] as? [String: Any] ?? [:]
        #expect(m["from_bssid"] as? String == from && m["bssid"] as? String == joined, "\(m)")
        #expect(m["fast_transition"] as? Bool == false && m["fast_transition_attempt"] as? Bool == true, "\(m)")
        #expect(why["stage"] as? String == "authentication" && why["status_code"] as? Int == status && why["target_bssid"] as? String == target, "\(why)")
        // Back to the AP it left by another fast transition (it holds that AP's keys from its
        // first join), or by a full authentication wherever it went.
        #expect(["fast_transition", "open"].contains(why["fallback"] as? String ?? ""), "\(why)")
        #expect((m["gap_ms"] as? Double ?? 0) > 0, "\(m)")
        // Every disconnect and join iw saw is watch's, in order (the failed move stands for the
        // station's join after it).
        let ours = events.compactMap { e -> String? in
            switch e["event"] as? String {
            case "disconnect": return "disconnect"
            case "connect" where (e["status_code"] as? Int ?? 0) == 0, "roam": return "connect \(e["bssid"] as? String ?? "?")"
            default: return nil
            }
        }
        let theirs = moves.compactMap { $0.kind == "disconnect" ? "disconnect" : $0.kind == "connect" ? "connect \($0.bssid ?? "?")" : nil }
        #expect(ours == theirs, "watch \(ours), iw \(theirs)")
        // The recording replays to the same events.
        let replay = try pushdiag("watch", "--replay", self.dir.appendingPathComponent("\(dir)/watch.pcap").path, "--interface", "wlan2", "--format", "jsonl")
        let replayed = try replay.stdout.split(separator: "\n").map { try json(String($0)) }
        func shape(_ e: [String: Any]) -> String {
            let f = e["fast_transition_failure"] as? [String: Any]
            return [e["event"], e["from_bssid"], e["bssid"], f?["stage"], f?["status_code"], f?["target_bssid"]].map { "\($0 ?? "-")" }.joined(separator: " ")
        }
        #expect(
            replayed.filter { $0["event"] as? String != "summary" }.map(shape) == events.filter { $0["event"] as? String != "summary" }.map(shape),
            "\(replay.stderr)")
    }

    /// The walk reports the refusal it crossed (walk.sh, step 0) as one failed move: from the AP
    /// the station had before it (BSSID and frequency: never what was read after the move), to
    /// the AP it joined after it as iw event saw it, with the refusal's stage, status and target
    /// from iw's "auth" line; graded at least WARNING, CRITICAL when the push connection did not keep;
    /// said so in the HTML's roam table. (walkReplayIsTheWalk replays the same recording.)
    @Test func theWalkReportsTheRefusedFastTransitionItCrossed() throws {
        let bssids = try text("walk-ft-refused/bssids.txt").split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(bssids.count == 2)
        let (from, target) = (bssids[0], bssids[1])
        let lines = try text("walk-iw-event.txt").split(separator: "\n").filter { $0.contains("wlan2 (phy") }
        let refusal = try #require(lines.first { $0.contains("auth \(target) -> ") && !$0.contains("status: 0:") }, "\(lines)")
        let status = refusal.components(separatedBy: "status: ").dropFirst().first?.split(separator: ":").first.flatMap { Int($0) }
        #expect(status == 53, "\(refusal)")
        let refusedAt = try #require(Double(refusal.prefix { $0 != ":" }))
        let joined = try #require(try iwMoves("walk-iw-event.txt").first { $0.kind == "connect" && $0.time > refusedAt }?.bssid)

        let report = try object("walk.json")
        let roams = try #require(report["roams"] as? [[String: Any]])
        // The refusal the lab made; the emulator's own refusals of later roams (a reassociation
        // refused with status 55, Invalid FTIE, as in 2026-11-26's run) are failed moves too.
        let failed = roams.filter {
            let f = $0["fast_transition_failure"] as? [String: Any]
            return f?["target_bssid"] as? String == target && f?["stage"] as? String == "authentication" && f?["status_code"] as? Int == status
        }
        try #require(failed.count == 1, "\(roams)")
        let m = failed[0]
        let why = m["fast_transition_failure"] as? [String: Any] ?? [:]
        #expect(m["from_bssid"] as? String == from && m["to_bssid"] as? String == joined, "\(m)")
        // The lab's APs: ap1 on channel 1, ap2 on channel 6 (setup.sh).
        let mhz = ["02:00:00:00:00:00": 2412, "02:00:00:00:01:00": 2437]
        #expect(m["from_freq_mhz"] as? Int == mhz[from] && m["to_freq_mhz"] as? Int == mhz[joined], "\(m)")
        #expect(m["band_changed"] as? Bool == false, "\(m)")
        #expect(m["fast_transition"] as? Bool == false && m["fast_transition_attempt"] as? Bool == true, "\(m)")
        #expect(why["stage"] as? String == "authentication" && why["status_code"] as? Int == status, "\(why)")
        #expect(["fast_transition", "open"].contains(why["fallback"] as? String ?? ""), "\(why)")
        // At least WARNING (a long link gap may make it CRITICAL on its own); CRITICAL where the
        // push connection did not keep.
        let grade = m["grade"] as? String ?? "?"
        #expect(["warning", "critical"].contains(grade) && (m["connection"] as? String == "kept" || grade == "critical"), "\(m)")
        #expect((m["reason"] as? String ?? "").contains("a fast transition that failed"), "\(m)")
        #expect((m["reason"] as? String ?? "").contains("\(target)"), "\(m)")
        // The HTML's roam table: the move's row says the fast transition failed, and at what.
        let html = try text("walk.html")
        #expect(html.contains("FAILED (authentication)"), "\(peek("walk.err"))")
    }
}
