import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag walk` off the air: the lab's recorded walk (Tests/lab/walk.sh: an 802.11r roam, a
/// WPA-PSK roam, an AP that went away) replayed through the same code, and bad input. The live
/// walk is checked in the lab (LabTests.walk*).
struct WalkCommandTests {
    func fixture(_ name: String) -> String { TestPaths.fixtures.appendingPathComponent(name).path }

    /// A copy of the recorded walk to damage.
    func copy() throws -> URL {
        let dir = try TestPaths.temporaryDirectory()
        for f in ["nl80211.pcap", "push.jsonl"] {
            try FileManager.default.copyItem(atPath: fixture("lab-walk/\(f)"), toPath: dir.appendingPathComponent(f).path)
        }
        return dir
    }

    @Test func replayGivesTheRecordedReport() throws {
        let r = try pushdiag("walk", "--replay", fixture("lab-walk"), "--format", "json")
        #expect(r.status == 2 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout == (try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8)))
        let report = try json(r.stdout)
        #expect(report["interface"] as? String == "wlan2" && report["server"] as? String == "10.40.0.1:3000")
        #expect(report["status"] as? String == "CRITICAL")
    }

    /// The text report: the push connection, a row per move and per place, the findings; the
    /// exit status is the worst finding's.
    @Test func textReportHasRoamsPlacesAndFindings() throws {
        let r = try pushdiag("walk", "--replay", fixture("lab-walk"))
        #expect(r.status == 2)
        let report = try json(try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8))
        let roams = try #require(report["roams"] as? [[String: Any]])
        let rows = r.stdout.split(separator: "\n").filter { $0.hasPrefix("    ") && $0.contains(" → ") == false && $0.contains(":") && $0.contains("02:00:00") }
        #expect(rows.count == roams.count, "\(r.stdout)")
        for place in ["ward 3", "corridor", "ward 5"] { #expect(r.stdout.contains("\n    \(place) ")) }
        #expect(r.stdout.contains("findings (CRITICAL):") && r.stdout.contains("reconnected in "))
    }

    /// Thresholds are the report's: raising the limits of the lab's slow roams changes the grades
    /// (the connection that had to reconnect stays critical whatever the gap).
    @Test func thresholdsDecideTheGrades() throws {
        let r = try pushdiag(
            "walk", "--replay", fixture("lab-walk"), "--format", "json", "--roam-gap-warning", "10000", "--roam-gap-critical", "20000",
            "--ft-gap-warning", "10000", "--ft-gap-critical", "20000")
        let roams = try #require(try json(r.stdout)["roams"] as? [[String: Any]])
        #expect(roams.map { $0["grade"] as? String } == roams.map { $0["connection"] as? String == "kept" ? "ok" : "critical" })
        let bad = try pushdiag("walk", "--replay", fixture("lab-walk"), "--ft-gap-warning", "200", "--ft-gap-critical", "100")
        #expect(bad.status != 0 && bad.stderr.contains("warning gap"))
        let signal = try pushdiag("walk", "--replay", fixture("lab-walk"), "--signal-warning=5")
        #expect(signal.status != 0 && signal.stderr.contains("--signal-warning"))
    }

    /// A damaged push log names the file and line; nothing is printed as a report.
    @Test func damagedPushLogIsOneLine() throws {
        let dir = try copy()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("push.jsonl")
        var lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[4] = "{\"kind\": 12"
        try lines.joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)
        let r = try pushdiag("walk", "--replay", dir.path)
        #expect(r.status == 3 && !r.signalled)
        #expect(r.stderr == "pushdiag: \(log.path): line 5 is not a walk log line\n")
        let missing = try pushdiag("walk", "--replay", dir.appendingPathComponent("nothing").path, "--format", "json")
        #expect(missing.status == 3 && missing.stderr.contains("no push log"))
        #expect(try json(missing.stdout)["status"] as? String == "unknown")
    }

    /// A recording cut short still gives the walk up to the cut, and says where the link's part
    /// ended.
    @Test func truncatedRecordingReportsWhatItHas() throws {
        let dir = try copy()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pcap = dir.appendingPathComponent("nl80211.pcap")
        let bytes = try Data(contentsOf: pcap)
        try bytes.prefix(bytes.count / 2 + 7).write(to: pcap)
        let r = try pushdiag("walk", "--replay", dir.path, "--format", "json")
        #expect(!r.signalled && [1, 2].contains(r.status), "\(r.stderr)")
        let report = try json(r.stdout)
        let samples = try #require(report["samples"] as? [[String: Any]])
        let full = try #require(try json(try String(contentsOfFile: fixture("lab-walk.json"), encoding: .utf8))["samples"] as? [[String: Any]])
        #expect(samples.count > 10 && samples.count < full.count)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(pcap.path), "\(r.stderr)")
        #expect((report["notes"] as? [String] ?? []).contains { $0.contains("could not be followed to the end") })
    }

    /// The configuration's [walk] table sets the limits; a flag wins over it; a bad key is named
    /// by file, line and key.
    @Test func configurationSetsTheLimits() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("pushdiag.toml")
        try "[walk]\nroam_gap_warning = 10000\nroam_gap_critical = 20000\nft_gap_warning = 10000\nft_gap_critical = 20000\n".write(
            to: config, atomically: true, encoding: .utf8)
        func grades(_ extra: String...) throws -> [String?] {
            let r = try pushdiag(["walk", "--replay", fixture("lab-walk"), "--format", "json", "--config", config.path] + extra)
            return try #require(try json(r.stdout)["roams"] as? [[String: Any]]).map { $0["grade"] as? String }
        }
        let relaxed = try grades()
        #expect(relaxed.filter { $0 == "ok" }.count == 4, "\(relaxed)")
        let strict = try grades("--roam-gap-warning", "1", "--roam-gap-critical", "2", "--ft-gap-warning", "1", "--ft-gap-critical", "2")
        #expect(strict.allSatisfy { $0 == "critical" }, "\(strict)")
        try "[walk]\nsignal_warning = -60\nroam_gap = 5\n".write(to: config, atomically: true, encoding: .utf8)
        let bad = try pushdiag("walk", "--replay", fixture("lab-walk"), "--config", config.path)
        #expect(bad.status != 0 && bad.stderr.contains("\(config.path):3: walk.roam_gap: unknown key"), "\(bad.stderr)")
    }

    @Test func usage() throws {
        let r = try pushdiag("walk", "--interface", "wlan0")
        #expect(r.status != 0 && r.stderr.contains("needs the push server"))
        let i = try pushdiag("walk", "127.0.0.1:3000")
        #expect(i.status != 0 && i.stderr.contains("--interface"))
    }
}
