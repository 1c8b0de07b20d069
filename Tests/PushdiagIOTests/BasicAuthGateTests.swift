import Foundation
import PushdiagCore
import Synchronization
import Testing

@testable import PushdiagExporter

/// The exporter's basic-auth checks (`BasicAuthGate`): bcrypt runs one check at a time on a
/// queue of its own, and no more than `mostPending` wait there.
@Suite struct BasicAuthGateTests {
    /// A client sending wrong passwords (and hanging up) cannot queue checks without end: with
    /// the queue held, the first `mostPending` wait and the rest are refused at once; once it
    /// runs, each waiting one is answered, and the gate takes checks again.
    @Test func wrongPasswordsQueueNoMoreThanMostPending() throws {
        let gate = BasicAuthGate()
        // libxcrypt's bcrypt of "s3cret" at cost 4 (python3's crypt module).
        let hash = "$2b$04$tks9s/cBur4N0V8i7u42EO9/fX0B4dfPSg/f1rUrYPQOzJpriDm/W"
        gate.set(try WebConfig.parse(Array("basic_auth_users:\n  prometheus: \(hash)\n".utf8), file: "web.yml").users)
        let hold = DispatchSemaphore(value: 0)
        gate.queue.async { hold.wait() }
        let answers = Mutex<[Bool]>([])
        let done = DispatchGroup()
        let wrong = "Basic " + Data("prometheus:wrong".utf8).base64EncodedString()
        for _ in 0..<(BasicAuthGate.mostPending + 24) {
            done.enter()
            gate.check(wrong) { ok in
                answers.withLock { $0.append(ok) }
                done.leave()
            }
        }
        #expect(answers.withLock { $0.count } == 24, "refused at once: \(answers.withLock { $0 })")
        hold.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(answers.withLock { $0.count == BasicAuthGate.mostPending + 24 && !$0.contains(true) })
        #expect(gate.pending.load(ordering: .relaxed) == 0)
        // Taking checks again: the right password is checked, and let in.
        let again = Mutex<Bool?>(nil)
        let one = DispatchSemaphore(value: 0)
        gate.check("Basic " + Data("prometheus:s3cret".utf8).base64EncodedString()) { ok in
            again.withLock { $0 = ok }
            one.signal()
        }
        #expect(one.wait(timeout: .now() + 60) == .success && again.withLock { $0 } == true)
    }
}
