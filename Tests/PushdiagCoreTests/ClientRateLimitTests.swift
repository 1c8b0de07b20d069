import PushdiagCore
import Testing

@Suite struct ClientRateLimitTests {
    /// How many of `n` requests from `client` at `seconds` are let through.
    func taken(_ limit: inout ClientRateLimit, _ client: String, _ n: Int, at seconds: Double) -> Int {
        var ok = 0
        for _ in 0..<n where limit.take(client, seconds: seconds) { ok += 1 }
        return ok
    }

    @Test func aBurstThenTheRateAndEachClientOnItsOwn() {
        var limit = ClientRateLimit(perSecond: 5, burst: 20)
        #expect(taken(&limit, "10.0.0.1", 30, at: 100) == 20, "the burst")
        #expect(taken(&limit, "10.0.0.2", 1, at: 100) == 1, "another client has its own bucket")
        #expect(taken(&limit, "10.0.0.1", 1, at: 100.1) == 0, "half a token is none")
        #expect(taken(&limit, "10.0.0.1", 2, at: 100.2) == 1, "one token 0.2 s after the last")
        // A second later, five more; a long wait refills no more than the burst.
        #expect(taken(&limit, "10.0.0.1", 10, at: 101.2) == 5)
        #expect(taken(&limit, "10.0.0.1", 30, at: 1000) == 20)
        // A clock that steps back gives nothing.
        #expect(taken(&limit, "10.0.0.1", 1, at: 10) == 0)
    }

    @Test func theTableStaysBoundedAndASweepFreesNoFlooder() {
        var limit = ClientRateLimit()
        for i in 0..<(ClientRateLimit.mostClients * 3) { _ = limit.take("client \(i)", seconds: Double(i) / 1000) }
        #expect(limit.clients <= ClientRateLimit.mostClients)
        var flood = ClientRateLimit()
        _ = taken(&flood, "flooder", 20, at: 0)
        for i in 0..<(ClientRateLimit.mostClients + 10) { _ = flood.take("sweep \(i)", seconds: 0) }
        #expect(flood.clients <= ClientRateLimit.mostClients)
        #expect(taken(&flood, "flooder", 1, at: 0) == 0, "still refused")
    }
}
