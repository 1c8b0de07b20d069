import Foundation
import PushdiagCore
import TestSupport
import Testing

/// `pushdiag route` in a network namespace of its own: real routes, real neighbour entries.
@Suite(.serialized, .enabled(if: getuid() == 0 && TestPaths.which("ip") != nil, "needs root and iproute2 for a network namespace"))
struct RouteTests {
    let ns = "pdroute-\(getpid())"

    func ip(_ args: String...) throws {
        let r = try run(TestPaths.which("ip")!, ["netns", "exec", ns, "ip"] + args)
        #expect(r.status == 0, "ip \(args.joined(separator: " ")): \(r.stderr)")
    }

    func routeJSON(_ hosts: String...) throws -> ([[String: Any]], Int32) {
        let r = try run(TestPaths.which("ip")!, ["netns", "exec", ns, TestPaths.binary.path, "route", "--format", "json"] + hosts)
        let j = try json(r.stdout)
        return (try #require(j["routes"] as? [[String: Any]]), r.status)
    }

    @Test func routesGatewaysAndNoRoute() throws {
        _ = try run(TestPaths.which("ip")!, ["netns", "add", ns])
        defer { _ = try? run(TestPaths.which("ip")!, ["netns", "del", ns]) }
        try ip("link", "add", "name", "vc0", "type", "veth", "peer", "name", "vs0")
        try ip("link", "set", "vc0", "up")
        try ip("link", "set", "vs0", "up")
        try ip("addr", "add", "10.200.1.2/24", "dev", "vc0")
        try ip("neigh", "add", "10.200.1.98", "dev", "vc0", "lladdr", "02:00:00:00:00:98", "nud", "reachable")
        try ip("neigh", "add", "10.200.1.99", "dev", "vc0", "nud", "failed")
        try ip("route", "add", "10.66.0.0/16", "via", "10.200.1.98")
        try ip("route", "add", "10.55.0.0/16", "via", "10.200.1.99")

        let (ok, okStatus) = try routeJSON("10.66.0.1", "10.200.1.5")
        #expect(okStatus == 0)
        #expect(ok[0]["interface"] as? String == "vc0" && ok[0]["gateway"] as? String == "10.200.1.98" && ok[0]["gateway_state"] as? String == "reachable")
        #expect(ok[0]["source"] as? String == "10.200.1.2" && ok[0]["mtu"] as? Int == 1500 && ok[0]["vlan_id"] is NSNull)
        #expect(ok[1]["gateway"] is NSNull && ok[1]["interface"] as? String == "vc0", "on-link destination")

        let (failed, failedStatus) = try routeJSON("10.55.0.1")
        #expect(failed[0]["gateway_state"] as? String == "failed" && failedStatus == 2)

        // Take the route away: "no route" is critical.
        try ip("route", "del", "10.66.0.0/16")
        let (none, noneStatus) = try routeJSON("10.66.0.1")
        #expect(noneStatus == 2 && none[0]["interface"] is NSNull)
        let finding = try #require((none[0]["findings"] as? [[String: Any]])?.first)
        #expect(finding["check"] as? String == "route" && (finding["message"] as? String)?.contains("no route") == true)
        // No number was measured: value and threshold null, not a 0 that reads as one.
        #expect(finding["value"] is NSNull && finding["threshold"] is NSNull, "\(finding)")
    }

    /// #13.11: a gateway the kernel has no entry for yet is sent a datagram; a real one in
    /// another namespace answers ARP (reachable), an address nobody holds does not (failed,
    /// critical). The recording of the polling replays to the same report.
    @Test func unknownGatewaysAreAskedToResolve() throws {
        let peer = ns + "-gw"
        for n in [ns, peer] { _ = try run(TestPaths.which("ip")!, ["netns", "add", n]) }
        defer { for n in [ns, peer] { _ = try? run(TestPaths.which("ip")!, ["netns", "del", n]) } }
        try ip("link", "add", "name", "vc0", "type", "veth", "peer", "name", "vs0", "netns", peer)
        try ip("link", "set", "vc0", "up")
        try ip("addr", "add", "10.200.2.2/24", "dev", "vc0")
        let inPeer = ["netns", "exec", peer, "ip"]
        for args in [["link", "set", "vs0", "up"], ["link", "set", "lo", "up"], ["addr", "add", "10.200.2.1/24", "dev", "vs0"]] {
            #expect(try run(TestPaths.which("ip")!, inPeer + args).status == 0)
        }
        try ip("route", "add", "10.77.0.0/16", "via", "10.200.2.1")
        try ip("route", "add", "10.78.0.0/16", "via", "10.200.2.50")
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = dir.appendingPathComponent("route.pcap").path
        let live = try run(
            TestPaths.which("ip")!, ["netns", "exec", ns, TestPaths.binary.path, "route", "--format", "json", "--record", recording, "10.77.0.1", "10.78.0.1"])
        let routes = try #require(try json(live.stdout)["routes"] as? [[String: Any]])
        #expect(routes[0]["gateway_state"] as? String == "reachable", "\(routes[0])")
        #expect((routes[0]["gateway_resolution"] as? String)?.hasPrefix("sent it a datagram: reachable after") == true, "\(routes[0])")
        #expect(routes[1]["gateway_state"] as? String == "failed", "\(routes[1])")
        #expect((routes[1]["gateway_resolution"] as? String)?.contains("no answer to address resolution") == true, "\(routes[1])")
        #expect(live.status == 2, "a dead gateway is critical")
        // Known now: asked again, the kernel's entries answer at once, no datagram.
        let (again, _) = try routeJSON("10.77.0.1")
        #expect(again[0]["gateway_state"] as? String == "reachable" && again[0]["gateway_resolution"] is NSNull, "\(again[0])")
        // The replay reads the recorded polls by their times, to the same report.
        let replay = try pushdiag("route", "--format", "json", "--replay", recording, "10.77.0.1", "10.78.0.1")
        #expect(replay.stdout == live.stdout, "\(replay.stdout) \(replay.stderr)")
        let text = try pushdiag("route", "--replay", recording, "10.77.0.1", "10.78.0.1")
        #expect(text.stdout.contains("10.78.0.1: whether gateway 10.200.2.50 answers was not known; sent it a datagram: no answer"), "\(text.stdout)")
        // Ctrl-C while the resolution is awaited: what it showed so far, undecided (exit 3).
        try ip("neigh", "flush", "dev", "vc0")
        let script = "ip netns exec \(ns) '\(TestPaths.binary.path)' route 10.78.0.1 & p=$!; sleep 1; kill -INT $p; wait $p; echo status=$?"
        let stopped = try run("/bin/sh", ["-c", script])
        #expect(stopped.stdout.contains("status=3") && stopped.stdout.contains("sent it a datagram: interrupted after"), "\(stopped.stdout)")
        #expect(
            stopped.stderr.contains("interrupted: a gateway's address resolution was still awaited") && !stopped.stderr.contains("Fatal"), "\(stopped.stderr)")
    }

    @Test func unresolvableNamesAreUnknown() throws {
        let r = try pushdiag("route", "no-such-host.invalid")
        #expect(r.status == 3 && r.stderr.contains("cannot resolve no-such-host.invalid"))
    }

    /// A VLAN link recorded in the lab (rtnetlink replies from a real 802.1Q device), replayed.
    @Test func vlanFromTheLabRecording() throws {
        let fixture = TestPaths.fixtures.appendingPathComponent("lab-route-vlan.pcap").path
        let expected = try String(contentsOf: TestPaths.fixtures.appendingPathComponent("lab-route-vlan.json"), encoding: .utf8)
        let r = try pushdiag("route", "--replay", fixture, "--format", "json", "10.99.1.1")
        #expect(r.stdout == expected)
        let route = try #require((try json(r.stdout)["routes"] as? [[String: Any]])?.first)
        #expect(route["vlan_id"] as? Int == 20 && (route["devices"] as? [String])?.count == 2)
    }
}

/// route takes a push server as the other commands write it.
struct RouteArgumentTests {
    @Test func hostAndPortGiveTheHost() throws {
        let r = try pushdiag("route", "127.0.0.1:3000", "[::1]:3000", "--format", "json")
        let routes = try #require(try json(r.stdout)["routes"] as? [[String: Any]])
        #expect(r.status == 0 && routes.map { $0["destination"] as? String } == ["127.0.0.1", "::1"], "\(r.stdout)\(r.stderr)")
    }
}
