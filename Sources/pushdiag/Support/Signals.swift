import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM set a flag that long-running commands poll, so they stop cleanly and
/// print their summary; a second signal ends the process at once. The flag is an atomic: the
/// handler writes it and any thread reads it (lock-free atomics are async-signal-safe).
enum StopSignal {
    static let requested = Atomic<Bool>(false)

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { sig in
            if StopSignal.requested.exchange(true, ordering: .sequentiallyConsistent) { _exit(128 + sig) }
        }
        // No SA_RESTART: a blocked poll returns EINTR.
        installHandler(handler, for: [SIGINT, SIGTERM], restart: false)
    }

    static var isRequested: Bool { requested.load(ordering: .sequentiallyConsistent) }
}

/// A peer that goes away while pushdiag writes to it is an error on that connection (EPIPE),
/// never the end of the process: SIGPIPE is ignored from the start. OpenSSL writes with
/// write(2), where MSG_NOSIGNAL cannot be asked for.
enum BrokenPipe {
    static func ignore() { signal(SIGPIPE, SIG_IGN) }
}

/// SIGHUP sets a flag the exporter polls to reload its configuration.
enum ReloadSignal {
    static let requested = Atomic<Bool>(false)

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in ReloadSignal.requested.store(true, ordering: .sequentiallyConsistent) }
        installHandler(handler, for: [SIGHUP], restart: true)
    }

    /// True once per SIGHUP (or several that came together).
    static func take() -> Bool { requested.exchange(false, ordering: .sequentiallyConsistent) }
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
