/// A guard in front of the TOML parser. toml++ 3.4 (the parser inside TOMLKit) *assumes* that a
/// table header's first character after `[` or `[[` starts a key; when it does not (`[é]`, `[#]`,
/// `[` at the end of a line) a debug build aborts on an assertion and a release build runs on under
/// a broken compiler assumption. pushdiag finds such a header first and reports it like any other
/// TOML error, so damaged configuration files never reach that path. It also refuses NUL bytes,
/// which would end the text early for the parser (it reads a C string) and hide what follows.
public enum TOMLHeaderCheck {
    public struct Problem: Equatable, Sendable {
        /// 1-based line of the header.
        public var line: Int
        /// What stands where the key should start ("'é'", "'#'", "the end of the line"), or "NUL".
        public var found: String

        public var message: String {
            found == "NUL" ? "a NUL byte: not a text file" : "table header: expected a key after '[', saw \(found)"
        }
    }

    /// The first table header whose key does not start with a key character or a quote, if any.
    /// Comments, strings (single- and multi-line) and arrays/inline tables are skipped the way a
    /// TOML parser would read them, so `[` inside a value is not taken for a header.
    public static func firstProblem<Bytes: RandomAccessCollection>(in text: Bytes) -> Problem?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        let end = text.endIndex
        if let nul = text.firstIndex(of: 0) {
            return Problem(line: 1 + text[text.startIndex..<nul].reduce(0) { $0 + ($1 == newline ? 1 : 0) }, found: "NUL")
        }
        var i = text.startIndex
        // The parser skips a UTF-8 byte order mark at the start, so the first line starts after it.
        if text.count >= 3 && text[i] == 0xEF && text[i + 1] == 0xBB && text[i + 2] == 0xBF { i += 3 }
        var line = 1
        var depth = 0
        var atLineStart = true

        func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D }
        func isSpaceOrTab(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }  // all the parser skips inside a header
        func startsTriple(_ at: Int, _ q: UInt8) -> Bool {
            at + 2 < end && text[at] == q && text[at + 1] == q && text[at + 2] == q
        }

        while i < end {
            let c = text[i]
            if c == newline {
                line += 1
                atLineStart = true
                i += 1
                continue
            }
            if isBlank(c) { i += 1; continue }
            if c == UInt8(ascii: "#") {
                while i < end && text[i] != newline { i += 1 }
                continue
            }
            if c == quote || c == apostrophe {
                atLineStart = false
                if startsTriple(i, c) {
                    i += 3
                    while i < end && !startsTriple(i, c) {
                        if c == quote && text[i] == UInt8(ascii: "\\") { i += 1 }  // an escape: skip what it escapes
                        if i < end && text[i] == newline { line += 1 }
                        i += 1
                    }
                    i = min(end, i + 3)
                    // A closing delimiter may carry up to two more quotes of the content.
                    var extra = 0
                    while extra < 2 && i < end && text[i] == c { i += 1; extra += 1 }
                } else {
                    i += 1
                    while i < end && text[i] != c && text[i] != newline {
                        if c == quote && text[i] == UInt8(ascii: "\\") && i + 1 < end && text[i + 1] != newline { i += 1 }
                        i += 1
                    }
                    if i < end && text[i] == c { i += 1 }
                }
                continue
            }
            if c == UInt8(ascii: "[") && depth == 0 && atLineStart {
                atLineStart = false
                var j = i + 1
                while j < end && isSpaceOrTab(text[j]) { j += 1 }
                if j < end && text[j] == UInt8(ascii: "[") {
                    j += 1
                    while j < end && isSpaceOrTab(text[j]) { j += 1 }
                }
                guard j < end else { return nil }  // the parser reports the end of the file itself
                let k = text[j]
                let isKeyStart = (k >= 0x30 && k <= 0x39) || (k >= 0x41 && k <= 0x5A) || (k >= 0x61 && k <= 0x7A)
                    || k == UInt8(ascii: "_") || k == UInt8(ascii: "-") || k == quote || k == apostrophe
                    || k == UInt8(ascii: "]")
                if !isKeyStart {
                    return Problem(line: line, found: describe(text, at: j))
                }
                i = j
                continue
            }
            atLineStart = false
            switch c {
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
            i += 1
        }
        return nil
    }

    private static func describe<Bytes: RandomAccessCollection>(_ text: Bytes, at j: Int) -> String
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let c = text[j]
        if c == UInt8(ascii: "\n") { return "the end of the line" }
        if c == 0x0D { return "a carriage return" }
        if c < 0x20 || c == 0x7F { return "control character 0x\(String(c, radix: 16, uppercase: true))" }
        // One UTF-8 sequence (the leading byte says how long), shown as the character it encodes.
        let length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2
        let scalar = String(decoding: text[j..<min(text.endIndex, j + length)], as: UTF8.self)
        return "'\(scalar)'"
    }
}
