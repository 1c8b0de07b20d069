/// Frames counted by a numeric code their body carries (a reason, a status, an algorithm), with
/// memory bounded whatever a capture holds: at most `mostCodes` distinct codes are kept, frames
/// with any further code count under `Dot11Codes.otherKey`; frames whose code cannot be read (the body of a
/// frame protected under 802.11w is encrypted) count under `Dot11Codes.unknownKey`.
struct CodeCounts<Code: FixedWidthInteger> {
    static var mostCodes: Int { Dot11Codes.mostCodesKept }

    private(set) var byCode: [Code: Int] = [:]
    private(set) var other = 0
    private(set) var unknown = 0

    /// Counts `n` frames with `code`, or with a code not readable (nil).
    mutating func add(_ code: Code?, _ n: Int = 1) {
        guard let code else {
            unknown += n
            return
        }
        if byCode[code] != nil || byCode.count < Self.mostCodes {
            byCode[code, default: 0] += n
        } else {
            other += n
        }
    }

    /// Another table's counts: its codes the most frequent first (then by code), so that which
    /// ones a full table keeps does not depend on a dictionary's order.
    mutating func merge(_ o: CodeCounts) {
        for (code, n) in o.byCode.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) { add(code, n) }
        other += o.other
        unknown += o.unknown
    }

    /// The report's map: the code in decimal, then those two keys when any.
    var keyed: [String: Int] {
        var d = Dictionary(uniqueKeysWithValues: byCode.map { (String($0.key), $0.value) })
        if other > 0 { d[Dot11Codes.otherKey] = other }
        if unknown > 0 { d[Dot11Codes.unknownKey] = unknown }
        return d
    }
}
