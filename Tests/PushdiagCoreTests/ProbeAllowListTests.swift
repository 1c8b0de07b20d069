import Testing

@testable import PushdiagCore

@Suite struct ProbeAllowListTests {
    func rule(_ text: String) throws -> ProbeAllowRule { try ProbeAllowRule(text) }

    func list(_ rules: [String], servers: [String] = []) throws -> ProbeAllowList {
        ProbeAllowList(servers: servers.map { Endpoint($0, defaultPort: nil)! }, rules: try rules.map(rule))
    }

    func target(_ text: String) -> Endpoint { Endpoint(text, defaultPort: nil)! }

    func refusal(_ v: ProbeAllowList.Verdict) -> ProbeRefusal? { if case .refused(let r) = v { r } else { nil } }

    func address(_ text: String) -> IPAddress { IPAddress(text)! }

    @Test func mappedAddressesReadAsTheyAreWritten() throws {
        let mapped = try #require(IPAddress("::ffff:10.40.3.4"))
        #expect(mapped.bytes == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 40, 3, 4] && mapped.description == "::ffff:10.40.3.4")
        #expect(mapped.unmapped == IPAddress("10.40.3.4") && IPAddress("::a28:304")?.unmapped == IPAddress("::a28:304"))
        #expect(IPAddress("64:ff9b::192.0.2.1")?.description == "64:ff9b::c000:201")
        for bad in ["::ffff:10.0.0", "::ffff:10.0.0.256", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4:5", "::ffff:1.2.3.4.5"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    /// Limits per client count a client by its address, a mapped IPv6 one by the IPv4 address
    /// it carries (as the same client over IPv4 would be counted).
    @Test func aClientIsItsAddressAMappedOneItsIPv4() throws {
        let cases: [(String, String)] = [
            ("10.40.3.4", "10.40.3.4"), ("::ffff:10.40.3.4", "10.40.3.4"), ("2001:db8:1:2:a:b:c:d", "2001:db8:1:2:a:b:c:d"),
            ("2001:db8:1:2::1", "2001:db8:1:2::1"), ("::1", "::1"), ("fe80::1", "fe80::1"),
        ]
        for (address, client) in cases { #expect(IPAddress(address)?.client == client, "\(address)") }
        #expect(IPAddress("2001:db8:1:2::1")?.client != IPAddress("2001:db8:1:2:ffff::9")?.client)
    }

    @Test func networksParseAndContain() throws {
        let n = try #require(try? IPNetwork.parse("10.40.0.0/16").get())
        #expect(n.contains(address("10.40.0.1")) && n.contains(address("10.40.255.255")))
        #expect(!n.contains(address("10.41.0.0")) && !n.contains(address("9.40.0.1")))
        #expect(n.contains(address("::ffff:10.40.3.4")), "an IPv4-mapped address is its IPv4 address")
        #expect(!n.contains(address("::a28:1")), "an IPv6 address is not in an IPv4 network")
        let odd = try IPNetwork.parse("10.1.0.0/17").get()
        #expect(odd.contains(address("10.1.127.255")) && !odd.contains(address("10.1.128.0")), "a prefix that is not a whole byte")
        let v6 = try IPNetwork.parse("2001:db8::/32").get()
        #expect(v6.contains(address("2001:db8:ffff::1")) && !v6.contains(address("2001:db9::1")) && !v6.contains(address("10.0.0.1")))
        let one = try IPNetwork.parse("10.1.2.3").get()
        #expect(one.prefixLength == 32 && one.contains(address("10.1.2.3")) && !one.contains(address("10.1.2.4")))
        #expect(try IPNetwork.parse("::1").get().prefixLength == 128)
        let all = try IPNetwork.parse("0.0.0.0/0").get()
        #expect(all.contains(address("192.0.2.1")) && !all.contains(address("::1")))
        let mapped = try IPNetwork.parse("::ffff:10.0.0.0/104").get()
        #expect(mapped.contains(address("10.9.9.9")) && !mapped.contains(address("11.0.0.1")), "a mapped network is its IPv4 one")
        for (text, says) in [
            ("10.40.1.0/16", "bits are set past the /16 prefix (10.40.0.0/16?)"), ("10.0.0.0/33", "from 0 to 32"), ("2001:db8::/129", "from 0 to 128"),
            ("10.0.0.0/", "prefix length ''"), ("10.0.0.0/+8", "'+8'"), ("10.0.0/8", "'10.0.0' is not an IPv4 or IPv6 address"),
            ("2001:db8::1/32", "(2001:db8::/32?)"),
        ] {
            switch IPNetwork.parse(text) {
            case .success(let n): Issue.record("\(text) accepted as \(n)")
            case .failure(let p): #expect(p.description.contains(says), "\(text): \(p)")
            }
        }
    }

    @Test func entriesParse() throws {
        let cidr = try rule("10.40.0.0/16")
        #expect(cidr.network?.description == "10.40.0.0/16" && cidr.ports == nil && cidr.allows(port: 1) && cidr.allows(port: 65_535))
        let range = try rule("10.1.2.3:3000-3010")
        #expect(range.network?.prefixLength == 32 && range.ports == 3000...3010)
        #expect(range.allows(port: 3000) && range.allows(port: 3010) && !range.allows(port: 2999) && !range.allows(port: 3011))
        #expect(try rule("10.40.0.0/16:443").ports == 443...443)
        #expect(try rule("2001:db8::/32").network?.description == "2001:db8::/32")
        let bracketed = try rule("[2001:db8::/32]:3000-3001")
        #expect(bracketed.network?.prefixLength == 32 && bracketed.ports == 3000...3001)
        #expect(try rule("[::1]:3000").network?.description == "::1/128")
        let glob = try rule("push-*.Ward-B.internal.:3000")
        #expect(glob.hosts == .names(["push-*", "ward-b", "internal"]) && glob.ports == 3000...3000 && glob.description == "push-*.Ward-B.internal.:3000")
        #expect(try rule("*.ward-b.internal:1-65535").ports == 1...65_535)
        #expect(try rule("localhost:9").hosts == .names(["localhost"]))
    }

    @Test func badEntriesSayWhy() {
        for (text, says) in [
            ("", "no network or host name"), (":3000", "no network or host name"), ("10.0.0.0/33", "from 0 to 32"),
            ("10.40.1.0/16", "(10.40.0.0/16?)"), ("10.1.2.3:0", "'0' is not a port"), ("10.1.2.3:70000", "'70000'"), ("10.1.2.3:3010-3000", "'3010-3000'"),
            ("10.1.2.3:", "'' is not a port"), ("10.1.2.3:30a", "'30a'"), ("10.1.2.3:-5", "'-5'"), ("push.ward-b.internal", "needs a port"),
            ("*:3000", "matches any name"), ("*.*:3000", "matches any name"), ("10.1.2.*:3000", "write a network"), ("push ward:3000", "not a network"),
            ("push..internal:3000", "not a network"), ("[2001:db8::/32", "no ']'"), ("[2001:db8::/32]3000", "expected ':PORT'"),
            ("[push.internal]:3000", "brackets hold an IPv6 network"), ("2001:db8::/32:3000", "goes in brackets, as [2001:db8::/32]:443"),
            ("10.0.0.0/8:3000:1", "prefix length '8:3000:1'"), ("push.internal:*", "'*' is not a port"), ("10.0.0.300", "not an IPv4 or IPv6 address"),
            ("ünïcode.internal:1", "not a network"),
        ] {
            do {
                let r = try ProbeAllowRule(text)
                Issue.record("\(text) accepted as \(r.hosts) \(String(describing: r.ports))")
            } catch {
                #expect(error.entry == text && error.description.hasPrefix("'\(text)': ") && error.why.contains(says), "\(text): \(error)")
            }
        }
    }

    @Test func globsMatchWithinALabel() throws {
        let r = try rule("push-*.ward-b.internal:3000")
        for name in ["push-1.ward-b.internal", "push-.ward-b.internal", "push-a-b.ward-b.internal"] { #expect(r.matches(name: name), "\(name)") }
        for name in ["push-1.x.ward-b.internal", "push.ward-b.internal", "xpush-1.ward-b.internal", "push-1.ward-b.internal.evil", "ward-b.internal"] {
            #expect(!r.matches(name: name), "\(name)")
        }
        let middle = try rule("a*b*c.example:1")
        #expect(middle.matches(name: "abc.example") && middle.matches(name: "axxbyyc.example") && middle.matches(name: "abcbc.example"))
        #expect(!middle.matches(name: "acb.example") && !middle.matches(name: "abcd.example"))
        let any = try rule("*.example:1")
        #expect(any.matches(name: "anything.example") && !any.matches(name: "a.b.example") && !any.matches(name: "example"))
        #expect(try rule("10.0.0.0/8").matches(name: "ten.example") == false)
    }

    @Test func byDefaultOnlyTheServersAreAllowed() throws {
        let l = try list([], servers: ["push.ward-b.internal:3000", "10.0.0.5:3000", "[2001:db8::5]:443"])
        #expect(l.check(target("push.ward-b.internal:3000")) == .allowed(address: nil))
        #expect(l.check(target("PUSH.Ward-B.internal.:3000")) == .allowed(address: nil), "names without case or a final dot")
        #expect(l.check(target("10.0.0.5:3000")) == .allowed(address: nil))
        #expect(l.check(target("[::ffff:10.0.0.5]:3000")) == .allowed(address: nil), "addresses as addresses")
        #expect(l.check(target("[2001:db8:0::5]:443")) == .allowed(address: nil))
        for (t, why) in [
            ("push.ward-b.internal:3001", "not a configured push server and outside probe_allow"),
            ("10.0.0.6:3000", "not a configured push server and outside probe_allow"),
            ("localhost:3000", "not a configured push server and outside probe_allow"),
        ] {
            let r = try #require(refusal(l.check(target(t))), "\(t)")
            #expect(r.reason == .notAllowed && r.description == "target \(t) is not allowed: \(why)", "\(r)")
        }
        // A server named by its name is not its address: that needs a rule.
        #expect(refusal(try list([], servers: ["localhost:3000"]).check(target("127.0.0.1:3000"))) != nil)
    }

    @Test func addressesAreCheckedAgainstNetworksAndPorts() throws {
        let l = try list(["10.40.0.0/16", "10.1.2.3:3000-3010", "[2001:db8::/32]:443"])
        #expect(l.check(target("10.40.7.7:22")) == .allowed(address: address("10.40.7.7")))
        #expect(l.check(target("10.1.2.3:3005")) == .allowed(address: address("10.1.2.3")))
        #expect(l.check(target("[2001:db8::9]:443")) == .allowed(address: address("2001:db8::9")))
        let port = try #require(refusal(l.check(target("10.1.2.3:22"))))
        #expect(port.reason == .notAllowed)
        #expect(
            port.description == "target 10.1.2.3:22 is not allowed: not a configured push server, and probe_allow's 10.1.2.3:3000-3010 does not allow port 22")
        let v6port = try #require(refusal(l.check(target("[2001:db8::9]:80"))))
        #expect(v6port.why.contains("[2001:db8::/32]:443 does not allow port 80"), "\(v6port)")
        let outside = try #require(refusal(l.check(target("10.9.9.9:22"))))
        #expect(outside.description == "target 10.9.9.9:22 is not allowed: not a configured push server and outside probe_allow")
        #expect(refusal(l.check(target("[2001:db9::1]:443")))?.reason == .notAllowed)
    }

    @Test func namesAreAllowedByNameRulesOrByEveryAddress() throws {
        let l = try list(["push-*.ward-b.internal:3000", "10.0.0.0/8", "192.168.1.0/24:3000"])
        #expect(l.check(target("push-2.ward-b.internal:3000")) == .allowed(address: nil), "a name rule: not resolved")
        // No name rule: resolve, and every address must be allowed with the port.
        let name = target("push.elsewhere.internal:3000")
        #expect(l.check(name) == .resolve)
        #expect(l.check(name, resolved: .success([address("10.1.1.1"), address("192.168.1.9")])) == .success(address("10.1.1.1")))
        let mixed = l.check(name, resolved: .success([address("10.1.1.1"), address("127.0.0.1")]))
        #expect(mixed.failure?.reason == .resolvedOutside)
        #expect(
            mixed.failure?.description
                == "target push.elsewhere.internal:3000 is not allowed: not a configured push server nor a probe_allow name, and it resolves to 127.0.0.1, outside probe_allow's networks for port 3000"
        )
        // 192.168.1.0/24 allows 3000 only: on 22 only 10/8 counts.
        let ssh = target("push.elsewhere.internal:22")
        #expect(l.check(ssh) == .resolve)
        #expect(l.check(ssh, resolved: .success([address("192.168.1.9")])).failure?.reason == .resolvedOutside)
        #expect(l.check(ssh, resolved: .success([address("::ffff:10.2.3.4")])) == .success(address("::ffff:10.2.3.4")))
        let unresolved = l.check(name, resolved: .failure(.resolve(host: "push.elsewhere.internal", reason: "Name or service not known")))
        #expect(unresolved.failure?.reason == .unresolved && unresolved.failure?.why.hasSuffix("it does not resolve (Name or service not known)") == true)
        #expect(l.check(name, resolved: .success([])).failure?.reason == .unresolved)
        // A name a rule matches on another port is resolved too (10/8 allows every port).
        #expect(l.check(target("push-2.ward-b.internal:22")) == .resolve)
        // A host that is no name is refused at once.
        #expect(refusal(l.check(target("push%2Fx:3000")))?.why == "not a host name or address")
    }

    @Test func aNameNoNetworkCouldAllowIsNotResolved() throws {
        let names = try list(["push-*.ward-b.internal:3000"])
        let r = try #require(refusal(names.check(target("localhost:3000"))))
        #expect(r.reason == .notAllowed && r.why == "not a configured push server and outside probe_allow")
        let port = try #require(refusal(names.check(target("push-1.ward-b.internal:22"))))
        #expect(port.why == "not a configured push server, and probe_allow's push-*.ward-b.internal:3000 does not allow port 22")
        let narrow = try list(["10.0.0.0/8:3000"])
        let p = try #require(refusal(narrow.check(target("localhost:22"))))
        #expect(p.reason == .notAllowed && p.why == "not a configured push server nor a probe_allow name, and no probe_allow network allows port 22")
        #expect(narrow.check(target("localhost:3000")) == .resolve)
    }

    @Test func theExporterSectionTakesTheList() throws {
        let c = try ConfigParser.parse(
            """
            [exporter]
            probe_allow = ["10.40.0.0/16", "push-*.ward-b.internal:3000", "10.1.2.3:3000-3010"]
            [[server]]
            host = "push.ward-b.internal"
            port = 3000
            """, file: "p.toml")
        #expect(c.exporter.probeAllow?.map(\.text) == ["10.40.0.0/16", "push-*.ward-b.internal:3000", "10.1.2.3:3000-3010"])
        let s = try ExporterSettings.resolve(ExporterFlags(), config: c, file: "p.toml")
        #expect(s.probeTargets.servers == [Endpoint(host: "push.ward-b.internal", port: 3000)] && s.probeTargets.rules.count == 3)
        // --server replaces the configured servers, for /probe too.
        var f = ExporterFlags()
        f.survey.servers = ["10.9.0.1:4000"]
        let flagged = try ExporterSettings.resolve(f, config: c, file: "p.toml")
        #expect(flagged.probeTargets.servers == [Endpoint(host: "10.9.0.1", port: 4000)])
        #expect(try ExporterSettings.resolve(ExporterFlags(), config: PushdiagConfig(), file: nil).probeAllow.isEmpty)
        for (text, says) in [
            ("[exporter]\nprobe_allow = [\"10.0.0.0/8\", \"10.40.1.0/16\"]\n", "p.toml:2: exporter.probe_allow: '10.40.1.0/16': bits are set past"),
            ("[exporter]\nprobe_allow = \"10.0.0.0/8\"\n", "p.toml:2: exporter.probe_allow: expected an array"),
            ("[exporter]\nprobe_allow = [10]\n", "exporter.probe_allow: expected strings, found"),
            ("[exporter]\n\nprobe_allow = [\"push.internal\"]\n", "p.toml:3: exporter.probe_allow: 'push.internal': a host-name rule needs a port"),
        ] {
            #expect(throws: ConfigError.self, "\(text)") { try ConfigParser.parse(text, file: "p.toml") }
            do { _ = try ConfigParser.parse(text, file: "p.toml") } catch { #expect(error.description.contains(says), "\(text): \(error)") }
        }
    }
}

extension Result {
    fileprivate var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}
