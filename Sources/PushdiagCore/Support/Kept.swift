/// How a measured value is kept in a report: a thousandth of its unit. A duration in
/// milliseconds is kept to the microsecond, one in seconds to the millisecond, a share to a
/// thousandth (of one, or of a percent). What is kept is what the JSON gives and what is graded;
/// the text prints it shorter (`NumberText.format`), with more digits only beside a limit
/// (`NumberText.format(_:beside:)`). Two rules of their own: a spacing's share of an idle
/// timeout (`IdleTimeout.share`, to 0.0001%, graded beside percent limits), and a percentage of
/// counts (`NumberText.percent`: heartbeats lost, frames retried, to the hundredth).
public enum Kept {
    static let places = 1000.0

    /// Milliseconds, kept to the microsecond.
    public static func ms(_ v: Double) -> Double { NumberText.rounded(v, places: places) }
    /// Nanoseconds as milliseconds, kept to the microsecond.
    public static func ms(ns: Int64) -> Double { ms(Double(ns) / 1e6) }
    /// Seconds, kept to the millisecond.
    public static func seconds(_ v: Double) -> Double { NumberText.rounded(v, places: places) }
    /// Nanoseconds as seconds, kept to the millisecond.
    public static func seconds(ns: Int64) -> Double { seconds(Double(ns) / 1e9) }
    /// A share of one (0.25), kept to the thousandth.
    public static func ratio(_ v: Double) -> Double { NumberText.rounded(v, places: places) }
    /// A percentage (25.0), kept to the thousandth of a percent.
    public static func percent(_ v: Double) -> Double { NumberText.rounded(v, places: places) }
}
