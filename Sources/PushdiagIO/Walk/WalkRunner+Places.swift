import Foundation
import PushdiagCore
import Synchronization

/// Places while walking: a line on standard input names the place from then on (read only when
/// it will not stop a background job: a pipe, a file, or the terminal's foreground); SIGUSR1
/// adds an unnamed mark.
extension WalkRunner {
    /// SIGUSR1's count, from the handler (a C function: no captures).
    static let marks = Atomic<Int>(0)
    /// Rung by the handler after each mark: the thread that turns marks into places waits on it.
    static let markRung = Wakeup()

    /// Installs the SIGUSR1 handler and starts the threads that turn marks and typed lines into
    /// places for this walk.
    public func followPlaces() {
        _ = WalkRunner.markRung  // made before the handler can need it
        let handler: @convention(c) (Int32) -> Void = { _ in
            WalkRunner.marks.add(1, ordering: .sequentiallyConsistent)
            WalkRunner.markRung.ring()
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGUSR1, &action, nil)
        let log = self.log
        let mark: @Sendable (String) -> Void = { name in log.add(.place(WalkPlaceMark(timeNs: WallClock.nanoseconds(), name: name))) }
        Thread {
            var seen = 0
            while true {
                WalkRunner.markRung.wait(ms: nil)
                _ = WalkRunner.markRung.take()
                let n = WalkRunner.marks.load(ordering: .sequentiallyConsistent)
                while seen < n {
                    seen += 1
                    mark("mark \(seen)")
                }
            }
        }.start()
        let foreground = isatty(STDIN_FILENO) == 0 || tcgetpgrp(STDIN_FILENO) == getpgrp()
        guard foreground else { return }
        Thread {
            while let line = readLine() {
                let name = line.trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { mark(name) }
            }
        }.start()
    }
}
