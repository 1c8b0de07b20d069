import Foundation
import PushdiagCore
import Testing

@testable import PushdiagIO

/// SIGUSR1 during a walk is an unnamed place: the handler rings, the thread that waits on it
/// adds "mark N" at once (no polling interval between the signal and the mark).
struct WalkPlacesTests {
    @Test func eachSIGUSR1IsAMark() {
        let o = HeartbeatOptions(endpoint: Endpoint(host: "127.0.0.1", port: 9), proto: .simplepush)
        let runner = WalkRunner(WalkSettings(interface: "wlan-test", heartbeat: o), stop: { false })
        runner.followPlaces()
        func marks() -> [String] {
            runner.log.lock.withLock {
                runner.log.events.compactMap { e -> String? in
                    guard case .place(let p) = e, p.name.hasPrefix("mark ") else { return nil }
                    return p.name
                }
            }
        }
        // One at a time: a second SIGUSR1 sent while the first is pending merges with it.
        for n in 1...2 {
            kill(getpid(), SIGUSR1)
            for _ in 0..<400 where marks().count < n { usleep(25_000) }
        }
        #expect(marks() == ["mark 1", "mark 2"])
    }
}
