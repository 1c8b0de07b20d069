import Foundation

/// pushdiag's own JSON encoder: the bytes Foundation's `JSONEncoder` writes with JSONRenderer's
/// options (keys converted to snake_case, sorted by their UTF-8 bytes, slashes not escaped,
/// non-finite numbers as the strings "inf", "-inf" and "nan"; pretty: two spaces an indent and
/// `"key" : value`), written in a fraction of its time (#30: JSONEncoder was 28% of the CPU of a
/// capture's report; docs/PERFORMANCE.md). Where it differs from Foundation's, Foundation wins:
/// JSONWriterTests compare the two on every fixture's report and on random values.
///
/// How it follows JSONEncoder (swift-foundation's JSONEncoder.swift and JSONWriter.swift):
/// - a `[String: V]` dictionary keeps its keys as they are (no snake_case); any other keyed
///   container's keys, a dictionary's by `CodingKeyRepresentable` keys included, are converted;
/// - a key written twice in one object keeps the last value;
/// - an integer is its `description`, a `Double` or `Float` its `description` less a trailing
///   ".0";
/// - strings escape `"`, `\` and the control characters (`\b \f \n \r \t`, else `\u00XX`);
/// - an empty pretty array or object is its brackets around an empty line.
/// What it does not reproduce it hands back (`Fallback`), and JSONRenderer asks JSONEncoder:
/// `Date`, `Data`, `URL` and `Decimal` values (no report has one) and keys to convert that are not
/// ASCII (Foundation's case rules are Unicode's).
struct JSONWriter {
    /// A value JSONWriter leaves to JSONEncoder.
    struct Fallback: Error {}

    let pretty: Bool

    func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let keys = KeyConverter()
        let encoder = TreeEncoder(keys: keys)
        let node = try encoder.wrap(value)
        // A key that could not be converted where Codable lets nothing be thrown (a nested
        // container's or a super encoder's key).
        if keys.failed { throw Fallback() }
        var out = Output(pretty: pretty)
        out.bytes.reserveCapacity(4096)
        out.write(node)
        return out.bytes
    }
}

// MARK: - The tree

/// A value as JSONEncoder holds it before writing: containers are shared boxes, because a
/// container handed out earlier is filled after it has been placed in its parent.
private enum Node {
    case null
    case bool(Bool)
    /// Already formatted.
    case number(String)
    case string(String)
    case array(ArrayBox)
    case object(ObjectBox)
    /// What a `superEncoder()` will have encoded when the tree is written.
    case deferred(TreeEncoder)
}

private final class ArrayBox {
    var items: [Node] = []
}

private final class ObjectBox {
    var keys: [String] = []
    var values: [Node] = []

    func set(_ key: String, _ value: Node) {
        keys.append(key)
        values.append(value)
    }
}

/// snake_case for the keys of keyed containers, ASCII only (Foundation's algorithm, byte by byte:
/// a word ends before an upper-case letter; a run of upper-case letters is a word of its own up
/// to the one before a lower-case letter; all lowered, joined by `_`). Converted keys are kept:
/// a report repeats the same few hundred names.
private final class KeyConverter {
    private var converted: [String: String] = [:]
    /// A key was not converted: the whole value goes to JSONEncoder.
    private(set) var failed = false

    func convert(_ key: String) throws -> String {
        var plain = true
        for b in key.utf8 {
            if b >= 0x80 {
                failed = true
                throw JSONWriter.Fallback()
            }
            if b >= 0x41 && b <= 0x5A { plain = false }
        }
        if plain { return key }
        if let done = converted[key] { return done }
        let done = Self.snakeCase(Array(key.utf8))
        converted[key] = done
        return done
    }

    static func snakeCase(_ k: [UInt8]) -> String {
        func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
        func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        let end = k.count
        while let upper = (searchStart..<end).first(where: { isUpper(k[$0]) }) {
            words.append(wordStart..<upper)
            guard let lower = (upper..<end).first(where: { isLower(k[$0]) }) else {
                wordStart = upper
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower + 1
        }
        words.append(wordStart..<end)
        var out: [UInt8] = []
        out.reserveCapacity(end + words.count)
        for (i, w) in words.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "_")) }
            for b in k[w] { out.append(isUpper(b) ? b + 0x20 : b) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

// MARK: - The encoder

private final class TreeEncoder: Encoder {
    let keys: KeyConverter
    /// Keys of a `[String: V]`'s container stay as they are.
    let convertKeys: Bool
    var node: Node?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(keys: KeyConverter, convertKeys: Bool = true) {
        self.keys = keys
        self.convertKeys = convertKeys
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: ObjectBox
        if case .object(let existing) = node {
            box = existing
        } else {
            box = ObjectBox()
            node = .object(box)
        }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: ArrayBox
        if case .array(let existing) = node {
            box = existing
        } else {
            box = ArrayBox()
            node = .array(box)
        }
        return UnkeyedContainer(encoder: self, box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    func key(_ key: some CodingKey) throws -> String {
        convertKeys ? try keys.convert(key.stringValue) : key.stringValue
    }

    /// Any value, as JSONEncoder's `wrapGeneric` takes it.
    func wrap<T: Encodable>(_ value: T) throws -> Node {
        if T.self == Date.self || T.self == URL.self || T.self == Decimal.self || T.self == Data.self {
            throw JSONWriter.Fallback()
        }
        let nested: TreeEncoder
        if let dictionary = value as? any StringKeyedDictionary {
            nested = TreeEncoder(keys: keys, convertKeys: false)
            try dictionary.encodeEntries(to: nested)
        } else {
            nested = TreeEncoder(keys: keys)
            try value.encode(to: nested)
        }
        return nested.node ?? .object(ObjectBox())
    }

    static func number(_ d: Double) -> Node {
        if d.isNaN { return .string("nan") }
        if d.isInfinite { return .string(d < 0 ? "-inf" : "inf") }
        var s = d.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return .number(s)
    }

    static func number(_ f: Float) -> Node {
        if f.isNaN { return .string("nan") }
        if f.isInfinite { return .string(f < 0 ? "-inf" : "inf") }
        var s = f.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return .number(s)
    }
}

/// `[String: V]`, whose keys JSONEncoder leaves unconverted.
private protocol StringKeyedDictionary {
    func encodeEntries(to encoder: TreeEncoder) throws
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func encodeEntries(to encoder: TreeEncoder) throws {
        let box = ObjectBox()
        box.keys.reserveCapacity(count)
        box.values.reserveCapacity(count)
        for (key, value) in self { box.set(key, try encoder.wrap(value)) }
        encoder.node = .object(box)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TreeEncoder
    let box: ObjectBox
    var codingPath: [any CodingKey] { [] }

    private func set(_ key: Key, _ node: Node) throws { box.set(try encoder.key(key), node) }

    mutating func encodeNil(forKey key: Key) throws { try set(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try set(key, TreeEncoder.number(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try set(key, TreeEncoder.number(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try set(key, .number(value.description)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try set(key, try encoder.wrap(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        try? set(key, .object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, box: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        try? set(key, .array(nested))
        return UnkeyedContainer(encoder: encoder, box: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let sub = TreeEncoder(keys: encoder.keys)
        box.set("super", .deferred(sub))
        return sub
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let sub = TreeEncoder(keys: encoder.keys)
        try? set(key, .deferred(sub))
        return sub
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: TreeEncoder
    let box: ArrayBox
    var codingPath: [any CodingKey] { [] }
    var count: Int { box.items.count }

    mutating func encodeNil() throws { box.items.append(.null) }
    mutating func encode(_ value: Bool) throws { box.items.append(.bool(value)) }
    mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
    mutating func encode(_ value: Double) throws { box.items.append(TreeEncoder.number(value)) }
    mutating func encode(_ value: Float) throws { box.items.append(TreeEncoder.number(value)) }
    mutating func encode(_ value: Int) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: Int8) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: Int16) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: Int32) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: Int64) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: UInt) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: UInt8) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: UInt16) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: UInt32) throws { box.items.append(.number(value.description)) }
    mutating func encode(_ value: UInt64) throws { box.items.append(.number(value.description)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.items.append(try encoder.wrap(value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectBox()
        box.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, box: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArrayBox()
        box.items.append(.array(nested))
        return UnkeyedContainer(encoder: encoder, box: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let sub = TreeEncoder(keys: encoder.keys)
        box.items.append(.deferred(sub))
        return sub
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoder.node = .null }
    mutating func encode(_ value: Bool) throws { encoder.node = .bool(value) }
    mutating func encode(_ value: String) throws { encoder.node = .string(value) }
    mutating func encode(_ value: Double) throws { encoder.node = TreeEncoder.number(value) }
    mutating func encode(_ value: Float) throws { encoder.node = TreeEncoder.number(value) }
    mutating func encode(_ value: Int) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: Int8) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: Int16) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: Int32) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: Int64) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: UInt) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: UInt8) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: UInt16) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: UInt32) throws { encoder.node = .number(value.description) }
    mutating func encode(_ value: UInt64) throws { encoder.node = .number(value.description) }
    mutating func encode<T: Encodable>(_ value: T) throws { encoder.node = try encoder.wrap(value) }
}

// MARK: - The bytes

private struct Output {
    let pretty: Bool
    var bytes: [UInt8] = []
    var indent = 0

    init(pretty: Bool) { self.pretty = pretty }

    mutating func write(_ node: Node) {
        switch node {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .number(let s): bytes.append(contentsOf: s.utf8)
        case .string(let s): write(string: s)
        case .array(let box): write(array: box.items)
        case .object(let box): write(object: box)
        case .deferred(let encoder): write(encoder.node ?? .object(ObjectBox()))
        }
    }

    private mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private mutating func newlineAndIndent() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<indent {
            bytes.append(0x20)
            bytes.append(0x20)
        }
    }

    private mutating func write(array items: [Node]) {
        bytes.append(UInt8(ascii: "["))
        indent += 1
        if pretty && items.isEmpty { bytes.append(UInt8(ascii: "\n")) }
        for (i, item) in items.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            if pretty { newlineAndIndent() }
            write(item)
        }
        indent -= 1
        if pretty { newlineAndIndent() }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func write(object box: ObjectBox) {
        // Sorted by the keys' UTF-8 bytes; of a key set twice, the last value.
        var order = Array(box.keys.indices)
        let keys = box.keys
        order.sort { a, b in
            let (ka, kb) = (keys[a], keys[b])
            if ka == kb { return a < b }
            return ka.utf8.lexicographicallyPrecedes(kb.utf8)
        }
        bytes.append(UInt8(ascii: "{"))
        indent += 1
        if pretty && order.isEmpty { bytes.append(UInt8(ascii: "\n")) }
        var first = true
        for (n, i) in order.enumerated() where n + 1 == order.count || keys[order[n + 1]] != keys[i] {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            if pretty { newlineAndIndent() }
            write(string: keys[i])
            if pretty { append(" : ") } else { bytes.append(UInt8(ascii: ":")) }
            write(box.values[i])
        }
        indent -= 1
        if pretty { newlineAndIndent() }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func write(string s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var mark = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<i]))
                mark = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(b)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
