import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

/// The walk's live view on stderr: on a terminal a line per second and events as they happen
/// (events marked in colour); elsewhere the events only, as plain lines.
final class LiveView: @unchecked Sendable {
    let terminal = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    let lock = NSLock()

    /// Shows `runner`'s state every second, and its messages and link events as they happen.
    func follow(_ runner: WalkRunner) {
        runner.onTick = { l in
            self.line(
                WalkTextRenderer.live(
                    place: l.location, bssid: l.link.bssid, freqMhz: l.link.freqMhz, signalDbm: l.link.signalDbm, retriesPct: l.link.retriesPct,
                    lastRTT: l.lastRTT, state: l.state))
        }
        runner.onMessage = { self.event($0) }
        runner.onLinkEvent = { self.event(WatchTextRenderer.line($0)) }
    }

    func line(_ text: String) {
        guard terminal else { return }
        write(Timestamp.clock(Timestamp.rfc3339(nanoseconds: WallClock.nanoseconds()), milliseconds: false) + "  " + text)
    }

    func event(_ text: String) {
        let stamp = Timestamp.clock(Timestamp.rfc3339(nanoseconds: WallClock.nanoseconds()), milliseconds: false)
        write(terminal ? "\u{1B}[1m\(stamp)  \(text)\u{1B}[0m" : "pushdiag: walk: \(stamp) \(text)")
    }

    func write(_ s: String) {
        lock.withLock { FileHandle.standardError.write(Data((s + "\n").utf8)) }
    }
}
