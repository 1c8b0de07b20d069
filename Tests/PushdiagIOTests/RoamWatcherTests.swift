import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// The watch machinery the walk will share, replayed from the lab's recording of two roams:
/// the same events, in the same order, as the live run wrote.
struct RoamWatcherTests {
    @Test func theLabsRoamsReplayAsTheyWereSeenLive() throws {
        let recording = TestPaths.fixtures.appendingPathComponent("lab-watch-roams.pcap").path
        let live = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("lab-watch-roams.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try json(String($0)) }
        let transport = try ReplayNetlink(path: recording, protocol: Netlink.protocolGeneric)
        let watcher = try RoamWatcher(client: try NL80211Client(transport: transport), transport: transport, interface: "wlan2", roamWindowSeconds: 10)
        var events: [WatchEvent] = []
        let summary = try watcher.run(limitSeconds: nil, stop: { false }, emit: { events.append($0) })
        let expected = live.filter { $0["event"] as? String != "summary" }
        #expect(events.map(\.event.rawValue) == expected.map { $0["event"] as? String ?? "?" })
        #expect(events.map { $0.bssid?.description } == expected.map { $0["bssid"] as? String })
        #expect(summary.roams == live.last?["roams"] as? Int && summary.roams == 2)
        // Another interface than the recorded one is named, not silently empty.
        let again = try ReplayNetlink(path: recording, protocol: Netlink.protocolGeneric)
        #expect(throws: WiFiError.self) {
            try RoamWatcher(client: try NL80211Client(transport: again), transport: again, interface: "wlan9", roamWindowSeconds: 10)
        }
    }
}
