/// How often one client (by address: `IPAddress.client`) may ask the
/// exporter's `/probe`: a token bucket per client, `burst` requests at once and `perSecond` after that. A request over it is answered
/// 429 before its query is parsed, its target checked or a thread started, so a client that
/// floods /probe costs the exporter little, takes none of the --max-probes slots from other
/// scrapers and none of the CPU the held sessions' heartbeats run on.
///
/// The figures leave room for what Prometheus does: a blackbox-style job asks each target once
/// per scrape interval, spread over the interval, so 5 a second from one Prometheus is 75
/// targets scraped every 15 s; the burst of 20 covers a restart's first scrapes of all of them.
/// They are fixed (not settings): the limit of what runs at once stays --max-probes.
public struct ClientRateLimit: Sendable {
    public static let perSecond = 5.0
    public static let burst = 20.0
    /// Clients remembered at most; past it, every client that is not being refused right now
    /// (a token left) is forgotten, and if that is not enough, all of them: a sweep from many
    /// addresses resets the table rather than growing it, and does not free a flooding client.
    public static let mostClients = 4096

    struct Bucket {
        var tokens: Double
        var seconds: Double
    }
    var buckets: [String: Bucket] = [:]
    let perSecond: Double
    let burst: Double

    public init(perSecond: Double = Self.perSecond, burst: Double = Self.burst) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Clients with a bucket now.
    public var clients: Int { buckets.count }

    /// Takes a token for `client` at `seconds` (a monotonic clock): false when it has none left.
    public mutating func take(_ client: String, seconds: Double) -> Bool { take([(client, 1)], seconds: seconds) }

    /// Takes a token from each key's bucket (a key of `shares` has that many times the burst and
    /// the rate: `ClientShares`), or from none when one has none left.
    public mutating func take(_ keys: [(key: String, shares: Int)], seconds: Double) -> Bool {
        var refilled: [(String, Bucket)] = []
        for (key, shares) in keys {
            let (most, rate) = (burst * Double(shares), perSecond * Double(shares))
            var b = buckets[key] ?? Bucket(tokens: most, seconds: seconds)
            b.tokens = min(most, b.tokens + max(0, seconds - b.seconds) * rate)
            b.seconds = seconds
            refilled.append((key, b))
        }
        let allowed = refilled.allSatisfy { $0.1.tokens >= 1 }
        for (key, var b) in refilled {
            if allowed { b.tokens -= 1 }
            if buckets[key] == nil && buckets.count >= Self.mostClients { forgetIdle(seconds: seconds) }
            buckets[key] = b
        }
        return allowed
    }

    mutating func forgetIdle(seconds: Double) {
        buckets = buckets.filter { $0.value.tokens + max(0, seconds - $0.value.seconds) * perSecond < 1 }
        if buckets.count >= Self.mostClients { buckets = [:] }
    }
}
