import Foundation
import PushdiagCore
import Testing

@testable import PushdiagIO

/// EINTR is handled in one place: a wait that a signal cuts short reports no events (the caller
/// checks its stop flag and what is left of its deadline) instead of an error or a hang.
@Suite(.serialized)
struct SyscallTests {
    @Test func aSignalEndsAWaitEarlyWithoutAnError() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART, as pushdiag installs SIGINT and SIGTERM
        var previous = sigaction()
        sigaction(SIGUSR2, &action, &previous)
        defer { sigaction(SIGUSR2, &previous, nil) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        // The test runner may leave signals blocked on its threads.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGUSR2)
        var old = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &set, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let me = pthread_self()
        Thread {
            usleep(100_000)
            pthread_kill(me, SIGUSR2)
        }.start()
        let t0 = Clock.ms()
        let r = Syscall.poll(fds[0], events: Int16(POLLIN), timeoutMs: 5000)
        #expect(r == .success(0))
        #expect(Clock.ms() - t0 < 4000, "the wait ended at the signal, not at its timeout")
    }

    @Test func retryingReturnsTheErrnoOfARealFailure() {
        let r = Syscall.retrying { Glibc.close(-1) }
        #expect(r == .failure(Errno(EBADF)))
    }
}
