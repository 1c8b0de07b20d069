/// Durations as people type them on a command line: "30s", "500ms", "2m", "1h", "1.5" (seconds).
public enum DurationText {
    /// Seconds, or nil when the text is not a duration.
    public static func seconds(_ text: String) -> Double? {
        let t = text.trimmingCharactersInSet(" ")
        let units: [(String, Double)] = [("ms", 0.001), ("us", 0.000_001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, scale) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
            return v * scale
        }
        guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
        return v
    }
}

extension String {
    func trimmingCharactersInSet(_ set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
