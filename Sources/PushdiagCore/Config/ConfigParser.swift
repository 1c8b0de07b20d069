/// TOML text → `PushdiagConfig`: every problem named by file, line and key, as one line.
public enum ConfigParser {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> PushdiagConfig {
        try parse(Array(text.utf8), file: file)
    }

    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> PushdiagConfig {
        let root: TOMLTable
        do {
            root = try TOML.parse(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, key: nil, message: "not valid TOML: \(error.message)")
        }
        /// A problem with `key` of `table` (in [section] when given).
        func fail(_ table: TOMLTable, _ key: String, _ section: String?, _ message: String) -> ConfigError {
            ConfigError(file: file, line: table.line(of: key) ?? table.headerLine, key: section.map { "\($0).\(key)" } ?? key, message: message)
        }
        func string(_ t: TOMLTable, _ key: String, _ section: String?) throws(ConfigError) -> String? {
            guard let v = t[key] else { return nil }
            guard let s = v.string else { throw fail(t, key, section, "expected a string, found \(v.typeName)") }
            return s
        }
        /// A duration string, checked as the flags check theirs: its text (kept as written) and
        /// its seconds; nil when the key is absent.
        func duration(_ t: TOMLTable, _ key: String, _ section: String?, atLeast: Double) throws(ConfigError) -> (text: String, seconds: Double)? {
            guard let text = try string(t, key, section) else { return nil }
            switch DurationText.parse(text, option: key, atLeast: atLeast) {
            case .success(let d): return (text, d)
            case .failure(let e): throw fail(t, key, section, String(e.description.dropFirst("\(key): ".count)))
            }
        }
        func table(_ key: String, named header: String) throws(ConfigError) -> TOMLTable {
            guard let v = root[key], let t = v.table else {
                throw fail(root, key, nil, "expected a \(header) table, found \(root[key]?.typeName ?? "nothing")")
            }
            return t
        }
        var c = PushdiagConfig()
        for key in root.keys {
            switch key {
            case "interface": c.interface = try string(root, key, nil)
            case "monitor": c.monitor = try string(root, key, nil)
            case "join_limits": c.joinLimits = try string(root, key, nil)
            case "duration":
                c.duration = try duration(root, key, nil, atLeast: 1)?.text
            case "server":
                guard let list = root[key]?.array else { throw fail(root, key, nil, "expected [[server]] tables, found \(root[key]?.typeName ?? "nothing")") }
                for item in list {
                    guard let t = item.table else { throw fail(root, key, nil, "expected [[server]] tables, found \(item.typeName) in the array") }
                    guard let host = try string(t, "host", "server") else {
                        throw ConfigError(file: file, line: t.headerLine ?? root.line(of: key), key: "server.host", message: "every [[server]] needs a host")
                    }
                    var s = PushdiagConfig.Server(host: host)
                    s.line = t.headerLine ?? root.line(of: key)
                    for k in t.keys {
                        switch k {
                        case "host": break
                        case "port":
                            guard let p = t[k]?.int, (1...65_535).contains(p) else { throw fail(t, k, "server", "expected a port number from 1 to 65535") }
                            s.port = UInt16(p)
                        case "protocol":
                            guard let p = try string(t, k, "server"), HeartbeatProtocol(rawValue: p) != nil else {
                                throw fail(t, k, "server", "expected \(HeartbeatProtocol.names(HeartbeatProtocol.allCases))")
                            }
                            s.proto = p
                        case "tls":
                            guard let b = t[k]?.bool else { throw fail(t, k, "server", "expected true or false") }
                            s.tls = b
                        case "pin":
                            s.pin = try string(t, k, "server")
                            if let pin = s.pin, let why = TLSOptions.pinProblem(pin) { throw fail(t, k, "server", why) }
                        case "ca_file": s.caFile = try string(t, k, "server")
                        case "path":
                            s.path = try string(t, k, "server")
                            if let path = s.path, let why = HeartbeatOptions.pathProblem(path) { throw fail(t, k, "server", why) }
                        case "register": s.register = try string(t, k, "server")
                        case "idle_timeout": s.idleTimeoutS = try duration(t, k, "server", atLeast: IdleTimeout.shortest)?.seconds
                        default: throw fail(t, k, "server", "unknown key (host, port, protocol, tls, pin, ca_file, path, register, idle_timeout)")
                        }
                    }
                    if s.register != nil, HeartbeatProtocol(rawValue: s.proto)?.modes.contains(.register) != true {
                        let with = HeartbeatProtocol.with(.register).map { "protocol = \"\($0)\"" }
                        throw fail(t, "register", "server", "goes with \(with.joined(separator: " or ")) (server \(host))")
                    }
                    if s.path != nil, let readers = HeartbeatProtocol(rawValue: s.proto)?.readers(ifNotRead: .path) {
                        throw fail(t, "path", "server", "goes with protocol = \"\(readers)\", not \"\(s.proto)\" (server \(host))")
                    }
                    if s.idleTimeoutS != nil, s.register == nil {
                        throw fail(t, "idle_timeout", "server", "goes with register (the server's heartbeats are judged against it; server \(host))")
                    }
                    if !s.tls, s.pin != nil || s.caFile != nil {
                        throw fail(t, s.pin != nil ? "pin" : "ca_file", "server", "goes with tls = true (server \(host))")
                    }
                    c.servers.append(s)
                }
            case "thresholds":
                let t = try table(key, named: "[thresholds]")
                for k in t.keys {
                    guard let (row, _) = ThresholdRow.row(key: k, in: .survey) else {
                        throw fail(t, k, "thresholds", "unknown threshold (\(PushdiagConfig.thresholdKeys.joined(separator: ", ")))")
                    }
                    let v: String
                    switch t[k] {
                    case .string(let s)?: v = s
                    case .integer(let i)?: v = String(i)
                    case .float(let d)? where d.isFinite: v = String(d)
                    default: throw fail(t, k, "thresholds", "expected a number or a range such as \"40\" or \"~:40\"")
                    }
                    if case .failure(let why) = row.parse(v) { throw fail(t, k, "thresholds", "'\(v)' is \(why)") }
                    c.thresholds[k] = v
                }
            case "walk", "join":
                // The one-limit tables: each key a row of the table's scope, a number within its range.
                let scope: ThresholdRow.Scope = key == "walk" ? .walk : .join
                let t = try table(key, named: "[\(key)]")
                for k in t.keys {
                    guard let (row, _) = ThresholdRow.row(key: k, in: scope) else {
                        let keys = ThresholdRow.rows(scope).flatMap { r in ThresholdRow.Level.allCases.map { r.key($0) } }
                        throw fail(t, k, key, "unknown key (\(keys.sorted().joined(separator: ", ")))")
                    }
                    let v: Double
                    switch t[k] {
                    case .integer(let i)?: v = Double(i)
                    case .float(let d)?: v = d
                    default: throw fail(t, k, key, "expected a number")
                    }
                    guard row.valid.contains(v) else {
                        throw fail(t, k, key, "\(NumberText.format(v)) is \(ThresholdProblem.outside(valid: row.valid, unit: row.unit))")
                    }
                    if scope == .walk { c.walk[k] = v } else { c.join[k] = v }
                }
            case "report":
                let t = try table(key, named: "[report]")
                for k in t.keys {
                    switch k {
                    case "history": c.history = try string(t, k, "report")
                    case "textfile":
                        c.textfile = try string(t, k, "report")
                        if let why = c.textfile.flatMap(PrometheusText.textfileProblem) { throw fail(t, k, "report", why) }
                    default: throw fail(t, k, "report", "unknown key (history, textfile)")
                    }
                }
            case "exporter":
                let t = try table(key, named: "[exporter]")
                for k in t.keys {
                    switch k {
                    case "listen":
                        c.exporter.listen = try string(t, k, "exporter")
                        if let l = c.exporter.listen, ExporterSettings.listenEndpoint(l) == nil {
                            throw fail(t, k, "exporter", "'\(l)' is not ADDR:PORT or :PORT")
                        }
                    case "interfaces":
                        let list = t[k]?.array ?? []
                        let names = list.compactMap(\.string)
                        guard t[k]?.array != nil, names.count == list.count, !names.contains("") else {
                            throw fail(t, k, "exporter", "expected an array of interface names")
                        }
                        c.exporter.interfaces = names
                    case "interval", "wifi_interval":
                        let d = try duration(t, k, "exporter", atLeast: ExporterSettings.shortestInterval)?.text
                        if k == "interval" { c.exporter.interval = d } else { c.exporter.wifiInterval = d }
                    case "max_probes":
                        guard let n = t[k]?.int, (1...ExporterSettings.mostProbes).contains(n) else {
                            throw fail(t, k, "exporter", "expected a whole number from 1 to \(ExporterSettings.mostProbes)")
                        }
                        c.exporter.maxProbes = n
                    case "probe_allow":
                        guard let list = t[k]?.array else {
                            throw fail(t, k, "exporter", "expected an array of networks and host names (\"10.40.0.0/16\", \"push-*.example.internal:3000\")")
                        }
                        var rules: [ProbeAllowRule] = []
                        for item in list {
                            guard let entry = item.string else { throw fail(t, k, "exporter", "expected strings, found \(item.typeName) in the array") }
                            do throws(ProbeAllowRule.Problem) { rules.append(try ProbeAllowRule(entry)) } catch {
                                throw fail(t, k, "exporter", error.description)
                            }
                        }
                        c.exporter.probeAllow = rules
                    default: throw fail(t, k, "exporter", "unknown key (listen, interfaces, interval, wifi_interval, max_probes, probe_allow)")
                    }
                }
            default:
                throw fail(
                    root, key, nil, "unknown key (interface, monitor, duration, join_limits, [[server]], [thresholds], [walk], [join], [report], [exporter])")
            }
        }
        return c
    }
}
