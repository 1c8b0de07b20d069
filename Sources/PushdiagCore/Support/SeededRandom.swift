/// A seeded xorshift64 generator: the same seed, the same draws (the responder's dropped answers,
/// a storm's jitter), so a run can be repeated.
public struct SeededRandom: Sendable {
    var state: UInt64

    /// Any seed works; 0 (a fixed point of xorshift) is made odd.
    public init(seed: UInt64) { state = seed | 1 }

    /// The next draw, uniform in [0, 1).
    public mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state >> 11) / Double(1 << 53)
    }
}
