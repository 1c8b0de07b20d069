import Foundation

/// The Prometheus text exposition format (version 0.0.4) that pushdiag's textfiles share
/// (`report run --textfile`, `join --textfile`): metric families in the order first added, each
/// with one HELP, one TYPE and its samples; names prefixed pushdiag_ and in base units (ratios,
/// seconds).
struct PrometheusFamilies {
    struct Family {
        var name: String
        var help: String
        var type = "gauge"
        var samples: [(name: String, labels: [(String, String)], value: Double)] = []
    }

    private(set) var families: [Family] = []

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }

    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        // Twelve significant digits: 54.9% is 0.549, not the 0.5489999999999999 of the division.
        if v.isFinite { return String(format: "%.12g", v) }
        return v > 0 ? "+Inf" : "-Inf"
    }

    /// A sample of the family `name` (a histogram's or a summary's `_bucket`, `_sum` and `_count`
    /// samples belong to its family). A series twice makes node_exporter refuse the whole
    /// textfile: the first stands.
    mutating func add(_ name: String, _ help: String, type: String = "gauge", _ labels: [(String, String)], _ value: Double) {
        let family: String
        switch type {
        case "histogram": family = String(name.replacing(/_(bucket|sum|count)$/, with: ""))
        case "summary": family = String(name.replacing(/_(sum|count)$/, with: ""))
        default: family = name
        }
        if let i = families.firstIndex(where: { $0.name == family }) {
            guard !families[i].samples.contains(where: { $0.name == name && $0.labels.elementsEqual(labels, by: ==) }) else { return }
            families[i].samples.append((name, labels, value))
        } else {
            families.append(Family(name: family, help: help, type: type, samples: [(name, labels, value)]))
        }
    }

    func render(timestampMs: Int64? = nil) -> String {
        var out = ""
        for f in families {
            out += "# HELP \(f.name) \(f.help)\n# TYPE \(f.name) \(f.type)\n"
            for s in f.samples {
                let labels = s.labels.isEmpty ? "" : "{" + s.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
                out += "\(s.name)\(labels) \(Self.number(s.value))" + (timestampMs.map { " \($0)" } ?? "") + "\n"
            }
        }
        return out
    }
}
