import Foundation
import PushdiagIO
import Synchronization

/// The threads one of the exporter's subjects runs on (a push session's, an interface's sample
/// and event loops): started together, asked to stop together, and waited for until the last
/// has ended.
final class Workers: Sendable {
    let stopped = StopEvent()
    /// Set when the last thread has ended.
    let finished = StopEvent()
    let running = Atomic<Int>(0)

    var isStopped: Bool { stopped.isRequested }

    /// Starts a thread per loop, named "NAME LABEL" (or NAME where the label is empty).
    func start(_ name: String, _ loops: [(label: String, body: @Sendable () -> Void)]) {
        running.add(loops.count, ordering: .sequentiallyConsistent)  // all counted before any can end
        for (label, body) in loops {
            let t = Thread { [self] in
                body()
                if running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { finished.request() }
            }
            t.name = label.isEmpty ? name : "\(name) \(label)"
            t.start()
        }
    }

    /// Asks every loop to end and waits up to `seconds` for the last.
    func stop(waitSeconds seconds: Double) {
        stopped.request()
        finished.wait(ms: seconds * 1000)
    }

    /// Waits `ms` unless stopped first; false when stopped.
    func pause(ms: Double) -> Bool { stopped.sleep(ms: ms) }
}
