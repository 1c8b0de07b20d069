/// `/probe?target=HOST:PORT&protocol=…`: a one-shot check in the blackbox_exporter manner.
/// Parameters: `target` (required), `protocol` (one of `HeartbeatProtocol.allCases`; default
/// simplepush), `tls` (1/true), `insecure`, `pin`, `path` (websocket only), `count` (heartbeats, 1–20,
/// default 3), `interval` and `timeout` (durations). The probe's whole run stays within
/// `budgetSeconds` (Prometheus's scrape timeout, from its X-Prometheus-Scrape-Timeout-Seconds
/// header, less half a second, and never more than `mostBudget`: the header is the caller's word,
/// and a probe holds one of the exporter's few probe slots while it runs).
public struct ProbeRequest: Sendable, Equatable {
    public var options: HeartbeatOptions
    /// The probe stops here, answered or not.
    public var budgetSeconds: Double

    public static let defaultBudget = 10.0
    /// blackbox_exporter's longest default timeout.
    public static let mostBudget = 120.0
    public static let mostHeartbeats = 20

    /// Parses a query string (the part after `?`). Problems are one line naming the parameter.
    public static func parse(query: String, scrapeTimeout: String? = nil) throws(SettingsError) -> ProbeRequest {
        var params: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = percentDecoded(parts[0]), let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                throw .usage("the query is not percent-encoded text")
            }
            guard params[key] == nil else { throw .usage("\(key) is given twice") }
            params[key] = value
        }
        let known: Set = ["target", "protocol", "tls", "insecure", "pin", "path", "count", "interval", "timeout"]
        if let unknown = params.keys.sorted().first(where: { !known.contains($0) }) {
            throw .usage("unknown parameter \(unknown) (\(known.sorted().joined(separator: ", ")))")
        }
        func flag(_ k: String) throws(SettingsError) -> Bool {
            switch params[k]?.lowercased() {
            case nil, "0", "false", "no": return false
            case "", "1", "true", "yes": return true
            case let v?: throw .usage("\(k): '\(v)' is not true or false")
            }
        }
        let protoText = params["protocol"] ?? "simplepush"
        guard let proto = HeartbeatProtocol(rawValue: protoText) else {
            throw .usage("protocol: '\(protoText)' is not one of \(HeartbeatProtocol.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let tls = try flag("tls")
        guard let target = params["target"], !target.isEmpty else { throw .usage("target is missing (target=HOST:PORT)") }
        let endpoint: Endpoint
        switch proto.endpoint(target, tls: tls) {
        case .success(let e): endpoint = e
        case .failure(let why): throw .usage("target: \(why)")
        }
        var o = HeartbeatOptions(endpoint: endpoint, proto: proto)
        o.count = 3
        o.intervalMs = 200
        if let c = params["count"] {
            guard let n = Int(c), (1...mostHeartbeats).contains(n) else { throw .usage("count: '\(c)' is not a whole number from 1 to \(mostHeartbeats)") }
            o.count = n
        }
        func duration(_ k: String) throws(SettingsError) -> Double? {
            guard let text = params[k] else { return nil }
            switch DurationText.parse(text, option: k, atLeast: 0.001, max: 3600) {
            case .success(let s): return s
            case .failure(let e): throw .usage(e.description)
            }
        }
        if let i = try duration("interval") { o.intervalMs = i * 1000 }
        if let t = try duration("timeout") {
            o.timeoutMs = t * 1000
            o.connectTimeoutMs = t * 1000
        }
        if tls {
            var t = TLSOptions(serverName: endpoint.host)
            t.verify = try !flag("insecure")
            // Said here in the parameter's name (the options' own check says --pin).
            if let pin = params["pin"], let why = TLSOptions.pinProblem(pin) { throw .usage("pin: \(why)") }
            t.pin = params["pin"]
            o.tls = t
        } else if try flag("insecure") || params["pin"] != nil {
            throw .usage("insecure and pin go with tls=1")
        }
        if let p = params["path"] {
            if let readers = proto.readers(ifNotRead: .path) { throw .usage("path goes with protocol=\(readers), not \(proto)") }
            if let why = HeartbeatOptions.pathProblem(p) { throw .usage("path: \(why)") }
            o.path = p
        }
        try o.validate()
        var budget = defaultBudget
        if let s = scrapeTimeout, let v = Double(s), v.isFinite, v > 0 { budget = min(mostBudget, max(0.5, v - 0.5)) }
        // A connect or heartbeat may not wait longer than the whole probe may take.
        o.connectTimeoutMs = min(o.connectTimeoutMs, budget * 1000)
        o.timeoutMs = min(o.timeoutMs, budget * 1000)
        return ProbeRequest(options: o, budgetSeconds: budget)
    }

    /// `%XX` and `+` decoded; nil when an escape is broken or the bytes are not UTF-8.
    static func percentDecoded(_ s: Substring) -> String? {
        let u = Array(s.utf8)
        var bytes: [UInt8] = []
        var i = 0
        while i < u.count {
            switch u[i] {
            case UInt8(ascii: "%"):
                guard i + 2 < u.count, let hi = hex(u[i + 1]), let lo = hex(u[i + 2]) else { return nil }
                bytes.append(hi << 4 | lo)
                i += 3
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
                i += 1
            case let b:
                bytes.append(b)
                i += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
