import PushdiagCore

/// An SVG chart's frame, the one every page draws its charts in (the walk's timeline, the
/// history's lines, join's waterfalls): its size and margins, where a value falls on each axis,
/// and the parts every chart draws the same way (the opening tag, the title, the value grid, a
/// limit line). A page says only what differs: its margins, its values, its marks.
struct SVGChart {
    var width = 900.0
    var height: Double
    var left: Double
    var right = 16.0
    var top: Double
    var bottom: Double
    /// The value axis from the bottom of the plot to its top.
    var low = 0.0
    var high = 1.0

    /// The plot's lower edge (the value axis's `low`).
    var baseline: Double { height - bottom }

    /// Where `v` of `span` falls on the horizontal axis (0 at the plot's left edge).
    func x(_ v: Double, of span: Double) -> Double { left + (width - left - right) * v / span }

    /// Where a value falls on the vertical axis.
    func y(_ v: Double) -> Double { top + (height - top - bottom) * (1 - (v - low) / max(high - low, 1e-9)) }

    /// The opening tag: the view box, the id and classes tests and stylesheets find it by, and
    /// `label` for a screen reader.
    func open(id: String, classes: String = "chart", label: String) -> String {
        "<svg id=\"\(id)\" class=\"\(classes)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(label))\" xmlns=\"http://www.w3.org/2000/svg\">"
    }

    func title(_ text: String) -> String { "<text x=\"\(left)\" y=\"18\" class=\"title\">\(HTML.escape(text))</text>" }

    /// A grid line across the plot at each value, labelled on the left with the value and `unit`.
    func grid(_ values: [Double], unit: String) -> String {
        values.map { v in
            "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y(v))\" y2=\"\(y(v))\" class=\"grid\"/>"
                + "<text x=\"\(left - 6)\" y=\"\(y(v) + 4)\" class=\"axis\" text-anchor=\"end\">\(NumberText.format(v))\(unit)</text>"
        }.joined()
    }

    /// A limit across the plot at `v`, labelled at the right end, `labelOffset` below the line
    /// (negative: above it).
    func limit(_ v: Double, _ label: String, labelOffset: Double) -> String {
        "<line x1=\"\(left)\" x2=\"\(width - right)\" y1=\"\(y(v))\" y2=\"\(y(v))\" class=\"limit\"/>"
            + "<text x=\"\(width - right - 4)\" y=\"\(y(v) + labelOffset)\" class=\"limit-label\" text-anchor=\"end\">\(HTML.escape(label))</text>"
    }
}
