import Foundation

/// How the Prometheus text exposition format (version 0.0.4) spells a value, a label value and a
/// HELP text: one rule for the exporter's /metrics and /probe and every textfile pushdiag writes.
public enum PrometheusText {
    /// Why node_exporter's textfile collector would not read `path` (nil when it would): it
    /// reads only files ending in .prom. The one rule for `--textfile` and `textfile =`.
    public static func textfileProblem(_ path: String) -> String? {
        path.hasSuffix(".prom") ? nil : "node_exporter reads only files ending in .prom"
    }

    /// A sample's value: a whole number without decimals, else fifteen significant digits, the
    /// most a Double always keeps: 54.9% is 0.549, not the 0.5489999999999999 of the division,
    /// and a Unix time keeps its milliseconds (1732712345.125; twelve digits made it .13). NaN
    /// and the infinities as the format spells them.
    public static func value(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        if v.isFinite { return String(format: "%.15g", v) }
        return v > 0 ? "+Inf" : "-Inf"
    }

    /// A label value: backslash, double quote and line feed escaped.
    public static func label(_ s: String) -> String {
        s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }

    /// A HELP text: backslash and line feed escaped.
    public static func help(_ s: String) -> String {
        s.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }
}
