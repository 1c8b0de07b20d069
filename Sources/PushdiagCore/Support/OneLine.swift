extension String {
    /// The text on one line, its control characters escaped ("fals\n" → "fals\\n", U+0007 →
    /// "\\u{7}"): for a message that quotes what a file or a request held, so that no line break
    /// in it starts a line of its own (a forged log line, a torn error message).
    public var oneLine: String {
        var out = ""
        for u in unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F: out += "\\u{\(String(u.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
