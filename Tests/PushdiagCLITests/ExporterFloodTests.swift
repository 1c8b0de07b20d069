import Foundation
import PushdiagCore
import TestSupport
import Testing

/// A client that floods /probe (#31): answered 429 and counted, while the held sessions'
/// heartbeats go on as they did without it. The comparison is of two distributions the exporter
/// itself recorded (its round-trip histogram, quiet and flooded), with a generous bound; no
/// wall-clock figure is asserted.
@Suite(.serialized) struct ExporterFloodTests {
    /// The histogram's cumulative counts by bound, summed over the held sessions.
    func buckets(_ exposition: String) -> [Double: Double] {
        var out: [Double: Double] = [:]
        for s in Exposition.series(exposition, "pushdiag_heartbeat_rtt_seconds_bucket") {
            guard let le = s.labels.firstMatch(of: /le="([^"]+)"/).map({ String($0.1) }) else { continue }
            out[le == "+Inf" ? .infinity : Double(le) ?? .nan, default: 0] += s.value
        }
        return out
    }

    /// The bound of the bucket holding the 95th percentile of what came between two scrapes,
    /// and how many came.
    func p95(_ before: [Double: Double], _ after: [Double: Double]) -> (bound: Double, count: Double) {
        let bounds = after.keys.sorted()
        let total = (after[.infinity] ?? 0) - (before[.infinity] ?? 0)
        for b in bounds where (after[b] ?? 0) - (before[b] ?? 0) >= 0.95 * total { return (b, total) }
        return (.infinity, total)
    }

    func scrape(_ base: String) throws -> String {
        try run("/usr/bin/curl", ["-s", "--max-time", "10", "\(base)/metrics"]).stdout
    }

    @Test func aFloodOfProbesIsAnswered429AndTheHeartbeatsDoNotNotice() throws {
        let servers = [freePort(), freePort()]
        let responders = try servers.map { p in
            let b = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(p)"])
            #expect(b.wait(for: "listening on"), "responder did not start: \(b.output)")
            return b
        }
        defer { for r in responders { r.stop() } }
        let port = freePort()
        let e = try Background(
            TestPaths.binary.path,
            ["exporter", "--listen", "127.0.0.1:\(port)", "--interval", "100ms"] + servers.flatMap { ["--server", "127.0.0.1:\($0)"] })
        defer { e.stop() }
        #expect(e.wait(for: "listening on"), "exporter did not start: \(e.output)")
        let base = "http://127.0.0.1:\(port)"
        sleep(2)  // both sessions ready and heartbeating

        // Quiet: 8 s of heartbeats on two sessions.
        let q0 = buckets(try scrape(base))
        let lost0 = Exposition.series(try scrape(base), "pushdiag_heartbeats_lost_total").reduce(0) { $0 + $1.value }
        sleep(8)
        let q1 = buckets(try scrape(base))
        // Flooded: 8 s again while one client asks /probe of a held server as fast as 32
        // connections at once let it (curl's --parallel, keep-alive).
        let dir = try TestPaths.temporaryDirectory()
        let url = "\(base)/probe?target=127.0.0.1:\(servers[0])&count=1"
        try String(repeating: "url = \"\(url)\"\noutput = /dev/null\n", count: 150_000).write(
            to: dir.appendingPathComponent("flood.cfg"), atomically: true, encoding: .utf8)
        let flood = try Background(
            "/usr/bin/curl", ["-s", "--parallel", "--parallel-max", "32", "-w", "%{http_code}\n", "-K", dir.appendingPathComponent("flood.cfg").path])
        sleep(1)
        let f0 = buckets(try scrape(base))
        sleep(8)
        let f1 = buckets(try scrape(base))
        let metrics = try scrape(base)
        flood.stop()

        // Counted by the exporter (curl's own tally is lost when it is stopped mid-flood).
        let limited = Exposition.value(metrics, "pushdiag_exporter_probes_refused_total", ["reason": "rate_limited"]) ?? 0
        let busy = Exposition.value(metrics, "pushdiag_exporter_probes_refused_total", ["reason": "max_probes"]) ?? 0
        #expect(limited >= 1000, "the flood was answered 429 and counted: \(limited)")
        #expect(busy <= ClientRateLimit.burst + 10 * ClientRateLimit.perSecond, "only what the client's bucket let through reached the slots: \(busy)")
        #expect(e.output.components(separatedBy: "asks more often than").count == 2, "logged once: \(e.output)")

        let quiet = p95(q0, q1)
        let flooded = p95(f0, f1)
        let lost = Exposition.series(metrics, "pushdiag_heartbeats_lost_total").reduce(0) { $0 + $1.value } - lost0
        #expect(lost == 0, "no heartbeat lost under the flood")
        // As many heartbeats went out (one every 100 ms on each session), and the 95th
        // percentile stayed within two buckets of the quiet one (1 ms → 5 ms at most): a
        // generous bound that a starved session (seconds late) would still break.
        #expect(flooded.count >= 0.8 * quiet.count, "heartbeats answered: \(quiet.count) quiet, \(flooded.count) flooded")
        let bounds = RTTHistogram.bucketsSeconds + [.infinity]
        let qi = bounds.firstIndex(of: quiet.bound) ?? 0
        let fi = bounds.firstIndex(of: flooded.bound) ?? bounds.count
        #expect(fi <= qi + 2, "p95 quiet ≤ \(quiet.bound) s, flooded ≤ \(flooded.bound) s")
        print(
            "flood: \(Int(limited)) answered 429 in 9 s; heartbeats \(quiet.count) quiet, \(flooded.count) flooded; p95 ≤ \(quiet.bound) s quiet, ≤ \(flooded.bound) s flooded"
        )
    }
}
