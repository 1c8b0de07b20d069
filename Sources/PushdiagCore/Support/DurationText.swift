/// Durations as people type them on a command line: "30s", "500ms", "2m", "1h", "1.5" (seconds).
public enum DurationText {
    /// The longest duration an option takes unless it says otherwise: 24 days, so that every
    /// wait fits poll(2)'s 32-bit millisecond timeout and every deadline a 64-bit nanosecond clock.
    public static let longest: Double = 24 * 86_400

    /// Seconds, or nil when the text is not a finite, non-negative duration.
    public static func seconds(_ text: String) -> Double? {
        let t = text.trimmingCharactersInSet(" ")
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0, (v * scale).isFinite else { return nil }
            return v * scale
        }
        guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
        return v
    }

    /// Seconds within `0...max`, or the one line to print: what is wrong, naming `option` and,
    /// for a value too long, the largest allowed.
    public static func parse(_ text: String, option: String, atLeast minimum: Double = 0, max: Double = longest) -> Result<Double, DurationError> {
        guard let s = seconds(text) else { return .failure(DurationError("\(option): '\(text)' is not a duration (examples: 30s, 500ms, 2m, 1.5)")) }
        guard s <= max else { return .failure(DurationError("\(option): '\(text)' is longer than the largest allowed, \(format(max))")) }
        guard s >= minimum else { return .failure(DurationError("\(option): '\(text)' is shorter than the smallest allowed, \(format(minimum))")) }
        return .success(s)
    }

    /// A duration as the shortest text `seconds` reads back: "24d", "1h", "1.5s", "500ms".
    public static func format(_ s: Double) -> String {
        for (suffix, scale) in [("d", 86_400.0), ("h", 3600), ("m", 60), ("s", 1)] where s >= scale && (s / scale).rounded() == s / scale {
            return NumberText.format(s / scale) + suffix
        }
        return s >= 1 ? NumberText.format(s) + "s" : NumberText.format(s * 1000) + "ms"
    }
}

/// A duration that cannot be used, as one line naming the option.
public struct DurationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension String {
    func trimmingCharactersInSet(_ set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
