import Foundation
import PushdiagCore
import PushdiagIO
import Testing

/// pushdiag's TOML parser where tomllib cannot judge it: lines of values and errors, limits, and
/// the files that once crashed pushdiag.
struct TOMLParserTests {
    @Test(
        arguments: [
            ("[\n", 1, "expected a key, saw the end of the line"),
            ("a = 1\n[ \u{E9}]\n", 2, "expected a key, saw '\u{E9}'"),
            ("a = 1\r\nb = 2\r\nb = 3\r\n", 3, "b is defined twice (first on line 2)"),
            ("x = \"\"\"\n\n\n\"\"\"\ny = [\n1,\n2\n}", 8, "expected ',' or ']' in the array, saw '}'"),
            ("a = 1\n\n\u{0}b", 3, "expected a key, a [table] or a comment, saw control character 0x0"),
            ("[a]\nb = 1\n[a]\n", 3, "[a]: the table is declared already (line 1)"),
            ("a = 1 # \u{7F}\n", 1, "control character 0x7F in a comment"),
            ("a = \"\\q\"\n", 1, "unknown escape \\q"),
            ("a = 99999999999999999999\n", 1, "99999999999999999999 does not fit in 64 bits"),
            ("a = 2023-02-29\n", 1, "2023-02-29 is not a date"),
            ("a = 1\rb = 2\n", 1, "a carriage return without a line feed"),
            // What FuzzConfig found aborting toml++ (a header with no key after a byte order mark; a
            // '}' where an array expects a value), now ordinary errors.
            ("\u{FEFF} [\n[ ]\n]\n", 1, "expected a key, saw the end of the line"),
            ("x = [\n\n\n}],\nI[[\n\n", 4, "expected a value, saw '}'"),
        ] as [(String, Int, String)])
    func errorsHaveTheirLine(text: String, line: Int, message: String) {
        do {
            _ = try TOML.parse(text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(error.line == line && error.message == message, "\(error)")
        }
    }

    @Test func valuesKeepTheirLines() throws {
        let t = try TOML.parse("\u{FEFF}a = 1\r\n\r\n[[server]]\nhost = \"h\"\n\n[[server]]\n  port = 3\n[x.y]\nz.w = true\n")
        #expect(t.line(of: "a") == 1 && t["a"] == .integer(1))
        let servers = try #require(t["server"]?.array)
        #expect(servers.count == 2 && servers[0].table?.headerLine == 3 && servers[1].table?.headerLine == 6)
        #expect(servers[0].table?.line(of: "host") == 4 && servers[1].table?.line(of: "port") == 7)
        let y = try #require(t["x"]?.table?["y"]?.table)
        #expect(y.headerLine == 8 && y["z"]?.table?["w"] == .boolean(true) && y.line(of: "z") == 9)
    }

    /// Nesting beyond the limit is refused, not a stack overflow.
    @Test func deepNestingIsRefused() {
        for open in ["[", "{a="] {
            let text = "a = " + String(repeating: open, count: 100_000)
            #expect(throws: TOMLError.self) { try TOML.parse(text) }
        }
        let key = (0..<10_000).map { "k\($0)" }.joined(separator: ".")
        #expect(throws: TOMLError.self) { try TOML.parse("[\(key)]\n") }
        #expect(throws: TOMLError.self) { try TOML.parse("\(key) = 1\n") }
        #expect((try? TOML.parse("a = " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
    }
}
