import Foundation
import PushdiagCore
import TestSupport
import Testing

@testable import PushdiagIO

/// The walk's rtnetlink part against the host's real kernel: a veth pair whose carrier, address
/// and existence change under `ip`; iproute2's own view of the addresses is the oracle, and the
/// recording made on the way replays to the same changes.
@Suite(.serialized, .enabled(if: Veth.works, "needs root and veth (ip link add … type veth)"))
struct WalkInterfaceTests {
    static let ip = TestPaths.which("ip")

    func ip(_ args: String...) throws {
        let r = try run(Self.ip!, args)
        #expect(r.status == 0, "ip \(args.joined(separator: " ")): \(r.stderr)")
    }

    /// The addresses iproute2 lists on `dev`, as "address/prefix"; not the tentative ones (the
    /// kernel announces an IPv6 address once duplicate address detection has passed).
    func ipAddresses(_ dev: String) throws -> Set<String> {
        let r = try run(Self.ip!, ["-j", "addr", "show", "dev", dev])
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        let info = list.flatMap { $0["addr_info"] as? [[String: Any]] ?? [] }
        return Set(info.compactMap { a in a["tentative"] as? Bool == true ? nil : (a["local"] as? String).map { "\($0)/\(a["prefixlen"] ?? "?")" } })
    }

    /// Waits (up to 5 s) for the watch to have seen `change`; the changes then.
    func await(_ watch: WalkInterfaceWatch, _ change: WalkInterfaceChange.Kind, after count: Int) -> [WalkInterfaceChange] {
        for _ in 0..<100 {
            let c = watch.changes
            if c.dropFirst(count).contains(where: { $0.change == change }) { return c }
            usleep(50_000)
        }
        return watch.changes
    }

    @Test func carrierAndAddressChangesAreTheKernels() throws {
        let a = "pdwalk\(getpid() % 10000)"
        let b = a + "p"
        try ip("link", "add", a, "type", "veth", "peer", "name", b)
        defer { _ = try? run(Self.ip!, ["link", "del", a]) }
        try ip("link", "set", a, "up")
        let index = try #require(
            UInt32(try String(contentsOfFile: "/sys/class/net/\(a)/ifindex", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let dir = try TestPaths.temporaryDirectory()
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { try? FileManager.default.removeItem(at: dir) } else { print(dir.path) } }
        let recording = dir.appendingPathComponent("rtnetlink.pcap").path
        let recorder = try NetlinkRecorder(path: recording)
        let transport = try LiveNetlink(protocol: Netlink.protocolRoute, recorder: recorder)
        let watch = try WalkInterfaceWatch(transport: transport, ifindex: index)
        watch.start()
        // The start-up state is the baseline, not a change: no carrier (the peer is down).
        #expect(watch.changes.isEmpty)
        #expect(watch.addresses == (try ipAddresses(a)))

        try ip("link", "set", b, "up")
        var seen = self.await(watch, .carrierUp, after: 0)
        #expect(seen.map(\.change).contains(.carrierUp), "\(seen)")
        var n = seen.count
        try ip("addr", "add", "10.213.7.1/24", "dev", a)
        seen = self.await(watch, .addressAdded, after: n)
        #expect(seen.dropFirst(n).contains { $0.change == .addressAdded && $0.address == "10.213.7.1/24" }, "\(seen)")
        usleep(300_000)  // IPv6's link-local address may still be on its way
        #expect(watch.addresses == (try ipAddresses(a)), "ours \(watch.addresses)")
        n = watch.changes.count
        try ip("addr", "del", "10.213.7.1/24", "dev", a)
        seen = self.await(watch, .addressRemoved, after: n)
        #expect(seen.dropFirst(n).contains { $0.change == .addressRemoved && $0.address == "10.213.7.1/24" }, "\(seen)")
        n = seen.count
        try ip("link", "set", b, "down")
        seen = self.await(watch, .carrierDown, after: n)
        #expect(seen.dropFirst(n).map(\.change).contains(.carrierDown), "\(seen)")
        n = seen.count
        try ip("link", "del", a)
        seen = self.await(watch, .interfaceRemoved, after: n)
        #expect(seen.last?.change == .interfaceRemoved, "\(seen)")
        // Carrier changes alternate, each announced once; times never go back.
        let carrier = seen.filter { [WalkInterfaceChange.Kind.carrierUp, .carrierDown].contains($0.change) }.map(\.change)
        #expect(carrier == [.carrierUp, .carrierDown], "\(carrier)")
        #expect(seen.map(\.timeNs) == seen.map(\.timeNs).sorted())
        watch.end()
        watch.done.wait()
        try recorder.close()

        // The recording gives the same changes through the same code.
        let replay = try WalkInterfaceWatch(transport: try ReplayNetlink(path: recording, protocol: Netlink.protocolRoute), ifindex: index)
        replay.run()
        #expect(replay.changes == seen)
        #expect(replay.failure == nil)
    }

    /// A resident follower's way (the exporter's, into its stalls): each change handed on as the
    /// kernel announces it, none kept.
    @Test func eachChangeIsHandedOnAndNoneKept() throws {
        let a = "pdhand\(getpid() % 10000)"
        try ip("link", "add", a, "type", "veth", "peer", "name", a + "p")
        defer { _ = try? run(Self.ip!, ["link", "del", a]) }
        let index = try #require(
            UInt32(try String(contentsOfFile: "/sys/class/net/\(a)/ifindex", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let watch = try WalkInterfaceWatch(transport: try LiveNetlink(protocol: Netlink.protocolRoute), ifindex: index)
        final class Handed: @unchecked Sendable {
            let lock = NSLock()
            var changes: [WalkInterfaceChange] = []
            var all: [WalkInterfaceChange] { lock.withLock { changes } }
        }
        let handed = Handed()
        watch.onChange = { c in handed.lock.withLock { handed.changes.append(c) } }
        watch.start()
        try ip("addr", "add", "10.213.8.1/24", "dev", a)
        try ip("addr", "del", "10.213.8.1/24", "dev", a)
        for _ in 0..<100 where handed.all.count < 2 { usleep(50_000) }
        watch.end()
        watch.done.wait()
        let got = handed.all
        #expect(got.map(\.change) == [.addressAdded, .addressRemoved] && got.allSatisfy { $0.address == "10.213.8.1/24" }, "\(got)")
        #expect(watch.changes.isEmpty, "\(watch.changes)")
    }
}

/// Whether this machine lets the tests make veth pairs.
enum Veth {
    static let works: Bool = {
        guard let ip = TestPaths.which("ip"), getuid() == 0 else { return false }
        let name = "pdprobe\(getpid() % 10000)"
        guard (try? run(ip, ["link", "add", name, "type", "veth", "peer", "name", name + "p"]))?.status == 0 else { return false }
        _ = try? run(ip, ["link", "del", name])
        return true
    }()
}
