/// TOML 1.0 documents, as the configuration file uses them: parsed in pure Swift from bytes, every
/// value with the line it was written on, every refusal with its line. Checked against Python's
/// `tomllib` (an independent implementation) in the tests and fuzzed with libFuzzer; pushdiag
/// used toml++ (through TOMLKit) before, which aborts on some damaged files (see docs/RELIABILITY.md).
public enum TOML {
    /// Nesting of arrays and inline tables, and parts of one key, are limited so that a hostile
    /// file cannot exhaust the stack; configuration files come nowhere near.
    public static let maximumDepth = 64

    /// Parses a whole document. A UTF-8 byte order mark at the start is skipped.
    public static func parse(_ bytes: [UInt8]) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(bytes)
        return try parser.document()
    }

    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        try parse(Array(text.utf8))
    }
}

/// Why a document is not valid TOML, and where (1-based line and column, in characters).
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A table: keys in the order they were written, each with its value and line.
public struct TOMLTable: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]
    /// The line of the `[header]` or `[[header]]` that opened the table (nil for the document
    /// itself, inline tables and tables made by dotted keys).
    public internal(set) var headerLine: Int?

    public init() {}

    public subscript(key: String) -> TOMLValue? { values[key] }

    /// The line the key was written on (for a table made by a header, the header's line).
    public func line(of key: String) -> Int? { lines[key] }

    public var count: Int { keys.count }

    mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        lines[key] = line
    }
}

/// A local or offset date-time, date or time, as written (the fraction kept to nanoseconds).
public struct TOMLDateTime: Equatable, Sendable, CustomStringConvertible {
    public struct Date: Equatable, Sendable {
        public var year: Int, month: Int, day: Int
    }
    public struct Time: Equatable, Sendable {
        public var hour: Int, minute: Int, second: Int
        public var nanosecond: Int
    }
    public var date: Date?
    public var time: Time?
    /// Minutes east of UTC, for an offset date-time (Z is 0).
    public var offsetMinutes: Int?

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var s = ""
        if let d = date {
            let y = String(d.year)
            s += String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + two(d.month) + "-" + two(d.day)
        }
        if let t = time {
            if date != nil { s += "T" }
            s += two(t.hour) + ":" + two(t.minute) + ":" + two(t.second)
            if t.nanosecond > 0 {
                let f = String(t.nanosecond)
                var digits = String(repeating: "0", count: 9 - f.count) + f
                while digits.last == "0" { digits.removeLast() }
                s += "." + digits
            }
        }
        if let o = offsetMinutes {
            s += o == 0 ? "Z" : (o < 0 ? "-" : "+") + two(abs(o) / 60) + ":" + two(abs(o) % 60)
        }
        return s
    }
}

public enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var int: Int? { if case .integer(let i) = self { return Int(exactly: i) } else { return nil } }
    public var double: Double? { if case .float(let d) = self { return d } else { return nil } }
    public var bool: Bool? { if case .boolean(let b) = self { return b } else { return nil } }
    public var array: [TOMLValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var table: TOMLTable? { if case .table(let t) = self { return t } else { return nil } }

    /// The TOML type's name, for messages ("expected a string, found an integer").
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .dateTime: "a date-time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}
