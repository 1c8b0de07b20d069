/// Text from outside (an SSID's bytes, an interface name the kernel or a recording gives, a
/// recording's place names and settings) as it is printed: as is where it is UTF-8 without
/// control characters, else printable ASCII with every other byte (and backslash) as \xNN, so a
/// crafted recording cannot move the terminal's cursor or colour what follows.
public enum PrintableText {
    public static func escape(_ s: String) -> String {
        s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) ? SSIDText.render(Array(s.utf8)) : s
    }
}

/// SSIDs are bytes; show them as text where they are UTF-8 and printable, escaping the rest.
public enum SSIDText {
    public static func render(_ bytes: [UInt8]) -> String {
        if let s = String(validating: bytes, as: UTF8.self), !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return s
        }
        var out = ""
        for b in bytes {
            if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789abcdef")
                out += "\\x" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 0xF)])
            }
        }
        return out
    }
}
