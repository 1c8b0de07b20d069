import PushdiagCore

/// What the HTML pages share: escaping and the base style (no network assets: the pages are
/// opened from a laptop on a site without Internet).
enum HTML {
    /// A grade's colour, the same on every page.
    static let gradeColour: [Severity: String] = [.ok: "#2ca02c", .warning: "#e69500", .critical: "#d62728", .unknown: "#7f7f7f"]

    /// A report's findings as a list (or `none` when there are none), then its notes: the same
    /// on every page.
    static func findings(_ findings: [Finding], notes: [String], none: String) -> String {
        var out = "<h2>Findings</h2>"
        if findings.isEmpty {
            out += "<p>\(HTML.escape(none))</p>"
        } else {
            out += "<ul id=\"findings\">"
            for f in findings {
                out +=
                    "<li class=\"\(f.severity.rawValue)\"><strong>\(f.severity.nagiosName)</strong> \(escape(f.check.rawValue)) \(escape(f.subject)): \(escape(f.message))</li>"
            }
            out += "</ul>"
        }
        if !notes.isEmpty {
            out += "<h2>Notes</h2><ul id=\"notes\">" + notes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
        }
        return out
    }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    static let baseCSS = """
        body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:960px}
        h1{font-size:22px}.meta{color:#666}figure{margin:18px 0}svg.chart{width:100%;height:auto;background:#fafafa;border:1px solid #e5e5e5}
        .title{font-size:14px;font-weight:600}.axis{font-size:11px;fill:#666}.grid{stroke:#e3e3e3}
        .limit{stroke:#d62728;stroke-dasharray:6 4;stroke-width:1.5}.limit-label{font-size:11px;fill:#d62728}
        figcaption{font-size:12px}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;font-size:13px;text-align:left}
        tr.critical td.grade{color:#b00020;font-weight:600}tr.warning td.grade{color:#a15c00}
        .status{font-weight:600}.status.critical{color:#b00020}.status.warning{color:#a15c00}.status.ok{color:#2a7d2a}.status.unknown{color:#555}
        """

    /// A whole page.
    static func page(title: String, css: String, body: String) -> String {
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(escape(title))</title><style>\(baseCSS)\(css)</style></head><body>\(body)</body></html>\n"
    }
}
