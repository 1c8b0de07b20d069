/// A kind whose text is its raw value: text and HTML read it as the JSON writes it, so the two
/// spellings cannot drift. Conforming is the whole declaration (`description` comes from here).
public protocol RawValueDescribed: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension RawValueDescribed {
    public var description: String { rawValue }
    /// The raw value in words, for text and HTML: "address_added" → "address added".
    public var words: String { String(rawValue.map { $0 == "_" ? " " : $0 }) }
}
