import PushdiagCore
import Testing

/// Flags over the configuration over the defaults, checked once for survey, report and config check.
struct SurveySettingsTests {
    func config(_ text: String) throws -> PushdiagConfig { try ConfigParser.parse(text, file: "site.toml") }

    @Test func defaultsWhenNothingIsGiven() throws {
        let s = try SurveySettings.resolve(SurveyFlags(), config: PushdiagConfig(), file: nil)
        #expect(s.seconds == 30 && s.servers.isEmpty && s.interface == nil && s.thresholds == SurveyThresholds())
    }

    @Test func flagsWinOverTheConfigurationWhichWinsOverTheDefaults() throws {
        let c = try config(
            """
            interface = "wlan1"
            duration = "10s"
            [[server]]
            host = "push.example"
            port = 5223
            tls = true
            pin = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            [thresholds]
            utilization_critical = "50"
            loss_warning = "2"
            """)
        var f = SurveyFlags()
        f.duration = "5s"
        f.thresholds["loss_warning"] = "3"
        let s = try SurveySettings.resolve(f, config: c, file: "site.toml")
        #expect(s.interface == "wlan1" && s.seconds == 5)
        #expect(s.thresholds[.utilization].critical == ThresholdRange("50") && s.thresholds[.loss].warning == ThresholdRange("3"))
        #expect(s.thresholds[.rtt].critical == SurveyThresholds()[.rtt].critical, "untouched keys keep their defaults")
        let server = try #require(s.servers.first)
        #expect(server.endpoint == Endpoint(host: "push.example", port: 5223) && server.tls?.pin?.count == 44 && server.proto == .simplepush)
        // Servers on the command line replace the configured ones, and one named twice is checked once.
        f.servers = ["10.0.0.1:3000", "10.0.0.1:3000", "10.0.0.2"]
        let flagged = try SurveySettings.resolve(f, config: c, file: "site.toml")
        #expect(flagged.servers.map(\.endpoint.description) == ["10.0.0.1:3000", "10.0.0.2:3000"])
        #expect(SurveyReport.routeHosts(flagged.servers + flagged.servers) == ["10.0.0.1", "10.0.0.2"])
    }

    /// The capture part has one source of frames: --capture wins over the configuration's
    /// monitor (it was dropped whenever a monitor was set), and both flags are refused.
    @Test func aCaptureFlagWinsOverTheConfiguredMonitor() throws {
        let c = try config("monitor = \"mon0\"\n")
        #expect(try SurveySettings.resolve(SurveyFlags(), config: c, file: "site.toml").monitor == "mon0")
        var f = SurveyFlags()
        f.capture = "ward-3.pcap"
        let s = try SurveySettings.resolve(f, config: c, file: "site.toml")
        #expect(s.monitor == nil && s.capture == "ward-3.pcap")
        f.monitor = "mon1"
        #expect(throws: SettingsError.usage("--monitor and --capture: one of them (a live monitor, or a file)")) { try SurveySettings.validate(f) }
    }

    /// The safe_interval limits grade a join's limits and a server's idle timeout: with neither
    /// they would say nothing and are refused; a configured idle_timeout is enough.
    @Test func safeIntervalLimitsNeedSomethingToGrade() throws {
        var f = SurveyFlags()
        f.thresholds["safe_interval_warning"] = "40"
        #expect(
            throws: SettingsError.usage(
                "--safe-interval-warning goes with --join-limits (or join_limits in the configuration) or a server's idle_timeout: it grades against the limits a join found or the path's idle timeout"
            )
        ) { try SurveySettings.resolve(f, config: PushdiagConfig(), file: nil) }
        let c = try config("[[server]]\nhost = \"push.example\"\nregister = \"ward-3\"\nidle_timeout = \"5m\"\n")
        let s = try SurveySettings.resolve(f, config: c, file: "site.toml")
        #expect(s.thresholds[.safeInterval].warning == ThresholdRange("40") && s.servers.first?.idleTimeoutS == 300)
    }

    @Test func badFlagsNameTheFlag() {
        var f = SurveyFlags()
        f.thresholds["rtt_critical"] = "fast"
        #expect(throws: SettingsError.usage("--rtt-critical: 'fast' is not a range or a number (examples: 200 alerts above 200; 10:200, ~:200, @10:20)")) {
            try SurveySettings.validate(f)
        }
        f = SurveyFlags()
        f.duration = "0.5s"
        #expect(throws: SettingsError.usage("--duration: '0.5s' is shorter than the smallest allowed, 1s")) { try SurveySettings.validate(f) }
        f = SurveyFlags()
        f.proto = .line
        f.servers = ["10.0.0.1"]
        #expect(throws: SettingsError.usage("--server: '10.0.0.1' is not HOST:PORT (the line protocol has no default port)")) { try SurveySettings.validate(f) }
        // --protocol and --tls without --server would shape nothing.
        let alone = SettingsError.usage("--protocol and --tls go with --server (a configured [[server]] has its own protocol and tls keys)")
        f.servers = []
        #expect(throws: alone) { try SurveySettings.validate(f) }
        f = SurveyFlags()
        f.tls = true
        #expect(throws: alone) { try SurveySettings.validate(f) }
        f.servers = ["10.0.0.1:5223"]
        #expect(throws: Never.self) { try SurveySettings.validate(f) }
    }

    /// A configured server the survey could not use is refused with its line, for config check too.
    @Test func aConfiguredServerWithoutAPortIsNamedByItsLine() throws {
        let c = try config("interface = \"wlan0\"\n\n[[server]]\nhost = \"10.0.0.9\"\nprotocol = \"line\"\n")
        #expect(
            throws: SettingsError.config(
                ConfigError(file: "site.toml", line: 3, key: "server.port", message: "server 10.0.0.9: no port, and the line protocol has no default port"))
        ) {
            try SurveySettings.resolve(SurveyFlags(), config: c, file: "site.toml")
        }
    }
}

/// TLS for push servers given as flags, and pins in the configuration: checked as heartbeat checks them.
struct SurveyTLSSettingsTests {
    let pin = "Ukx6U8fWQ2v1cW1wY2hYb2dFZ1ZPU3ZQbHBUc2RRcWY="

    @Test func tlsFlagsReachTheServers() throws {
        var f = SurveyFlags()
        f.servers = ["push.example:5223"]
        f.tls = true
        f.insecure = true
        f.pin = pin
        f.caFile = "/etc/site-ca.pem"
        let s = try SurveySettings.resolve(f, config: PushdiagConfig(), file: nil)
        let tls = try #require(s.servers.first?.tls)
        #expect(!tls.verify && tls.pin == pin && tls.caFile == "/etc/site-ca.pem" && tls.serverName == "push.example")
        f.tls = false
        #expect(throws: SettingsError.usage("--insecure, --pin and --ca-file go with --tls")) { try SurveySettings.validate(f) }
        f.tls = true
        f.pin = "abc="
        #expect(throws: SettingsError.self) { try SurveySettings.validate(f) }
    }

    @Test func configuredPinsAreCheckedWithTheirLine() {
        #expect(
            throws: ConfigError(
                file: "site.toml", line: 5, key: "server.pin", message: "'short=' is not a base64 SHA-256 (44 characters, the key's SubjectPublicKeyInfo hash)")
        ) {
            try ConfigParser.parse("[[server]]\nhost = \"h\"\nport = 1\ntls = true\npin = \"short=\"\n", file: "site.toml")
        }
        #expect(throws: ConfigError.self) { try ConfigParser.parse("[[server]]\nhost = \"h\"\npin = \"\(pin)\"\n", file: "site.toml") }
        #expect((try? ConfigParser.parse("[[server]]\nhost = \"h\"\ntls = true\npin = \"\(pin)\"\n", file: "site.toml")) != nil)
    }
}
