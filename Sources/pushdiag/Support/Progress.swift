import Foundation

/// Progress on stderr, only when stderr is a terminal; nothing at all on a pipe or in cron.
final class Progress {
    let enabled: Bool
    private var last = Date.distantPast
    private var shown = false

    init() { enabled = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb" }

    func update(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(last) >= 0.2 else { return }
        last = now
        shown = true
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text()).utf8))
    }

    func clear() {
        guard enabled, shown else { return }
        shown = false
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
