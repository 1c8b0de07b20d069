import Foundation
import PushdiagCore

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

    /// A sample of a family the exporter publishes too (its name with `suffix`: `_bucket`, …),
    /// with the family's one help and type.
    mutating func add(_ f: MetricFamily, suffix: String = "", _ labels: [(String, String)], _ value: Double) {
        add(f.name + suffix, f.help, type: f.typeName, labels, value)
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
            out += "# HELP \(f.name) \(PrometheusText.help(f.help))\n# TYPE \(f.name) \(f.type)\n"
            for s in f.samples {
                let labels = s.labels.isEmpty ? "" : "{" + s.labels.map { "\($0.0)=\"\(PrometheusText.label($0.1))\"" }.joined(separator: ",") + "}"
                out += "\(s.name)\(labels) \(PrometheusText.value(s.value))" + (timestampMs.map { " \($0)" } ?? "") + "\n"
            }
        }
        return out
    }
}
