/// The TOML 1.0 parser behind `TOML.parse`: one pass over the bytes, recursive descent for values
/// (bounded by `TOML.maximumDepth`), tables built in reference-typed nodes so that headers, dotted
/// keys and arrays of tables can reopen them, then frozen into `TOMLTable` values.
///
/// Which tables may be extended follows the specification and Python's `tomllib`: a table is
/// *declared* by its `[header]`, by `[[header]]`, or by dotted keys once the section that used
/// them has ended; a declared table cannot be declared again nor extended by dotted keys from
/// elsewhere; inline tables and arrays written as values are closed.
struct TOMLParser {
    private let b: [UInt8]
    private var i: Int
    private var line = 1
    private var lineStart: Int

    init(_ bytes: [UInt8]) {
        b = bytes
        i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        lineStart = i
    }

    // MARK: - Tables under construction

    private final class Node {
        enum Slot {
            case value(TOMLValue)
            case table(Node)
            case tables([Node])
        }
        var order: [String] = []
        var slots: [String: Slot] = [:]
        var lines: [String: Int] = [:]
        var declared = false
        var pending = false
        var headerLine: Int?

        func add(_ key: String, _ slot: Slot, line: Int) {
            if slots.updateValue(slot, forKey: key) == nil { order.append(key) }
            lines[key] = line
        }

        func build() -> TOMLTable {
            var t = TOMLTable()
            t.headerLine = headerLine
            for key in order {
                let line = lines[key] ?? 0
                switch slots[key] {
                case .value(let v): t.set(key, v, line: line)
                case .table(let n): t.set(key, .table(n.build()), line: line)
                case .tables(let ns): t.set(key, .array(ns.map { .table($0.build()) }), line: line)
                case nil: break
                }
            }
            return t
        }
    }

    // MARK: - Characters

    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
    private static let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")

    private func at(_ p: Int) -> UInt8? { p < b.count ? b[p] : nil }

    private func starts(with s: StaticString, at p: Int) -> Bool {
        let n = s.utf8CodeUnitCount
        guard p + n <= b.count else { return false }
        return s.withUTF8Buffer { u in (0..<n).allSatisfy { b[p + $0] == u[$0] } }
    }

    private static func isBare(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }
    private static func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
    private static func isControl(_ c: UInt8) -> Bool { (c < 0x20 && c != tab) || c == 0x7F }

    /// What stands at `p`, for messages: 'x', "the end of the line", "control character 0x1".
    private func seen(_ p: Int? = nil) -> String {
        let p = p ?? i
        guard p < b.count else { return "the end of the file" }
        let c = b[p]
        switch c {
        case Self.lf: return "the end of the line"
        case Self.cr: return "a carriage return"
        case Self.tab: return "a tab"
        case _ where c < 0x20 || c == 0x7F: return "control character 0x\(String(c, radix: 16, uppercase: true))"
        default:
            let n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2
            return "'\(String(decoding: b[p..<min(b.count, p + n)], as: UTF8.self))'"
        }
    }

    private func fail(_ message: String, at p: Int? = nil) -> TOMLError {
        let p = min(p ?? i, b.count)
        var column = 1
        var k = lineStart
        while k < p {
            if b[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        return TOMLError(line: line, column: column, message: message)
    }

    private func fail(line: Int, _ message: String) -> TOMLError {
        TOMLError(line: line, column: 1, message: message)
    }

    private mutating func skipSpaces() {
        while i < b.count && (b[i] == Self.space || b[i] == Self.tab) { i += 1 }
    }

    /// At LF or CR LF: steps over it and counts the line. A CR alone is refused.
    private mutating func lineBreak() throws(TOMLError) {
        if b[i] == Self.cr {
            guard at(i + 1) == Self.lf else { throw fail("a carriage return without a line feed") }
            i += 1
        }
        i += 1
        line += 1
        lineStart = i
    }

    private mutating func skipComment() throws(TOMLError) {
        guard at(i) == UInt8(ascii: "#") else { return }
        i += 1
        while i < b.count && b[i] != Self.lf {
            if b[i] == Self.cr && at(i + 1) == Self.lf { return }
            if Self.isControl(b[i]) { throw fail("\(seen()) in a comment") }
            i += 1
        }
    }

    private func dotted(_ parts: [String]) -> String {
        parts.map { p in p.utf8.allSatisfy(Self.isBare) && !p.isEmpty ? p : "\"\(p)\"" }.joined(separator: ".")
    }

    // MARK: - Document

    mutating func document() throws(TOMLError) -> TOMLTable {
        try validateUTF8()
        let root = Node()
        var current = root
        var pending: [Node] = []
        while true {
            skipSpaces()
            guard i < b.count else { break }
            let c = b[i]
            if c == Self.lf || c == Self.cr {
                try lineBreak()
                continue
            }
            if Self.isBare(c) || c == Self.quote || c == Self.apostrophe {
                try keyValue(into: current, pending: &pending, depth: 0)
                skipSpaces()
            } else if c == UInt8(ascii: "[") {
                // The section that is ending closes the tables its dotted keys made.
                for n in pending {
                    n.declared = true
                    n.pending = false
                }
                pending.removeAll()
                current = try header(root: root)
                skipSpaces()
            } else if c != UInt8(ascii: "#") {
                throw fail("expected a key, a [table] or a comment, saw \(seen())")
            }
            try skipComment()
            guard i < b.count else { break }
            guard b[i] == Self.lf || b[i] == Self.cr else { throw fail("expected the end of the line, saw \(seen())") }
            try lineBreak()
        }
        return root.build()
    }

    private mutating func validateUTF8() throws(TOMLError) {
        var p = i
        while p < b.count {
            let c = b[p]
            if c < 0x80 {
                if c == Self.lf {
                    line += 1
                    lineStart = p + 1
                }
                p += 1
                continue
            }
            let need: Int
            let low: UInt8
            let high: UInt8
            switch c {
            case 0xC2...0xDF: (need, low, high) = (1, 0x80, 0xBF)
            case 0xE0: (need, low, high) = (2, 0xA0, 0xBF)
            case 0xED: (need, low, high) = (2, 0x80, 0x9F)
            case 0xE1...0xEF: (need, low, high) = (2, 0x80, 0xBF)
            case 0xF0: (need, low, high) = (3, 0x90, 0xBF)
            case 0xF4: (need, low, high) = (3, 0x80, 0x8F)
            case 0xF1...0xF3: (need, low, high) = (3, 0x80, 0xBF)
            default: throw fail("byte 0x\(String(c, radix: 16, uppercase: true)) is not UTF-8 text", at: p)
            }
            var ok = p + need < b.count && b[p + 1] >= low && b[p + 1] <= high
            var k = 2
            while ok && k <= need {
                ok = b[p + k] & 0xC0 == 0x80
                k += 1
            }
            guard ok else { throw fail("byte 0x\(String(c, radix: 16, uppercase: true)) is not UTF-8 text", at: p) }
            p += need + 1
        }
        line = 1
        lineStart = i
    }

    // MARK: - Keys, pairs and headers

    private mutating func key() throws(TOMLError) -> [String] {
        var parts: [String] = []
        while true {
            guard let c = at(i) else { throw fail("expected a key, saw the end of the file") }
            if Self.isBare(c) {
                let s = i
                while i < b.count && Self.isBare(b[i]) { i += 1 }
                parts.append(String(decoding: b[s..<i], as: UTF8.self))
            } else if c == Self.quote {
                parts.append(try string(Self.quote, multilineAllowed: false))
            } else if c == Self.apostrophe {
                parts.append(try string(Self.apostrophe, multilineAllowed: false))
            } else {
                throw fail("expected a key, saw \(seen())")
            }
            guard parts.count <= TOML.maximumDepth else { throw fail("a key of more than \(TOML.maximumDepth) parts") }
            skipSpaces()
            guard at(i) == UInt8(ascii: ".") else { return parts }
            i += 1
            skipSpaces()
        }
    }

    private mutating func keyValue(into table: Node, pending: inout [Node], depth: Int) throws(TOMLError) {
        let keyLine = line
        let parts = try key()
        guard at(i) == UInt8(ascii: "=") else { throw fail("expected '=' after the key \(dotted(parts)), saw \(seen())") }
        i += 1
        skipSpaces()
        let value = try value(depth: depth)
        var node = table
        for (n, part) in parts.dropLast().enumerated() {
            let path = dotted(Array(parts[...n]))
            switch node.slots[part] {
            case nil:
                let t = Node()
                t.pending = true
                pending.append(t)
                node.add(part, .table(t), line: keyLine)
                node = t
            case .table(let t):
                if t.declared {
                    throw fail(line: keyLine, "\(path) is a table declared elsewhere (line \(node.lines[part] ?? 0)); a dotted key cannot add to it")
                }
                if !t.pending {
                    t.pending = true
                    pending.append(t)
                }
                node = t
            case .tables:
                throw fail(line: keyLine, "\(path) is an array of tables (line \(node.lines[part] ?? 0)); a dotted key cannot add to it")
            case .value(let v):
                throw fail(line: keyLine, "\(path) is \(v.typeName) (line \(node.lines[part] ?? 0)), not a table to add \(dotted(parts)) to")
            }
        }
        let last = parts[parts.count - 1]
        if node.slots[last] != nil {
            throw fail(line: keyLine, "\(dotted(parts)) is defined twice (first on line \(node.lines[last] ?? 0))")
        }
        node.add(last, .value(value), line: keyLine)
    }

    private mutating func header(root: Node) throws(TOMLError) -> Node {
        let headerLine = line
        let isArray = at(i + 1) == UInt8(ascii: "[")
        i += isArray ? 2 : 1
        skipSpaces()
        let parts = try key()
        let name = isArray ? "[[\(dotted(parts))]]" : "[\(dotted(parts))]"
        if isArray {
            guard starts(with: "]]", at: i) else { throw fail("expected ']]' to end the header [[\(dotted(parts)), saw \(seen())") }
            i += 2
        } else {
            guard at(i) == UInt8(ascii: "]") else { throw fail("expected ']' to end the header [\(dotted(parts)), saw \(seen())") }
            i += 1
        }
        var node = root
        for (n, part) in parts.dropLast().enumerated() {
            switch node.slots[part] {
            case nil:
                let t = Node()
                node.add(part, .table(t), line: headerLine)
                node = t
            case .table(let t): node = t
            case .tables(let ts): node = ts[ts.count - 1]
            case .value(let v):
                throw fail(line: headerLine, "\(name): \(dotted(Array(parts[...n]))) is \(v.typeName) (line \(node.lines[part] ?? 0)), not a table")
            }
        }
        let last = parts[parts.count - 1]
        let fresh = Node()
        fresh.declared = true
        fresh.headerLine = headerLine
        switch (node.slots[last], isArray) {
        case (nil, true):
            node.add(last, .tables([fresh]), line: headerLine)
            return fresh
        case (nil, false):
            node.add(last, .table(fresh), line: headerLine)
            return fresh
        case (.tables(let ts), true):
            node.slots[last] = .tables(ts + [fresh])
            return fresh
        case (.table(let t), false) where !t.declared:
            t.declared = true
            t.headerLine = headerLine
            node.lines[last] = headerLine
            return t
        case (.table, _):
            throw fail(line: headerLine, "\(name): the table is declared already (line \(node.lines[last] ?? 0))")
        case (.tables, false):
            throw fail(line: headerLine, "\(name): the name is an array of tables (line \(node.lines[last] ?? 0))")
        case (.value(let v), _):
            throw fail(line: headerLine, "\(name): the name is \(v.typeName) already (line \(node.lines[last] ?? 0))")
        }
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(TOMLError) -> TOMLValue {
        guard let c = at(i) else { throw fail("expected a value, saw the end of the file") }
        switch c {
        case Self.quote, Self.apostrophe: return .string(try string(c))
        case UInt8(ascii: "t") where starts(with: "true", at: i):
            i += 4
            return .boolean(true)
        case UInt8(ascii: "f") where starts(with: "false", at: i):
            i += 5
            return .boolean(false)
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard depth < TOML.maximumDepth else { throw fail("arrays and inline tables nested more than \(TOML.maximumDepth) deep") }
            return c == UInt8(ascii: "[") ? try array(depth: depth + 1) : try inlineTable(depth: depth + 1)
        default: break
        }
        if let d = try dateTime() { return .dateTime(d) }
        if let n = try number() { return n }
        for (word, v) in [("inf", Double.infinity), ("+inf", .infinity), ("-inf", -.infinity), ("nan", .nan), ("+nan", .nan), ("-nan", -.nan)] {
            let u = Array(word.utf8)
            if i + u.count <= b.count && b[i..<(i + u.count)].elementsEqual(u) {
                i += u.count
                return .float(v)
            }
        }
        throw fail("expected a value, saw \(seen())")
    }

    private mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        let openLine = line
        i += 1
        var items: [TOMLValue] = []
        try skipArraySpace()
        if at(i) == UInt8(ascii: "]") {
            i += 1
            return .array(items)
        }
        while true {
            items.append(try value(depth: depth))
            try skipArraySpace()
            guard let c = at(i) else { throw fail("the array opened on line \(openLine) is not closed") }
            if c == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            guard c == UInt8(ascii: ",") else { throw fail("expected ',' or ']' in the array, saw \(seen())") }
            i += 1
            try skipArraySpace()
            if at(i) == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
        }
    }

    private mutating func skipArraySpace() throws(TOMLError) {
        while true {
            skipSpaces()
            guard let c = at(i) else { return }
            if c == Self.lf || c == Self.cr { try lineBreak() } else if c == UInt8(ascii: "#") { try skipComment() } else { return }
        }
    }

    private mutating func inlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        i += 1
        let t = Node()
        var scratch: [Node] = []
        skipSpaces()
        if at(i) == UInt8(ascii: "}") {
            i += 1
            return .table(t.build())
        }
        while true {
            try keyValue(into: t, pending: &scratch, depth: depth)
            skipSpaces()
            guard let c = at(i) else { throw fail("the inline table is not closed") }
            if c == UInt8(ascii: "}") {
                i += 1
                return .table(t.build())
            }
            guard c == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in the inline table (all on one line), saw \(seen())") }
            i += 1
            skipSpaces()
        }
    }

    // MARK: - Strings

    /// A string at `i`: basic ("…", with escapes) when `delimiter` is `"`, literal ('…') when it
    /// is `'`; tripled, multi-line (never for keys: `"""k"""` is the key `""` and more).
    private mutating func string(_ delimiter: UInt8, multilineAllowed: Bool = true) throws(TOMLError) -> String {
        let multiline = multilineAllowed && at(i + 1) == delimiter && at(i + 2) == delimiter
        let basic = delimiter == Self.quote
        let name = basic ? "string" : "literal string"
        let openLine = line
        var out: [UInt8] = []
        i += multiline ? 3 : 1
        if multiline, let c = at(i), c == Self.lf || (c == Self.cr && at(i + 1) == Self.lf) { try lineBreak() }
        while true {
            guard let c = at(i) else {
                throw fail(multiline ? "the multi-line \(name) opened on line \(openLine) is not closed" : "the \(name) is not closed")
            }
            switch c {
            case delimiter:
                if !multiline {
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                }
                if at(i + 1) == delimiter && at(i + 2) == delimiter {
                    i += 3
                    // Up to two more delimiters belong to the content: """a"""" is `a"`.
                    for _ in 0..<2 where at(i) == delimiter {
                        out.append(delimiter)
                        i += 1
                    }
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(c)
                i += 1
            case Self.backslash where basic:
                if multiline, let n = at(i + 1), n == Self.space || n == Self.tab || n == Self.lf || n == Self.cr {
                    // A line-ending backslash: the line break and the white space after it vanish.
                    i += 1
                    skipSpaces()
                    guard let e = at(i), e == Self.lf || e == Self.cr else { throw fail("a backslash followed by spaces must end the line") }
                    while let w = at(i), w == Self.space || w == Self.tab || w == Self.lf || w == Self.cr {
                        if w == Self.lf || w == Self.cr { try lineBreak() } else { i += 1 }
                    }
                } else {
                    try escape(into: &out)
                }
            case Self.lf where multiline, Self.cr where multiline:
                try lineBreak()
                out.append(Self.lf)
            case Self.lf, Self.cr:
                let triple = basic ? "\"\"\"" : "'''"
                throw fail("the \(name) is not closed on its line (\(triple) starts a multi-line one)")
            case _ where Self.isControl(c):
                throw fail(
                    basic
                        ? "\(seen()) in a string; write it as an escape such as \\u0001" : "\(seen()) in a literal string (a basic string \"…\" can escape it)")
            default:
                out.append(c)
                i += 1
            }
        }
    }

    private mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = i
        guard let e = at(i + 1) else { throw fail("the string is not closed") }
        i += 2
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "r"): out.append(0x0D)
        case Self.quote, Self.backslash: out.append(e)
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let n = e == UInt8(ascii: "u") ? 4 : 8
            var v: UInt32 = 0
            for k in 0..<n {
                guard let h = at(i + k), let d = hexValue(h) else { throw fail("\\\(Unicode.Scalar(e)) needs \(n) hexadecimal digits", at: start) }
                v = v << 4 | UInt32(d)
            }
            guard let scalar = Unicode.Scalar(v) else {
                throw fail("\\\(Unicode.Scalar(e)) escape: U+\(String(v, radix: 16, uppercase: true)) is not a Unicode scalar value", at: start)
            }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
            i += n
        case Self.lf, Self.cr:
            throw fail("a backslash at the end of the line belongs in a multi-line string (\"\"\")", at: start)
        default:
            throw fail("unknown escape \\\(seen(start + 1).trimmingQuotes)", at: start)
        }
    }

    private func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    // MARK: - Numbers, dates and times

    /// `count` decimal digits at `p` as a number, or nil.
    private func digits(_ p: Int, _ count: Int) -> Int? {
        guard p + count <= b.count else { return nil }
        var v = 0
        for k in p..<(p + count) {
            guard Self.isDigit(b[k]) else { return nil }
            v = v * 10 + Int(b[k] - 0x30)
        }
        return v
    }

    /// HH:MM:SS with an optional fraction at `p`: the time and where it ends.
    private func time(at p: Int) -> (TOMLDateTime.Time, Int)? {
        guard let h = digits(p, 2), h <= 23, at(p + 2) == UInt8(ascii: ":"), let m = digits(p + 3, 2), m <= 59,
            at(p + 5) == UInt8(ascii: ":"), let s = digits(p + 6, 2), s <= 59
        else { return nil }
        var q = p + 8
        var nanos = 0
        if at(q) == UInt8(ascii: "."), Self.isDigit(at(q + 1)) {
            q += 1
            var n = 0
            while Self.isDigit(at(q)) {
                if n < 9 {
                    nanos = nanos * 10 + Int(b[q] - 0x30)
                    n += 1
                }
                q += 1
            }
            for _ in n..<9 { nanos *= 10 }
        }
        return (TOMLDateTime.Time(hour: h, minute: m, second: s, nanosecond: nanos), q)
    }

    private mutating func dateTime() throws(TOMLError) -> TOMLDateTime? {
        let s = i
        if let y = digits(s, 4), at(s + 4) == UInt8(ascii: "-"), let mo = digits(s + 5, 2), (1...12).contains(mo),
            at(s + 7) == UInt8(ascii: "-"), let d = digits(s + 8, 2), (1...31).contains(d)
        {
            var result = TOMLDateTime(date: .init(year: y, month: mo, day: d))
            var p = s + 10
            if let sep = at(p), sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t") || sep == Self.space, let (t, q) = time(at: p + 1) {
                result.time = t
                p = q
                if let z = at(p), z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
                    result.offsetMinutes = 0
                    p += 1
                } else if let sign = at(p), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
                    let oh = digits(p + 1, 2), oh <= 23, at(p + 3) == UInt8(ascii: ":"), let om = digits(p + 4, 2), om <= 59
                {
                    result.offsetMinutes = (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 60 + om)
                    p += 6
                }
            }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
            guard y >= 1, d <= days else { throw fail("\(String(decoding: b[s..<(s + 10)], as: UTF8.self)) is not a date") }
            i = p
            return result
        }
        if let (t, q) = time(at: s) {
            i = q
            return TOMLDateTime(time: t)
        }
        return nil
    }

    /// Digits of `radix` with single underscores between them, from `p`; where they end.
    private func digitRun(from p: Int, _ isDigit: (UInt8) -> Bool) -> Int {
        var q = p
        guard let c = at(q), isDigit(c) else { return p }
        q += 1
        while let c = at(q) {
            if isDigit(c) {
                q += 1
            } else if c == UInt8(ascii: "_"), let n = at(q + 1), isDigit(n) {
                q += 2
            } else {
                break
            }
        }
        return q
    }

    private mutating func number() throws(TOMLError) -> TOMLValue? {
        let s = i
        if at(s) == UInt8(ascii: "0"), let k = at(s + 1) {
            let radix: Int? = k == UInt8(ascii: "x") ? 16 : k == UInt8(ascii: "o") ? 8 : k == UInt8(ascii: "b") ? 2 : nil
            if let radix {
                let isDigit: (UInt8) -> Bool = { c in
                    switch radix {
                    case 16: (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
                    case 8: c >= 0x30 && c <= 0x37
                    default: c == 0x30 || c == 0x31
                    }
                }
                let end = digitRun(from: s + 2, isDigit)
                if end > s + 2 {
                    let text = String(decoding: b[(s + 2)..<end].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
                    guard let v = Int64(text, radix: radix) else { throw fail("\(String(decoding: b[s..<end], as: UTF8.self)) does not fit in 64 bits") }
                    i = end
                    return .integer(v)
                }
            }
        }
        var p = s
        if let c = at(p), c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { p += 1 }
        if at(p) == UInt8(ascii: "0") {
            p += 1
        } else if let c = at(p), c >= 0x31 && c <= 0x39 {
            p = digitRun(from: p, { $0 >= 0x30 && $0 <= 0x39 })
        } else {
            return nil
        }
        var isFloat = false
        if at(p) == UInt8(ascii: "."), Self.isDigit(at(p + 1)) {
            p = digitRun(from: p + 1, { $0 >= 0x30 && $0 <= 0x39 })
            isFloat = true
        }
        if let e = at(p), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            var q = p + 1
            if let sign = at(q), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { q += 1 }
            if Self.isDigit(at(q)) {
                p = digitRun(from: q, { $0 >= 0x30 && $0 <= 0x39 })
                isFloat = true
            }
        }
        let text = String(decoding: b[s..<p].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if isFloat {
            guard let d = Double(text) else { throw fail("\(text) is not a number") }
            i = p
            return .float(d)
        }
        guard let v = Int64(text) else { throw fail("\(text) does not fit in 64 bits") }
        i = p
        return .integer(v)
    }
}

extension String {
    fileprivate var trimmingQuotes: String { hasPrefix("'") && hasSuffix("'") && count >= 2 ? String(dropFirst().dropLast()) : self }
}
