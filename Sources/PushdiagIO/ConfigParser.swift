#if !FUZZ_WITH_CORE_SOURCES
import PushdiagCore
#endif
import TOMLKit

/// TOML text → `PushdiagConfig`, naming the line and key of every problem. No file access, so
/// the libFuzzer target (Tests/fuzz/FuzzConfig.swift) builds it with the core's sources.
public enum ConfigParser {
    public static func parse(_ text: String, file: String) throws(ConfigError) -> PushdiagConfig {
        // toml++ must not see a header it would abort on (see TOMLHeaderCheck).
        if let problem = TOMLHeaderCheck.firstProblem(in: Array(text.utf8)) {
            throw ConfigError(file: file, line: problem.line, key: nil, message: "not valid TOML: \(problem.message)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, line: Int(e.source.begin.line), key: nil, message: "not valid TOML: \(e.description)")
        } catch {
            throw ConfigError(file: file, line: nil, key: nil, message: "not valid TOML: \(error)")
        }
        func fail(_ key: String, _ section: String?, _ message: String) -> ConfigError {
            ConfigError(file: file, line: ConfigError.line(of: key, in: section, text: text), key: section.map { "\($0).\(key)" } ?? key, message: message)
        }
        func string(_ t: TOMLTable, _ key: String, _ section: String?) throws(ConfigError) -> String? {
            guard let v = t[key] else { return nil }
            guard let s = v.string else { throw fail(key, section, "expected a string") }
            return s
        }
        var c = PushdiagConfig()
        for key in table.keys {
            switch key {
            case "interface": c.interface = try string(table, key, nil)
            case "monitor": c.monitor = try string(table, key, nil)
            case "duration":
                c.duration = try string(table, key, nil)
                if let d = c.duration, DurationText.seconds(d) == nil { throw fail(key, nil, "'\(d)' is not a duration (examples: 30s, 2m)") }
            case "server":
                guard let list = table[key]?.array else { throw fail(key, nil, "expected [[server]] tables") }
                for item in list {
                    guard let t = item.table else { throw fail(key, nil, "expected [[server]] tables") }
                    guard let host = try string(t, "host", "server") else { throw fail("host", "server", "every [[server]] needs a host") }
                    var s = PushdiagConfig.Server(host: host)
                    for k in t.keys {
                        switch k {
                        case "host": break
                        case "port":
                            guard let p = t[k]?.int, (1...65_535).contains(p) else { throw fail(k, "server", "expected a port number from 1 to 65535") }
                            s.port = UInt16(p)
                        case "protocol":
                            guard let p = try string(t, k, "server"), ["simplepush", "websocket", "mqtt", "line", "tcp"].contains(p) else {
                                throw fail(k, "server", "expected simplepush, websocket, mqtt, line or tcp")
                            }
                            s.proto = p
                        case "tls":
                            guard let b = t[k]?.bool else { throw fail(k, "server", "expected true or false") }
                            s.tls = b
                        case "pin": s.pin = try string(t, k, "server")
                        case "ca_file": s.caFile = try string(t, k, "server")
                        case "path": s.path = try string(t, k, "server")
                        default: throw fail(k, "server", "unknown key (host, port, protocol, tls, pin, ca_file, path)")
                        }
                    }
                    c.servers.append(s)
                }
            case "thresholds":
                guard let t = table[key]?.table else { throw fail(key, nil, "expected a [thresholds] table") }
                for k in t.keys {
                    guard PushdiagConfig.thresholdKeys.contains(k) else { throw fail(k, "thresholds", "unknown threshold (\(PushdiagConfig.thresholdKeys.joined(separator: ", ")))") }
                    let v: String
                    if let s = t[k]?.string { v = s } else if let i = t[k]?.int { v = String(i) } else if let d = t[k]?.double { v = String(d) } else {
                        throw fail(k, "thresholds", "expected a range such as \"40\" or \"~:40\"")
                    }
                    guard ThresholdRange(v) != nil else { throw fail(k, "thresholds", "'\(v)' is not a range (examples: 40, 10:40, ~:40, @10:20)") }
                    c.thresholds[k] = v
                }
            case "report":
                guard let t = table[key]?.table else { throw fail(key, nil, "expected a [report] table") }
                for k in t.keys {
                    switch k {
                    case "history": c.history = try string(t, k, "report")
                    case "textfile":
                        c.textfile = try string(t, k, "report")
                        if let f = c.textfile, !f.hasSuffix(".prom") { throw fail(k, "report", "node_exporter reads only files ending in .prom") }
                    default: throw fail(k, "report", "unknown key (history, textfile)")
                    }
                }
            default:
                throw fail(key, nil, "unknown key (interface, monitor, duration, [[server]], [thresholds], [report])")
            }
        }
        return c
    }
}
