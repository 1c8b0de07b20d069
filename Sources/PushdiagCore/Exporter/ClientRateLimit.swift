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
    public mutating func take(_ client: String, seconds: Double) -> Bool {
        var b = buckets[client] ?? Bucket(tokens: burst, seconds: seconds)
        b.tokens = min(burst, b.tokens + max(0, seconds - b.seconds) * perSecond)
        b.seconds = seconds
        let allowed = b.tokens >= 1
        if allowed { b.tokens -= 1 }
        if buckets[client] == nil && buckets.count >= Self.mostClients { forgetIdle(seconds: seconds) }
        buckets[client] = b
        return allowed
    }

    mutating func forgetIdle(seconds: Double) {
        buckets = buckets.filter { $0.value.tokens + max(0, seconds - $0.value.seconds) * perSecond < 1 }
        if buckets.count >= Self.mostClients { buckets = [:] }
    }
}
