import Foundation
import TestSupport
import Testing

/// swift-argument-parser checks a command's declarations (names used twice, positional arguments
/// that cannot all be filled, flags that cannot be inverted, ...) only in a debug build, each time
/// it builds a command's arguments, and a configuration failure there ends the run. `make test`
/// runs the other CLI tests on the release binary (PUSHDIAG_BINARY), where that check is compiled
/// out, so this one asks the debug build for the help of every command and subcommand, found from
/// the help itself so that a new command is checked too.
struct ArgumentDefinitionTests {
    /// The subcommands `help` lists for `path` (report's "run (default)" included).
    func subcommands(_ help: String) throws -> [String] {
        guard let section = help.range(of: "SUBCOMMANDS:") else { return [] }
        let pattern = try Regex("^  ([a-z][a-z-]*)( \\(default\\))? +\\S")
        return help[section.upperBound...].split(separator: "\n").compactMap { line in
            guard let m = String(line).firstMatch(of: pattern), let name = m.output[1].substring else { return nil }
            return String(name)
        }
    }

    @Test func everyCommandsDeclarationsPassTheDebugBuildsChecks() throws {
        let binary = TestPaths.debugBinary.path
        #expect(FileManager.default.isExecutableFile(atPath: binary), "no debug build at \(binary)")
        var queue: [[String]] = [[]]
        var checked: [String] = []
        while !queue.isEmpty {
            let path = queue.removeFirst()
            let r = try run(binary, ["help"] + path)
            #expect(r.status == 0 && r.stdout.contains("USAGE:"), "help \(path.joined(separator: " ")): status \(r.status): \(r.stderr)")
            checked.append(path.joined(separator: " "))
            queue += try subcommands(r.stdout).map { path + [$0] }
        }
        // The top level, its 13 commands and report's and config's own.
        #expect(checked.count >= 17, "\(checked)")
        #expect(checked.contains("report html") && checked.contains("config check"), "\(checked)")
    }
}
