import Foundation
import PushdiagCore
import Testing

@testable import PushdiagIO

/// Waits that an event ends: a ring wakes a waiter at once, a stop request wakes every sleeper
/// and stays set, and the time still runs out when nothing rings. The bounds are loose (a loaded
/// machine); what is checked is "woken well before the timeout", never a short time.
struct WakeupTests {
    @Test func ringWakesAndTakeDrains() {
        let w = Wakeup()
        #expect(!w.wait(ms: 0) && !w.take(), "nothing rang yet")
        w.ring()
        w.ring()
        #expect(w.wait(ms: 0) && w.wait(ms: 0), "readable until taken")
        #expect(w.take() && !w.take() && !w.wait(ms: 0), "one take for both rings")
        let other = Wakeup()
        other.ring()
        #expect(Wakeup.wait(any: [w, other], ms: 0) == 1)
    }

    @Test func aStopFromAnotherThreadEndsTheSleepEarly() {
        let stop = StopEvent()
        Thread {
            usleep(50_000)
            stop.request()
        }.start()
        let t0 = Clock.ms()
        #expect(!stop.sleep(ms: 30_000), "the request ended the sleep")
        #expect(Clock.ms() - t0 < 15_000)
        #expect(stop.isRequested && stop.request(), "set for good")
        #expect(!stop.sleep(ms: 30_000), "a later sleep ends at once")
        #expect(stop.wait(ms: 30_000), "and a wait for it returns at once")
    }

    @Test func withoutAStopTheTimeRunsOut() {
        let stop = StopEvent()
        let t0 = Clock.ms()
        #expect(stop.sleep(ms: 30))
        #expect(Clock.ms() - t0 >= 30)
    }
}
