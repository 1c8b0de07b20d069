import PushdiagIO

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM set a stop request that long-running commands look at, so they stop
/// cleanly and print their summary; a second signal ends the process at once. The request is an
/// atomic and an eventfd (both async-signal-safe to set): any thread reads it, and a thread
/// that waits on it wakes.
enum StopSignal {
    static var event: StopEvent { StopEvent.process }

    static func install() {
        _ = event  // made before a handler can need it
        let handler: @convention(c) (Int32) -> Void = { sig in
            if StopSignal.event.request() { _exit(128 + sig) }
        }
        // No SA_RESTART: a blocked poll returns EINTR.
        installHandler(handler, for: [SIGINT, SIGTERM], restart: false)
    }

    static var isRequested: Bool { event.isRequested }
}

/// A peer that goes away while pushdiag writes to it is an error on that connection (EPIPE),
/// never the end of the process: SIGPIPE is ignored from the start. OpenSSL writes with
/// write(2), where MSG_NOSIGNAL cannot be asked for.
enum BrokenPipe {
    static func ignore() { signal(SIGPIPE, SIG_IGN) }
}

/// SIGHUP rings a wakeup the exporter waits on to reload its configuration.
enum ReloadSignal {
    static let wakeup = Wakeup()

    static func install() {
        _ = wakeup  // made before a handler can need it
        let handler: @convention(c) (Int32) -> Void = { _ in ReloadSignal.wakeup.ring() }
        installHandler(handler, for: [SIGHUP], restart: true)
    }

    /// True once per SIGHUP (or several that came together).
    static func take() -> Bool { wakeup.take() }
}

/// Installs `handler` for `signals` and unblocks them: a parent may have left them blocked (test
/// runners, some supervisors), and a signal that stays blocked would never be seen.
private func installHandler(_ handler: @convention(c) (Int32) -> Void, for signals: [Int32], restart: Bool) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = handler
    sigemptyset(&action.sa_mask)
    action.sa_flags = restart ? SA_RESTART : 0
    var set = sigset_t()
    sigemptyset(&set)
    for sig in signals {
        sigaction(sig, &action, nil)
        sigaddset(&set, sig)
    }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}
