#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT and SIGTERM set a flag that long-running commands poll, so they stop cleanly and
/// print their summary; a second signal ends the process at once.
enum StopSignal {
    nonisolated(unsafe) static var requested: sig_atomic_t = 0

    static func install() {
        let handler: @convention(c) (Int32) -> Void = { sig in
            if StopSignal.requested != 0 { _exit(128 + sig) }
            StopSignal.requested = 1
        }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: a blocked poll returns EINTR
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A parent may have left them blocked (test runners, some supervisors): unblock them,
        // or a stop request would wait forever.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    static var isRequested: Bool { requested != 0 }
}
