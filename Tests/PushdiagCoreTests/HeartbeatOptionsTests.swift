import PushdiagCore
import Testing

/// The rules on a session's options, the same for heartbeat, load mode, the walk and the exporter.
struct HeartbeatOptionsTests {
    var o = HeartbeatOptions(endpoint: Endpoint(host: "push.example", port: 3000), proto: .simplepush)

    @Test func theDefaultsAreValid() throws {
        try o.validate()
        try o.validate(clients: 100)
    }

    @Test func theStormTakesTLSAndMQTTButNeedsClients() throws {
        var x = o
        x.proto = .mqtt
        x.tls = TLSOptions(serverName: "push.example")
        try x.validate(clients: 10, storm: true)
        #expect(throws: SettingsError.usage("--storm goes with --clients N")) { try o.validate(storm: true) }
        x.proto = .websocket
        #expect(throws: SettingsError.usage("--clients --storm works with simplepush, mqtt and line")) { try x.validate(clients: 10, storm: true) }
    }

    @Test func eachRuleNamesItsOption() {
        func refused(_ change: (inout HeartbeatOptions) -> Void, clients: Int? = nil) -> String? {
            var x = o
            change(&x)
            do throws(SettingsError) {
                try x.validate(clients: clients)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refused({ $0.count = 0 }) == "--count must be at least 1")
        #expect(refused({ $0.missesBeforeReconnect = 0 }) == "--misses must be at least 1")
        #expect(refused({ $0.frameCap = 8 }) == "--max-frame must be at least 16")
        #expect(refused({ $0.thresholds.lossWarning = .nan }) == "--loss-warning: 'nan' is not a number of 0 or more")
        #expect(refused({ $0.thresholds.rttWarningMs = 5000 }) == "--rtt-warning (5000) must not be above --rtt-critical (1000)")
        #expect(
            refused({
                $0.proto = .mqtt
                $0.register = "nurse"
            }) == "--register goes with --protocol simplepush")
        #expect(refused({ $0.proto = .websocket }, clients: 10) == "--clients works with simplepush and line")
        #expect(refused({ $0.tls = TLSOptions(serverName: "push.example") }, clients: 10) == "--clients does TLS only with --storm")
        #expect(refused({ _ in }, clients: 0) == "--clients must be at least 1")
        #expect(
            refused({
                $0.tls = TLSOptions(serverName: "h")
                $0.tls?.pin = "not-a-pin"
            })?.hasPrefix("--pin: 'not-a-pin' is not a base64 SHA-256") == true)
    }

    /// --tls and its companions as typed: every command's rule, in the flags' names.
    @Test func tlsCompanionsGoWithTLS() {
        let pin = String(repeating: "A", count: 43) + "="
        #expect(TLSOptions.flagsProblem(tls: false, insecure: false, pin: nil, caFile: nil) == nil)
        for (insecure, p, ca) in [(true, nil, nil), (false, pin, nil), (false, nil, "ca.pem")] as [(Bool, String?, String?)] {
            #expect(TLSOptions.flagsProblem(tls: false, insecure: insecure, pin: p, caFile: ca) == "--insecure, --pin and --ca-file go with --tls")
            #expect(TLSOptions.flagsProblem(tls: true, insecure: insecure, pin: p, caFile: ca) == nil)
        }
        #expect(TLSOptions.flagsProblem(tls: true, insecure: false, pin: "abc", caFile: nil)?.hasPrefix("--pin: 'abc' is not a base64 SHA-256") == true)
    }
}
