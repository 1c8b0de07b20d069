import PushdiagCore
import Testing

@Suite struct ExporterSettingsTests {
    @Test func probeQueriesBecomeHeartbeatOptions() throws {
        let r = try ProbeRequest.parse(query: "target=push.example%2Einternal:3001&protocol=simplepush&count=5&interval=50ms&timeout=2s", scrapeTimeout: "4")
        #expect(r.options.endpoint == Endpoint(host: "push.example.internal", port: 3001))
        #expect(r.options.count == 5 && r.options.intervalMs == 50 && r.options.timeoutMs == 2000)
        #expect(r.budgetSeconds == 3.5)
        let tls = try ProbeRequest.parse(query: "target=h&protocol=mqtt&tls=1&insecure=true")
        #expect(tls.options.endpoint.port == 8883 && tls.options.tls?.verify == false && tls.options.tls?.serverName == "h")
        // A scrape timeout bounds every wait.
        let short = try ProbeRequest.parse(query: "target=h:1&timeout=30s", scrapeTimeout: "2")
        #expect(short.options.connectTimeoutMs == 1500 && short.options.timeoutMs == 1500)
        #expect(try ProbeRequest.parse(query: "target=h:1", scrapeTimeout: "nan").budgetSeconds == ProbeRequest.defaultBudget)
        // The header is the caller's word: a probe holds a slot for 120 s at the most.
        let long = try ProbeRequest.parse(query: "target=h:1&count=20&interval=3600s", scrapeTimeout: "1e9")
        #expect(long.budgetSeconds == ProbeRequest.mostBudget && ProbeRequest.mostBudget == 120, "\(long.budgetSeconds)")
        #expect(try ProbeRequest.parse(query: "target=h:1", scrapeTimeout: "60").budgetSeconds == 59.5)
        #expect(try ProbeRequest.parse(query: "target=h&protocol=websocket&path=/push%3Fdevice%3D7").options.path == "/push?device=7")
    }

    @Test func badProbeQueriesNameTheParameter() {
        for (q, says) in [
            ("", "target is missing"), ("target=h&protocol=line", "has no default port"), ("target=h:0", "not HOST:PORT"), ("target=h:1&target=g:1", "twice"),
            ("target=h:1&count=21", "count"), ("target=h:1&tls=maybe", "tls: 'maybe'"), ("target=h:1&interval=0", "interval"),
            ("target=%e2%28%a1", "percent-encoded"), ("target=h:1&protocol=tcp&pin=x", "go with tls=1"),
            ("target=h:1&tls=1&pin=x", "pin: 'x' is not a base64 SHA-256"),
            // A path that would end the upgrade's request line and start another request.
            ("target=h&protocol=websocket&path=/x%20HTTP/1.1%0D%0AHost:a%0D%0A%0D%0ADELETE%20/admin", "path: only printable ASCII"),
            ("target=h&protocol=websocket&path=x", "path: 'x' does not start with /"),
        ] {
            #expect(throws: SettingsError.self, "\(q)") { _ = try ProbeRequest.parse(query: q, scrapeTimeout: nil) }
            do {
                _ = try ProbeRequest.parse(query: q)
            } catch {
                #expect(error.description.contains(says), "\(q): \(error)")
                // A parameter is named as a parameter, never as a flag.
                #expect(!error.description.contains("--"), "\(q): \(error)")
            }
        }
    }

    @Test func flagsWinOverTheExporterSection() throws {
        let c = try ConfigParser.parse(
            """
            interface = "wlan0"
            [exporter]
            listen = "127.0.0.1:9999"
            interfaces = ["wlan1", "wlan2", "wlan1"]
            interval = "30s"
            max_probes = 8
            [[server]]
            host = "push.example.internal"
            register = "ward-b"
            idle_timeout = "5m"
            """, file: "p.toml")
        var s = try ExporterSettings.resolve(ExporterFlags(), config: c, file: "p.toml")
        #expect(s.listen == Endpoint(host: "127.0.0.1", port: 9999))
        #expect(s.interfaces == ["wlan1", "wlan2"])
        #expect(s.heartbeatIntervalSeconds == 30 && s.wifiIntervalSeconds == 15 && s.maxProbes == 8)
        #expect(s.servers.first?.register == "ward-b" && s.sessionOptions(s.servers[0]).register == "ward-b")
        #expect(s.sessionOptions(s.servers[0]).intervalMs == 30_000)
        #expect(s.sessionOptions(s.servers[0]).pathIdleTimeoutS == 300, "idle_timeout reaches the held session")
        var f = ExporterFlags()
        f.listen = ":9100"
        f.interfaces = ["wlp3s0"]
        f.interval = "5s"
        s = try ExporterSettings.resolve(f, config: c, file: "p.toml")
        #expect(s.listen == Endpoint(host: "::", port: 9100) && s.interfaces == ["wlp3s0"] && s.heartbeatIntervalSeconds == 5)
        // Without [exporter] interfaces, the top-level interface.
        let plain = try ConfigParser.parse("interface = \"wlan0\"\n", file: "p.toml")
        #expect(try ExporterSettings.resolve(ExporterFlags(), config: plain, file: nil).interfaces == ["wlan0"])
    }

    @Test func badExporterSectionsAreNamedByLineAndKey() {
        for (text, says) in [
            ("[exporter]\nlisten = \"nowhere\"\n", "p.toml:2: exporter.listen"), ("[exporter]\ninterfaces = \"wlan0\"\n", "p.toml:2: exporter.interfaces"),
            ("[exporter]\ninterfaces = [\"\"]\n", "exporter.interfaces"), ("[exporter]\ninterval = \"0s\"\n", "exporter.interval"),
            ("[exporter]\nwifi_interval = 5\n", "exporter.wifi_interval: expected a string"), ("[exporter]\nmax_probes = 0\n", "exporter.max_probes"),
            ("[exporter]\nport = 1\n", "unknown key"), ("[[server]]\nhost = \"h\"\nprotocol = \"mqtt\"\nregister = \"x\"\n", "server.register"),
            ("[[server]]\nhost = \"h\"\nidle_timeout = \"5m\"\n", "p.toml:3: server.idle_timeout: goes with register"),
            ("[[server]]\nhost = \"h\"\nregister = \"x\"\nidle_timeout = \"soon\"\n", "server.idle_timeout"),
            ("[[server]]\nhost = \"h\"\nregister = \"x\"\nidle_timeout = 300\n", "server.idle_timeout: expected a string"),
            ("[[server]]\nhost = \"h\"\nprotocol = \"websocket\"\npath = \"/a b\"\n", "p.toml:4: server.path: only printable ASCII"),
        ] {
            do {
                _ = try ConfigParser.parse(text, file: "p.toml")
                Issue.record("accepted: \(text)")
            } catch {
                #expect(error.description.contains(says), "\(text): \(error)")
            }
        }
    }
}
