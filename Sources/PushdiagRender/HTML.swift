/// What the HTML pages share: escaping and the base style (no network assets: the pages are
/// opened from a laptop on a site without Internet).
enum HTML {
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
        """

    /// A whole page.
    static func page(title: String, css: String, body: String) -> String {
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>\(escape(title))</title><style>\(baseCSS)\(css)</style></head><body>\(body)</body></html>\n"
    }
}
