import Foundation
import PushdiagCore
import PushdiagIO
import Synchronization
import TestSupport
import Testing

@testable import PushdiagExporter

/// The exporter's basic-auth checks (`BasicAuthGate`): bcrypt runs one check at a time on a
/// queue of its own, and no more than `mostPendingPerClient` a client (`mostPending` in all)
/// wait there.
@Suite struct BasicAuthGateTests {
    /// libxcrypt's bcrypt of "s3cret" at cost 4 (python3's crypt module).
    static let hash = "$2b$04$tks9s/cBur4N0V8i7u42EO9/fX0B4dfPSg/f1rUrYPQOzJpriDm/W"
    static let wrong = "Basic " + Data("prometheus:wrong".utf8).base64EncodedString()
    static let right = "Basic " + Data("prometheus:s3cret".utf8).base64EncodedString()

    /// A client sending wrong passwords (and hanging up) cannot queue checks without end, nor
    /// take the queue from another: with the queue held, its first `mostPendingPerClient` wait
    /// and the rest are refused at once, while another client's still wait, up to `mostPending`
    /// in all; once the queue runs, each waiting one is answered, and the right password gets in.
    @Test func wrongPasswordsQueueNoMoreThanTheirShare() throws {
        let gate = BasicAuthGate()
        gate.set(try WebConfig.parse(Array("basic_auth_users:\n  prometheus: \(Self.hash)\n".utf8), file: "web.yml").users)
        let hold = DispatchSemaphore(value: 0)
        gate.queue.async { hold.wait() }
        let answers = Mutex<[Bool]>([])
        let done = DispatchGroup()
        func ask(_ client: String, _ times: Int) {
            for _ in 0..<times {
                done.enter()
                gate.check(Self.wrong, client: client) { ok in
                    answers.withLock { $0.append(ok) }
                    done.leave()
                }
            }
        }
        let per = BasicAuthGate.mostPendingPerClient
        ask("10.0.0.66", per + 10)
        #expect(answers.withLock { $0.count } == 10, "one client: refused at once")
        ask("10.0.0.5", per)
        #expect(answers.withLock { $0.count } == 10, "another client's checks wait beside the first's")
        // Clients enough to fill the rest: then anyone is refused at once.
        let others = BasicAuthGate.mostPending / per - 2
        for i in 0..<others { ask("10.1.0.\(i)", per) }
        ask("10.2.0.1", 1)
        #expect(answers.withLock { $0.count } == 11, "all \(BasicAuthGate.mostPending) places taken")
        hold.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(answers.withLock { $0.count == 11 + BasicAuthGate.mostPending && !$0.contains(true) })
        #expect(gate.pending.withLock { $0.isEmpty })
        let again = Mutex<Bool?>(nil)
        let one = DispatchSemaphore(value: 0)
        gate.check(Self.right, client: "10.0.0.66") { ok in
            again.withLock { $0 = ok }
            one.signal()
        }
        #expect(one.wait(timeout: .now() + 60) == .success && again.withLock { $0 } == true)
    }

    /// IPv6 clients of one /64 wait no more than twice one address's share, together: a host's
    /// temporary addresses do not multiply its place in the queue.
    @Test func aSubnetQueuesTwiceAnAddressesShare() throws {
        let gate = BasicAuthGate()
        gate.set(try WebConfig.parse(Array("basic_auth_users:\n  prometheus: \(Self.hash)\n".utf8), file: "web.yml").users)
        let hold = DispatchSemaphore(value: 0)
        gate.queue.async { hold.wait() }
        let refused = Mutex(0)
        let done = DispatchGroup()
        let per = BasicAuthGate.mostPendingPerClient
        for i in 0..<4 {
            for _ in 0..<per {
                done.enter()
                gate.check(Self.wrong, client: "2001:db8::\(i + 1)", subnet: "2001:db8::/64") { ok in
                    if !ok { refused.withLock { $0 += 1 } }
                    done.leave()
                }
            }
        }
        #expect(refused.withLock { $0 } == 2 * per, "two addresses' share waits, the rest is refused at once")
        hold.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(gate.pending.withLock { $0.isEmpty })
    }

    /// An unknown user is checked against a decoy at the users' cost, so that it takes as long
    /// as a known user's wrong password: libxcrypt (through python3's crypt) runs the decoy at
    /// that cost rather than refusing it, and no password matches it.
    @Test func anUnknownUsersDecoyHasTheUsersCost() throws {
        func users(_ costs: [String]) throws -> [WebConfig.User] {
            let lines = costs.enumerated().map { "  u\($0.offset): $2b$\($0.element)$tks9s/cBur4N0V8i7u42EO9/fX0B4dfPSg/f1rUrYPQOzJpriDm/W" }
            return try WebConfig.parse(Array(("basic_auth_users:\n" + lines.joined(separator: "\n") + "\n").utf8), file: "web.yml").users
        }
        #expect(BasicAuthGate.decoy(for: try users(["04"])).hasPrefix("$2y$04$"))
        #expect(BasicAuthGate.decoy(for: try users(["12", "12"])).hasPrefix("$2y$12$"))
        #expect(BasicAuthGate.decoy(for: try users(["05", "11"])).hasPrefix("$2y$11$"))
        #expect(BasicAuthGate.decoy(for: []).hasPrefix("$2y$10$"))
        let decoy = BasicAuthGate.decoy(for: try users(["05"]))
        // libxcrypt through python3's crypt module (gone in Python 3.13: then not checked here).
        let r = try run("/usr/bin/python3", ["-W", "ignore", "-c", "import crypt, sys; print(crypt.crypt('s3cret', sys.argv[1]))", decoy])
        if !r.stderr.contains("No module named 'crypt'") {
            #expect(r.stdout.hasPrefix("$2y$05$") && r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != decoy, "\(r.stdout) \(r.stderr)")
        }
        #expect(!PasswordCheck.matches(password: "s3cret", hash: decoy))
        // The gate answers an unknown user no, through the decoy.
        let gate = BasicAuthGate()
        gate.set(try users(["04"]))
        #expect(gate.decoy.withLock { $0 }.hasPrefix("$2y$04$"))
        let answered = DispatchSemaphore(value: 0)
        let ok = Mutex<Bool?>(nil)
        gate.check("Basic " + Data("nobody:s3cret".utf8).base64EncodedString(), client: "10.0.0.1") { v in
            ok.withLock { $0 = v }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 60) == .success && ok.withLock { $0 } == false)
    }
}
