/// A Monitoring Plugins threshold range (https://www.monitoring-plugins.org/doc/guidelines.html):
/// `10` alerts outside 0…10, `10:` below 10, `~:10` above 10, `10:20` outside 10…20, and a
/// leading `@` alerts inside the range instead.
public struct ThresholdRange: Equatable, Sendable, CustomStringConvertible {
    public var start: Double?  // nil: −∞
    public var end: Double?  // nil: +∞
    public var inside: Bool
    public let text: String

    public init?(_ text: String) {
        self.text = text
        var t = Substring(text)
        inside = t.hasPrefix("@")
        if inside { t = t.dropFirst() }
        guard !t.isEmpty else { return nil }
        if let colon = t.firstIndex(of: ":") {
            let a = t[..<colon]
            let b = t[t.index(after: colon)...]
            if a == "~" { start = nil } else if a.isEmpty { start = 0 } else if let v = Self.number(a) { start = v } else { return nil }
            if b.isEmpty { end = nil } else if let v = Self.number(b) { end = v } else { return nil }
        } else {
            guard let v = Self.number(t) else { return nil }
            start = 0
            end = v
        }
        if let s = start, let e = end, s > e { return nil }
    }

    /// A finite number: "nan" and "inf" are not limits anyone can mean (and nan compares false
    /// with everything, so it would never alert).
    static func number(_ text: Substring) -> Double? {
        guard let v = Double(text), v.isFinite else { return nil }
        return v
    }

    /// The plain range `limit` (alerts outside 0…limit): how the other commands' limits read here.
    public init(upTo limit: Double) {
        self = ThresholdRange(NumberText.format(limit))!
    }

    /// Whether `value` raises the alert.
    public func alerts(_ value: Double) -> Bool {
        let within = (start.map { value >= $0 } ?? true) && (end.map { value <= $0 } ?? true)
        return inside ? within : !within
    }

    public var description: String { text }
}
