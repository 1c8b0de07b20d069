/// A field added to a stored JSON contract: encoded as its value, and decoded as its default when
/// a report written before the field existed lacks the key (the history's older rows stay
/// readable; a synthesized decoder would refuse the whole report).
@propertyWrapper
public struct Added<Value: Codable & Sendable & Equatable & AddedDefault>: Codable, Sendable, Equatable {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

/// What an `Added` field decodes to when its key is missing.
public protocol AddedDefault {
    static var addedDefault: Self { get }
}

extension Array: AddedDefault {
    public static var addedDefault: Self { [] }
}

extension Int: AddedDefault {
    public static var addedDefault: Int { 0 }
}

extension KeyedDecodingContainer {
    /// A missing key decodes as the field's default.
    public func decode<T>(_ type: Added<T>.Type, forKey key: Key) throws -> Added<T> {
        try decodeIfPresent(type, forKey: key) ?? Added(wrappedValue: T.addedDefault)
    }
}
