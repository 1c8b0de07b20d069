/// A plain-text table with aligned columns, the way iw and mtr print theirs.
public struct TextTable {
    public enum Alignment { case left, right }
    public var columns: [(title: String, align: Alignment)]
    public var rows: [[String]] = []

    public init(_ columns: [(String, Alignment)]) { self.columns = columns.map { (title: $0.0, align: $0.1) } }

    public mutating func add(_ row: [String]) { rows.append(row) }

    public func render(indent: String = "  ") -> String {
        var widths = columns.map { $0.title.count }
        for r in rows {
            for (i, cell) in r.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var out = indent
            for (i, c) in columns.enumerated() {
                let cell = i < cells.count ? cells[i] : ""
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let last = i == columns.count - 1
                switch c.align {
                case .left: out += last ? cell : cell + pad
                case .right: out += pad + cell
                }
                if !last { out += "  " }
            }
            return out
        }
        var out = line(columns.map(\.title)) + "\n"
        for r in rows { out += line(r) + "\n" }
        return out
    }
}

/// Integers with thousands separators (C locale style, independent of the environment).
public func grouped(_ n: Int) -> String {
    let s = String(n.magnitude)
    var out = ""
    for (i, ch) in s.enumerated() {
        if i > 0 && (s.count - i) % 3 == 0 { out.append(",") }
        out.append(ch)
    }
    return n < 0 ? "-" + out : out
}
