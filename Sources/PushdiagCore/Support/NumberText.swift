/// Numbers as the reports show them: rounded to a fixed number of places, and printed with at
/// most two decimals and no trailing zeros.
public enum NumberText {
    /// `v` rounded to 1/`places` (100: two decimals).
    public static func rounded(_ v: Double, places: Double = 100) -> Double { (v * places).rounded() / places }

    /// `n` and the noun, singular for one: "1 cycle", "3 cycles" (`plural` for a noun that does not
    /// take an s).
    public static func count(_ n: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(n) \(Self.noun(n, noun, plural: plural))"
    }

    /// The noun for `n` of it, singular for one: for a number printed another way ("1,204 frames")
    /// or apart from its noun ("1 of 2 dozes").
    public static func noun(_ n: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        n == 1 ? noun : plural ?? noun + "s"
    }

    /// The 1-based nearest rank of the `fraction` (0–1) percentile among `count` sorted values.
    public static func nearestRank(_ fraction: Double, count: Int) -> Int { max(1, Int((fraction * Double(count)).rounded(.up))) }

    /// The `fraction` (0–1) percentile of values sorted ascending, by nearest rank; nil when
    /// there are none.
    public static func percentile(_ fraction: Double, sorted s: [Double]) -> Double? {
        s.isEmpty ? nil : s[min(nearestRank(fraction, count: s.count), s.count) - 1]
    }

    /// The median of values sorted ascending (the mean of the middle two for an even count); nil
    /// when there are none.
    public static func median(sorted s: [Double]) -> Double? {
        s.isEmpty ? nil : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    /// `part` as a percentage of `whole`, two decimals; nil when `whole` is 0. The one rule for a
    /// percentage of counts (frames retried, heartbeats lost, devices back, busy time).
    public static func percent(_ part: some BinaryInteger, of whole: some BinaryInteger) -> Double? {
        whole > 0 ? rounded(Double(part) * 100 / Double(whole)) : nil
    }

    /// `v` as `format` prints it, with more decimals (up to six) where two would read equal to
    /// `limit` though it is not: a gap of 300.004 ms graded above 300 ms reads "300.004", never
    /// "300 ms, above 300 ms". Graded values are measured values; this keeps the text truthful.
    public static func format(_ v: Double, beside limit: Double) -> String {
        let two = format(v)
        guard v.isFinite, limit.isFinite, abs(v) < 1e12, v != limit, two == format(limit) else { return two }
        for digits in 3...6 {
            var places = 1.0
            for _ in 0..<digits { places *= 10 }
            // On the same side of the limit as the value, not only different from it.
            let r = rounded(v, places: places)
            guard r != limit, (r > limit) == (v > limit) else { continue }
            let scaled = Int64((abs(r) * places).rounded())
            var fraction = String(scaled % Int64(places))
            fraction = String(repeating: "0", count: digits - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return (r < 0 ? "-" : "") + String(scaled / Int64(places)) + (fraction.isEmpty ? "" : "." + fraction)
        }
        return two
    }

    /// Up to two decimals, no trailing zeros: 57, 1.5, 0.33.
    public static func format(_ v: Double) -> String {
        let r = rounded(v)
        if r == r.rounded(), abs(r) < 1e16 { return String(Int(r)) }
        // Swift writes 2^53 and above with an exponent ("9.223372036854776e+18"): the mantissa
        // is cut to two decimals, the exponent kept (it was cut off: "9.22").
        let text = String(r)
        let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) ?? text.endIndex
        var s = String(text[..<e])
        if let dot = s.firstIndex(of: "."), s.distance(from: dot, to: s.endIndex) > 3 {
            s = String(s[..<s.index(dot, offsetBy: 3)])
        }
        return s + text[e...]
    }
}
