/// The part of YAML that a Prometheus web configuration file uses: nested block mappings by
/// indentation (spaces only), `key: scalar`, plain, 'single' and "double" quoted scalars, `{}` for
/// an empty mapping, comments and a leading `---`. Anything else (sequences, flow collections,
/// anchors, tags, multi-line scalars, tabs, a repeated key) is refused with the line it is on, so
/// a file is never read differently from what its author meant.
public enum YAMLSubset {
    public indirect enum Value: Sendable, Equatable {
        case scalar(String)
        case mapping([Entry])
        /// `~`, `null` or nothing after the colon.
        case null
    }

    public struct Entry: Sendable, Equatable {
        public var key: String
        public var line: Int
        public var value: Value
    }

    /// The line that is not in the subset, and why.
    public struct Failure: Error, Equatable {
        public var line: Int
        public var message: String
    }

    /// Bytes may run out anywhere: a file of at most this many is read.
    public static let mostBytes = 1 << 20

    struct Line {
        var number: Int
        var indent: Int
        var key: String
        /// The text after `key:`, comment removed and trimmed ("" when nothing followed).
        var rest: String
    }

    /// The document's top mapping (empty for an empty document).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> [Entry] {
        guard bytes.count <= mostBytes else { throw Failure(line: 1, message: "more than \(mostBytes) bytes") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure(line: 1, message: "not UTF-8 text") }
        var lines: [Line] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var s = Substring(raw)
            if s.last == "\r" { s = s.dropLast() }
            let body = s.drop { $0 == " " }
            let indent = s.count - body.count
            if body.first == "\t" || (body.isEmpty && s.contains("\t")) {
                throw Failure(line: number, message: "a tab in the indentation (YAML indents with spaces)")
            }
            let content = try stripComment(body, line: number)
            if content.isEmpty { continue }
            if content == "---" && lines.isEmpty && indent == 0 { continue }
            let line = try split(content, indent: indent, line: number)
            // A block scalar's text follows on lines that are no key: value; its indicator is
            // refused here, on its own line, before those lines are read.
            if let first = line.rest.first, first == "|" || first == ">" { _ = try scalar(line.rest, line: number) }
            lines.append(line)
        }
        var at = 0
        let entries = try mapping(lines, &at, indent: lines.first?.indent ?? 0)
        if at < lines.count { throw Failure(line: lines[at].number, message: "indented less than the mapping it follows, or more than its key") }
        return entries
    }

    /// The entries at `indent` from `at` on; stops at the first line indented less.
    static func mapping(_ lines: [Line], _ at: inout Int, indent: Int) throws(Failure) -> [Entry] {
        var entries: [Entry] = []
        var keys: Set<String> = []
        while at < lines.count, lines[at].indent >= indent {
            let l = lines[at]
            guard l.indent == indent else { throw Failure(line: l.number, message: "indented more than the key before it (\(indent) spaces)") }
            guard keys.insert(l.key).inserted else { throw Failure(line: l.number, message: "\(l.key) is given twice") }
            at += 1
            let value: Value
            if l.rest.isEmpty, at < lines.count, lines[at].indent > indent {
                value = .mapping(try mapping(lines, &at, indent: lines[at].indent))
            } else {
                value = try scalar(l.rest, line: l.number)
            }
            entries.append(Entry(key: l.key, line: l.number, value: value))
        }
        return entries
    }

    /// `key: rest`, the key plain or quoted.
    static func split(_ content: Substring, indent: Int, line: Int) throws(Failure) -> Line {
        if content.first == "-" && (content.count == 1 || content.dropFirst().first == " ") {
            throw Failure(line: line, message: "a sequence (- item), which this file does not take")
        }
        var key: String
        var after: Substring
        if content.first == "\"" || content.first == "'" {
            guard let (k, rest) = quoted(content) else { throw Failure(line: line, message: "a quoted key without its closing quote") }
            (key, after) = (k, rest)
            guard after.first == ":" else { throw Failure(line: line, message: "no colon after the key \(key)") }
        } else {
            guard let colon = colonIndex(content) else { throw Failure(line: line, message: "not key: value") }
            key = String(content[..<colon]).trimmingSpaces()
            after = content[colon...]
            if key.isEmpty { throw Failure(line: line, message: "a colon without a key") }
        }
        after = after.dropFirst()
        guard after.isEmpty || after.first == " " else { throw Failure(line: line, message: "no space after the colon of \(key)") }
        return Line(number: line, indent: indent, key: key, rest: String(after).trimmingSpaces())
    }

    /// The first colon followed by a space or the end (a plain key may hold others: `a:b: c`).
    static func colonIndex(_ s: Substring) -> Substring.Index? {
        var i = s.startIndex
        while i < s.endIndex {
            let next = s.index(after: i)
            if s[i] == ":" && (next == s.endIndex || s[next] == " ") { return i }
            i = next
        }
        return nil
    }

    /// The line without its comment: `#` at its start or after a space, outside quotes.
    static func stripComment(_ s: Substring, line: Int) throws(Failure) -> Substring {
        var quote: Character?
        var previous: Character = " "
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if let q = quote {
                if c == "\\" && q == "\"" {
                    i = s.index(after: i)
                    if i == s.endIndex { break }
                } else if c == q {
                    quote = nil
                }
            } else if c == "#" && previous == " " {
                return Substring(String(s[..<i]).trimmingSpaces())
            } else if (c == "\"" || c == "'") && (previous == " " || i == s.startIndex) {
                quote = c
            }
            previous = c
            i = s.index(after: i)
        }
        return Substring(String(s).trimmingSpaces())
    }

    /// A quoted scalar at the start of `s` and what follows it; nil when unclosed or badly escaped.
    static func quoted(_ s: Substring) -> (String, Substring)? {
        guard let q = s.first else { return nil }
        var out = ""
        var i = s.index(after: s.startIndex)
        while i < s.endIndex {
            let c = s[i]
            let next = s.index(after: i)
            if q == "'" && c == "'" {
                if next < s.endIndex && s[next] == "'" {
                    out.append("'")
                    i = s.index(after: next)
                    continue
                }
                return (out, s[next...])
            }
            if q == "\"" && c == "\"" { return (out, s[next...]) }
            if q == "\"" && c == "\\" {
                guard next < s.endIndex else { return nil }
                switch s[next] {
                case "\\": out.append("\\")
                case "\"": out.append("\"")
                case "/": out.append("/")
                case "n": out.append("\n")
                case "t": out.append("\t")
                default: return nil
                }
                i = s.index(after: next)
                continue
            }
            out.append(c)
            i = next
        }
        return nil
    }

    static func scalar(_ rest: String, line: Int) throws(Failure) -> Value {
        if rest.isEmpty || rest == "~" || rest == "null" { return .null }
        if rest == "{}" { return .mapping([]) }
        guard let first = rest.first else { return .null }
        if first == "\"" || first == "'" {
            guard let (value, after) = quoted(Substring(rest)) else {
                throw Failure(line: line, message: "a quoted value without its closing quote, or an escape other than \\\\ \\\" \\/ \\n \\t")
            }
            guard after.allSatisfy({ $0 == " " }) else { throw Failure(line: line, message: "text after a quoted value") }
            return .scalar(value)
        }
        if "[{&*!|>%@`".contains(first) {
            throw Failure(line: line, message: "'\(first)' starts YAML this file does not take (flow collections, anchors, tags, block scalars)")
        }
        if colonIndex(Substring(rest)) != nil { throw Failure(line: line, message: "a second 'key: value' on one line") }
        return .scalar(rest)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
