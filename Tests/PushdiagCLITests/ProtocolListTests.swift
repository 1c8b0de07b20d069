import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// Every protocol of `HeartbeatProtocol.allCases` goes through every place that takes one: the
/// configuration file, `--protocol`, /probe, help, the modes' validation and the responder. A
/// protocol added to the list that one of them does not take fails here.
@Suite(.serialized)
struct ProtocolListTests {
    @Test(arguments: HeartbeatProtocol.allCases)
    func everyPlaceTakesTheProtocol(proto: HeartbeatProtocol) throws {
        let name = proto.rawValue
        #expect(HeartbeatProtocol(rawValue: name) == proto && HeartbeatProtocol.allCases.filter { $0.rawValue == name }.count == 1, "one name, once")

        // The configuration file, and its register key only where the protocol registers.
        let config = try ConfigParser.parse("[[server]]\nhost = \"h\"\nport = 7\nprotocol = \"\(name)\"\n", file: "p.toml")
        #expect(config.servers.first?.proto == name)
        let registering = "[[server]]\nhost = \"h\"\nport = 7\nprotocol = \"\(name)\"\nregister = \"u\"\n"
        if proto.modes.contains(.register) {
            #expect(try ConfigParser.parse(registering, file: "p.toml").servers.first?.register == "u")
        } else {
            #expect(throws: ConfigError.self) { try ConfigParser.parse(registering, file: "p.toml") }
        }

        // /probe.
        let probe = try ProbeRequest.parse(query: "target=127.0.0.1:7&protocol=\(name)")
        #expect(probe.options.proto == proto)

        // The modes' rules.
        var o = HeartbeatOptions(endpoint: Endpoint(host: "h", port: 7), proto: proto)
        #expect(((try? o.validate(clients: 2)) != nil) == proto.modes.contains(.load))
        #expect(((try? o.validate(clients: 2, storm: true)) != nil) == proto.modes.contains(.storm))
        o.register = "u"
        #expect(((try? o.validate()) != nil) == proto.modes.contains(.register))

        // Help names it, with its own line.
        let help = try pushdiag("heartbeat", "--help")
        #expect(help.stdout.replacingOccurrences(of: "\n", with: " ").contains(name), "\(help.stdout)")

        // The responder serves it (and `heartbeat --protocol` holds a connection to it), or
        // refuses it at once; a protocol that holds no connection is checked against any port
        // that accepts.
        let port = freePort()
        let served = proto.modes.contains(.serve) ? name : HeartbeatProtocol.simplepush.rawValue
        let responder = try pushdiag("responder", "--help")
        #expect(responder.stdout.contains(name) == proto.modes.contains(.serve), "\(responder.stdout)")
        let server = try Background(TestPaths.binary.path, ["responder", "--listen", "127.0.0.1:\(port)", "--protocol", served])
        defer { server.stop() }
        #expect(server.wait(for: "listening on"), "responder did not start: \(server.output)")
        let r = try pushdiag("heartbeat", "127.0.0.1:\(port)", "--protocol", name, "--count", "2", "--interval", "20ms", "--format", "json")
        let j = try json(r.stdout)
        #expect(j["protocol"] as? String == name)
        if proto.modes.contains(.serve) || !proto.modes.contains(.holdsConnection) {
            #expect(r.status == 0 && j["received"] as? Int == 2, "\(r.stdout) \(r.stderr)")
        } else {
            let refused = try pushdiag("responder", "--listen", "127.0.0.1:\(freePort())", "--protocol", name)
            #expect(refused.status == 3, "\(refused.stderr)")
            #expect(r.status == 2, "a simplepush server does not answer \(name): \(r.stdout)")
        }
    }

    /// A protocol's own setting given for another protocol does nothing, so every place refuses
    /// it: heartbeat's flags (walk's and join's are the same group), the responder's, a
    /// [[server]] table and /probe. One the protocol reads gets past them.
    @Test(arguments: HeartbeatProtocol.allCases)
    func aSettingTheProtocolDoesNotReadIsRefused(proto: HeartbeatProtocol) throws {
        let name = proto.rawValue
        let values: [PushSetting: String] = [.byteOrder: "big", .send: "X", .expect: "X", .path: "/x", .keepAlive: "5", .maxFrame: "100", .reply: "X"]
        for setting in PushSetting.allCases where setting != .reply {
            let r = try pushdiag("heartbeat", "nowhere.invalid:7", "--protocol", name, setting.flag, values[setting]!, "--count", "1")
            let first = r.stderr.split(separator: "\n").first.map(String.init) ?? ""
            if proto.settings.contains(setting) {
                #expect(!r.stderr.contains("goes with"), "\(name) \(setting.flag): \(r.stderr)")
            } else {
                #expect(
                    r.status == 3 && first.contains("\(setting.flag) goes with --protocol ") && first.hasSuffix("not with \(name)"),
                    "\(name) \(setting.flag): \(r.stderr)")
            }
        }
        // A protocol that holds no connection (tcp: each heartbeat is a connect) has no answer to
        // wait for, nothing to lose and nothing to leave idle.
        for args in [["--timeout", "1s"], ["--misses", "2"], ["--reconnect-schedule", "0.1"], ["--find-idle-timeout"]] {
            let r = try pushdiag(["heartbeat", "nowhere.invalid:7", "--protocol", name] + args)
            if proto.modes.contains(.holdsConnection) {
                #expect(!r.stderr.contains("Error:"), "\(name) \(args[0]): \(r.stderr)")
            } else {
                #expect(
                    r.status == 3 && r.stderr.contains("\(args[0]) goes with --protocol ") && r.stderr.contains("not with \(name)"),
                    "\(name) \(args[0]): \(r.stderr)")
            }
        }
        // walk and join take the same options, refused the same way.
        if !proto.modes.contains(.holdsConnection) {
            for (command, flag) in [("walk", "--misses"), ("join", "--timeout")] {
                let r = try pushdiag(command, "nowhere.invalid:7", "--interface", "lo", "--protocol", name, flag, "2")
                #expect(r.status == 3 && r.stderr.contains("\(flag) goes with --protocol "), "\(command) \(name) \(flag): \(r.stderr)")
            }
        }
        if let setting = PushSetting.allCases.first(where: { $0 != .reply && !proto.settings.contains($0) }) {
            let r = try pushdiag("walk", "nowhere.invalid:7", "--interface", "lo", "--protocol", name, setting.flag, values[setting]!)
            #expect(r.status == 3 && r.stderr.contains("\(setting.flag) goes with --protocol "), "walk \(name) \(setting.flag): \(r.stderr)")
        }
        if proto.modes.contains(.serve) {
            for (flag, value, reads) in [
                ("--byte-order", "big", proto.settings.contains(.byteOrder)), ("--reply", "X", proto.settings.contains(.reply)),
                ("--heartbeat-interval", "1s", proto.modes.contains(.register)),
            ] where !reads {
                let r = try pushdiag("responder", "--listen", "127.0.0.1:\(freePort())", "--protocol", name, flag, value)
                #expect(r.status == 3 && r.stderr.contains("\(flag) goes with --protocol "), "responder \(name) \(flag): \(r.stderr)")
            }
        }
        let table = "[[server]]\nhost = \"h\"\nport = 7\nprotocol = \"\(name)\"\npath = \"/x\"\n"
        let probe = "target=127.0.0.1:7&protocol=\(name)&path=/x"
        if proto.settings.contains(.path) {
            #expect(try ConfigParser.parse(table, file: "p.toml").servers.first?.path == "/x")
            #expect(try ProbeRequest.parse(query: probe).options.path == "/x")
        } else {
            let refused = #expect(throws: ConfigError.self) { try ConfigParser.parse(table, file: "p.toml") }
            #expect(
                refused.map { "\($0)" }?.contains("server.path: goes with protocol = \"websocket\", not \"\(name)\"") == true, "\(String(describing: refused))")
            #expect(throws: SettingsError.usage("path goes with protocol=websocket, not \(name)")) { try ProbeRequest.parse(query: probe) }
        }
    }

    /// The client and server machines of each served protocol agree on bytes alone.
    @Test(arguments: HeartbeatProtocol.with(.serve))
    func clientAndServerAgree(proto: HeartbeatProtocol) throws {
        var o = HeartbeatOptions(endpoint: Endpoint(host: "h", port: 7), proto: proto)
        o.register = proto.modes.contains(.register) ? "u" : nil
        var client = proto.definition.client(o, clientID: "c")
        var server = try #require(proto.definition.server(PushServerSettings()))
        func exchange(_ bytes: [UInt8]) throws -> [PushClientEvent] {
            var events: [PushClientEvent] = []
            for action in try server.receive(bytes[...]) {
                switch action {
                case .answer(let b), .send(let b, _): events += try client.receive(b[...])
                case .registered: break
                }
            }
            return events
        }
        if let hello = client.hello() { #expect(try exchange(hello).contains(.opened)) }
        if let name = o.register, let bytes = client.register(name) { #expect(try exchange(bytes).contains(.registered)) }
        for n in 1...3 { #expect(try exchange(client.heartbeat(n)) == [.answered], "heartbeat \(n)") }
    }
}
