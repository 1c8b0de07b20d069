/// A kind whose text is its raw value: text and HTML read it as the JSON writes it, so the two
/// spellings cannot drift. Conforming is the whole declaration (`description` comes from here).
public protocol RawValueDescribed: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension RawValueDescribed {
    public var description: String { rawValue }
}
