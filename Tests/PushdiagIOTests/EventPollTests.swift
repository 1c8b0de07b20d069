import Foundation
import PushdiagCore
import Testing

@testable import PushdiagIO

/// epoll through the CEpoll header, on real pipes: what is ready is reported with its
/// descriptor, what is not ready is not, and a closed descriptor leaves the set.
struct EventPollTests {
    @Test func readyDescriptorsAndOnlyThose() throws {
        let events = try EventPoll(batch: 4)
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            pipes.append(fds)
            #expect((try? events.add(fds[0], .readable).get()) != nil)
        }
        defer {
            for p in pipes {
                close(p[0])
                close(p[1])
            }
        }
        var seen: [Int32] = []
        #expect((try? events.wait(timeoutMs: 0) { fd, _ in seen.append(fd) }.get()) == 0)
        // Write to the first and the third: those two are readable.
        for i in [0, 2] { #expect(write(pipes[i][1], "x", 1) == 1) }
        let n = try events.wait(timeoutMs: 1000) { fd, ready in
            seen.append(fd)
            #expect(ready.contains(.readable))
        }.get()
        #expect(n == 2 && Set(seen) == [pipes[0][0], pipes[2][0]])
        // Watching for nothing: still ready, no longer reported.
        #expect((try? events.modify(pipes[0][0], []).get()) != nil)
        seen = []
        _ = events.wait(timeoutMs: 1000) { fd, _ in seen.append(fd) }
        #expect(seen == [pipes[2][0]])
        // A descriptor added twice is refused with its errno.
        if case .failure(let e) = events.add(pipes[1][0], .readable) { #expect(e == Errno(EEXIST)) } else { Issue.record("added twice") }
    }

    @Test func deadlinesComeOutInOrder() {
        var heap = DeadlineHeap()
        let times: [Double] = [50, 10, 40, 10, 30, 20, 60, 5]
        for (i, t) in times.enumerated() { heap.push(at: t, owner: i) }
        #expect(heap.earliest == 5 && heap.count == 8)
        #expect(heap.popDue(4) == nil)
        var out: [Double] = []
        while let e = heap.popDue(45) { out.append(e.at) }
        #expect(out == [5, 10, 10, 20, 30, 40] && heap.count == 2 && heap.earliest == 50)
    }
}
