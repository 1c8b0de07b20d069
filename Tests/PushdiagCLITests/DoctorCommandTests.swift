import Foundation
import TestSupport
import Testing

/// `pushdiag doctor` on this host, which has no Wi-Fi: it says so and exits 3, with the
/// machine's part (kernel, libpcap, privileges) still there. The radios are checked against iw
/// and ethtool in the lab (LabTests.doctorSeesTheRadiosAsIwAndEthtoolDo).
struct DoctorCommandTests {
    @Test(.enabled(if: access("/sys/class/ieee80211", F_OK) != 0, "this kernel has Wi-Fi: the lab checks doctor there"))
    func noWiFiIsSaidAndTheMachineStillDescribed() throws {
        let t = try pushdiag("doctor")
        #expect(t.status == 3, "\(t.stdout)\(t.stderr)")
        #expect(t.stderr.split(separator: "\n").count == 1 && t.stderr.contains("cfg80211"), "\(t.stderr)")
        let kernel = try run("/bin/uname", ["-r"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(t.stdout.contains("kernel \(kernel)") && t.stdout.contains("no Wi-Fi to measure"), "\(t.stdout)")
        let j = try json(try pushdiag("doctor", "--format", "json").stdout)
        #expect(j["status"] as? String == "unknown" && (j["error"] as? String)?.contains("cfg80211") == true)
        let machine = try #require(j["machine"] as? [String: Any])
        #expect(machine["kernel"] as? String == kernel && machine["nl80211"] as? Bool == false)
        #expect((machine["libpcap"] as? String)?.contains("libpcap") == true)
        #expect((j["interfaces"] as? [Any])?.isEmpty == true)
    }

    /// The lab's recording replays to the radios the live run saw (what only the live machine
    /// knows, ethtool's version, firmware and bus, is absent from a replay).
    @Test func theLabsRecordingReplaysToTheSameRadios() throws {
        let fixture = { (name: String) in TestPaths.fixtures.appendingPathComponent(name).path }
        let r = try pushdiag("doctor", "--replay", fixture("lab-doctor.pcap"), "--driver", "mac80211_hwsim", "--format", "json")
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let replay = try #require(try json(r.stdout)["interfaces"] as? [[String: Any]])
        let live = try #require(try json(try String(contentsOfFile: fixture("lab-doctor.json"), encoding: .utf8))["interfaces"] as? [[String: Any]])
        #expect(replay.count == live.count && !live.isEmpty)
        for (a, b) in zip(replay, live) {
            for key in ["name", "type", "phy", "mac", "driver", "driver_family"] { #expect(a[key] as? String == b[key] as? String, "\(key)") }
            #expect(a["interface_types"] as? [String] == b["interface_types"] as? [String])
            #expect(a["monitor_beside_managed"] as? Bool == b["monitor_beside_managed"] as? Bool)
            #expect(a["driver_version"] is NSNull && a["firmware"] is NSNull)
            let counters = { (x: [String: Any]) in (x["counters"] as? [[String: Any]] ?? []).map { "\($0["counter"] ?? "")=\($0["reported"] ?? "")" } }
            #expect(counters(a) == counters(b), "\(counters(a)) vs \(counters(b))")
        }
        let text = try pushdiag("doctor", "--replay", fixture("lab-doctor.pcap"), "--driver", "mac80211_hwsim")
        #expect(text.stdout.contains("channel_utilization  AP's BSS Load (the AP's own figure)"), "\(text.stdout)")
    }

    /// The capabilities are the process's own (CapEff): root has CAP_NET_RAW; nobody has not,
    /// and is given the setcap line for this very executable.
    @Test(.enabled(if: getuid() == 0 && TestPaths.which("setpriv") != nil, "needs root and setpriv"))
    func privilegesAreTheProcesssOwn() throws {
        func raw(_ j: [String: Any]) -> [String: Any]? {
            (j["privileges"] as? [[String: Any]])?.first { $0["capability"] as? String == "CAP_NET_RAW" }
        }
        let root = try json(try pushdiag("doctor", "--format", "json").stdout)
        #expect(raw(root)?["has"] as? Bool == true && raw(root)?["fix"] is NSNull, "\(root)")
        let nobody = try run(
            TestPaths.which("setpriv")!,
            ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", TestPaths.binary.path, "doctor", "--format", "json"])
        let j = try json(nobody.stdout)
        let binary = TestPaths.binary.resolvingSymlinksInPath().path
        #expect(
            raw(j)?["has"] as? Bool == false && raw(j)?["fix"] as? String == "sudo setcap cap_net_raw+ep \(binary)   (or run those commands with sudo)", "\(j)")
        #expect((j["machine"] as? [String: Any])?["uid"] as? Int == 65534)
    }
}
