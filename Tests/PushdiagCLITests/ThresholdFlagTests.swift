import Foundation
import TestSupport
import Testing

/// A threshold flag is read by its row of the table (`ThresholdRow`) in every command that has
/// it, so the same text means the same everywhere (issue #25).
struct ThresholdFlagTests {
    @Test func theSameFlagTakesTheSameInputEverywhere() throws {
        let fixture = { (name: String) in TestPaths.fixtures.appendingPathComponent(name).path }
        let wifi = ["wifi", "--replay", fixture("lab-wifi.pcap"), "--interface", "wlan2", "--count", "1"]
        let survey = ["survey", "--interface", "wlan2", "--replay", fixture("lab-wifi.pcap"), "--duration", "1s"]
        let walk = ["walk", "--replay", fixture("lab-walk")]
        let capture = ["capture", fixture("roam-ft.pcap")]
        let heartbeat = ["heartbeat", "127.0.0.1:\(freePort())", "--count", "1", "--connect-timeout", "1s"]
        let cases: [([[String]], String, String)] = [
            ([wifi, survey, walk], "--signal-warning", "-65:"), ([wifi, survey, capture], "--utilization-critical", "~:45"),
            ([wifi, survey, capture], "--retransmission-critical", "20"), ([heartbeat, survey], "--rtt-critical", "~:800"),
            ([heartbeat, survey], "--loss-warning", "2"), ([wifi, survey], "--snr-warning", "20:"),
            ([wifi, survey], "--snr-critical", "10:"), ([heartbeat + ["--tls"], survey], "--certificate-critical", "10:"),
            ([walk, capture], "--ft-gap-critical", "~:200"), ([walk, capture], "--roam-gap-warning", "150"),
        ]
        for (commands, flag, good) in cases {
            for command in commands {
                let accepted = try pushdiag(command + [flag, good])
                #expect(!accepted.stderr.contains(flag), "\(command[0]) \(flag) \(good): \(accepted.stderr.prefix(300))")
                let refused = try pushdiag(command + [flag, "1e9"])
                #expect(refused.status == 3 && refused.stderr.contains("\(flag): '1e9' is outside"), "\(command[0]) \(flag) 1e9: \(refused.stderr.prefix(300))")
                // Below the row's values: said so, not "not a range or a number".
                let below = try pushdiag(command + [flag, "-1e9"])
                #expect(below.status == 3 && below.stderr.contains("\(flag): '-1e9' is outside"), "\(command[0]) \(flag) -1e9: \(below.stderr.prefix(300))")
            }
        }
    }
}
