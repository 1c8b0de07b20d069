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

    /// An IPv6 client counts under its address and its /64, which has twice the burst: one
    /// host's temporary addresses share the /64's, while another /64 is untouched. A request one
    /// key refuses takes no token from the other.
    @Test func aSubnetHasTwiceTheShareOfAnAddress() {
        var limit = ClientRateLimit(perSecond: 5, burst: 20)
        func taken(_ address: String, _ subnet: String, _ n: Int) -> Int {
            (0..<n).filter { _ in limit.take(ClientShares.keys(client: address, subnet: subnet), seconds: 100) }.count
        }
        #expect(taken("2001:db8::2", "2001:db8::/64", 25) == 20, "an address's burst")
        #expect(taken("2001:db8::3", "2001:db8::/64", 10) == 10, "another address of the /64")
        #expect(taken("2001:db8::4", "2001:db8::/64", 15) == 10, "the /64's burst, 40, spent")
        #expect(taken("2001:db8:1::2", "2001:db8:1::/64", 20) == 20, "another /64")
        #expect(ClientShares.keys(client: "10.0.0.1", subnet: nil).map(\.key) == ["10.0.0.1"])
        #expect(IPAddress("2001:db8:1:2::9")?.subnet64 == "2001:db8:1:2::/64" && IPAddress("::ffff:10.0.0.1")?.subnet64 == nil)
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
