/// Arithmetic on values a file or a peer gave, held at the type's bounds instead of trapping:
/// a time or a sum that would pass Int64 is its limit (the analyses then say what they can).
extension FixedWidthInteger {
    /// `self + other`, or the bound it passed.
    @inline(__always)
    public func addingSaturated(_ other: Self) -> Self {
        let (v, o) = addingReportingOverflow(other)
        return !o ? v : other > 0 ? .max : .min
    }

    /// `self - other`, or the bound it passed.
    @inline(__always)
    public func subtractingSaturated(_ other: Self) -> Self {
        let (v, o) = subtractingReportingOverflow(other)
        return !o ? v : other < 0 ? .max : .min
    }

    /// `self * other`, or the bound it passed.
    @inline(__always)
    public func multipliedSaturated(by other: Self) -> Self {
        let (v, o) = multipliedReportingOverflow(by: other)
        return !o ? v : (self < 0) != (other < 0) ? .min : .max
    }
}
