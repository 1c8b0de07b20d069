import Foundation
import TestSupport
import Testing

/// `--help`, the man page and the other docs stay in step with the commands themselves. The list
/// of commands and options comes from pushdiag's own description of its interface
/// (swift-argument-parser's `--experimental-dump-help`), not from a list kept by hand, so an option
/// added to a command fails here until it is documented, and one removed fails until the docs stop
/// naming it.
@Suite struct DocumentationTests {
    struct Command: CustomStringConvertible {
        var path: [String]
        /// Long options, `--help` and `--version` aside.
        var options: [String]
        var hasSubcommands: Bool
        var description: String { (["pushdiag"] + path).joined(separator: " ") }
        /// How the man page names it: `report run` is the default subcommand, written `report`.
        var manName: String { (path.last == "run" ? Array(path.dropLast()) : path).joined(separator: " ") }
    }

    static func commands() throws -> (commands: [Command], everyOption: Set<String>) {
        let r = try pushdiag("--experimental-dump-help")
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try json(r.stdout)["command"] as? [String: Any])
        var commands: [Command] = []
        var every: Set<String> = []
        func walk(_ node: [String: Any], _ path: [String]) {
            var options: [String] = []
            for argument in node["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] {
                    guard let n = name["name"] as? String else { continue }
                    let option = (name["kind"] as? String == "short" ? "-" : "--") + n
                    every.insert(option)
                    if option.hasPrefix("--"), option != "--help", option != "--version" { options.append(option) }
                }
            }
            let children = (node["subcommands"] as? [[String: Any]] ?? []).filter { $0["commandName"] as? String != "help" }
            if !path.isEmpty { commands.append(Command(path: path, options: options, hasSubcommands: !children.isEmpty)) }
            for child in children { walk(child, path + [child["commandName"] as? String ?? "?"]) }
        }
        walk(root, [])
        return (commands, every)
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: TestPaths.root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func roff(_ option: String) -> String { option.replacingOccurrences(of: "-", with: "\\-") }
    /// Roff without its hyphen and font escapes (`\\fP\\-\\-drop` → `--drop`).
    static func plain<S: StringProtocol>(_ roff: S) -> String {
        ["\\fB", "\\fI", "\\fR", "\\fP"].reduce(roff.replacingOccurrences(of: "\\-", with: "-")) { $0.replacingOccurrences(of: $1, with: "") }
    }

    /// The long options named in a text, whole (`--monitorx` is not `--monitor`).
    static let optionPattern = try! NSRegularExpression(pattern: "(?<![\\w-])--[a-z0-9]+(?:-[a-z0-9]+)*(?![\\w-])")
    static func options(in text: String) -> [String] {
        optionPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    /// The man page's parts: the text of each `.SS "pushdiag NAME …"` section by NAME, and the
    /// entries (`.TP` paragraphs) of OPTIONS.
    static func manParts(_ man: String) -> (sections: [String: String], entries: [String]) {
        let lines = man.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var sections: [String: String] = [:]
        var entries: [String] = []
        var section: String?
        var inOptions = false
        for line in lines {
            if line.hasPrefix(".SH ") {
                inOptions = line == ".SH OPTIONS"
                section = nil
                if inOptions { entries = [] }
                continue
            }
            if line.hasPrefix(".SS ") {
                // .SS "pushdiag report html" → "report html"; arguments in capitals or with escapes end the name.
                let title = line.dropFirst(4).replacingOccurrences(of: "\"", with: "").split(separator: " ").dropFirst()
                section = title.prefix { $0.allSatisfy { $0.isLowercase } }.joined(separator: " ")
                continue
            }
            if let s = section { sections[s, default: ""] += line + "\n" }
            if inOptions {
                if line == ".TP" { entries.append("") } else if !entries.isEmpty { entries[entries.count - 1] += line + "\n" }
            }
        }
        return (sections, entries)
    }

    @Test func everyCommandAndOptionIsInHelpAndTheManPage() throws {
        let (commands, _) = try Self.commands()
        #expect(commands.count >= 12, "\(commands)")
        let man = try Self.text("man/pushdiag.1")
        let (sections, entries) = Self.manParts(man)
        #expect(entries.count > 30)
        let synopsis = man.components(separatedBy: ".SH SYNOPSIS").last?.components(separatedBy: ".SH ").first ?? ""
        for command in commands {
            let help = try pushdiag(command.path + ["--help"])
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            for option in command.options {
                #expect(help.stdout.contains(option), "\(command) --help names \(option)")
            }
            if command.hasSubcommands && command.options.isEmpty { continue }
            #expect(synopsis.contains(".B pushdiag \(command.manName)"), "the synopsis shows \(command)")
            let section = sections[command.manName]
            #expect(section != nil, "the man page has a section for \(command)")
            let name = try NSRegularExpression(pattern: "(?<![\\w-])\(NSRegularExpression.escapedPattern(for: command.manName))\\b")
            for option in command.options {
                // An OPTIONS entry headed by the option, which names the command, or which the
                // command's own section names.
                let mine = entries.filter { Self.options(in: Self.plain($0.split(separator: "\n").first ?? "")).contains(option) }
                #expect(!mine.isEmpty, "the man page's OPTIONS has an entry for \(option) (\(command))")
                let named = mine.contains { name.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
                #expect(
                    named || section?.contains(Self.roff(option)) == true,
                    "the man page says \(option) is an option of \(command)")
            }
        }
    }

    /// The reverse: every option the docs name exists. The man page is plain ASCII roff (groff
    /// warns about other bytes unless preconv runs first).
    @Test func theDocsNameOnlyOptionsThatExist() throws {
        let (_, every) = try Self.commands()
        let man = try Self.text("man/pushdiag.1")
        #expect(man.unicodeScalars.allSatisfy { $0.isASCII }, "man/pushdiag.1 is ASCII")
        let named = Self.options(in: Self.plain(man))
        #expect(named.count > 100)
        // argument-parser's hidden root option, which pushdiag answers itself (CompletionScript).
        let generate = try pushdiag("--generate-completion-script", "bash")
        let hidden: Set<String> = generate.status == 0 && generate.stdout.contains("_pushdiag()") ? ["--generate-completion-script"] : []
        for o in Set(named).sorted() where !every.contains(o) && !hidden.contains(o) { Issue.record("man/pushdiag.1 names \(o), which no command has") }
        // In the other docs, options on lines that run pushdiag.
        for file in ["README.md", "docs/ARCHITECTURE.md", "docs/RELIABILITY.md", "docs/PERFORMANCE.md", "contrib/pushdiag.cron"] {
            let text = try Self.text(file)
            for line in text.split(separator: "\n") where line.contains("pushdiag ") {
                for o in Self.options(in: String(line)) where !every.contains(o) {
                    Issue.record("\(file) names \(o), which no command has: \(line)")
                }
            }
        }
    }
}

/// Shell completions: file arguments complete files, interfaces the system's interfaces.
struct CompletionTests {
    /// The value completion bash is given for `option` of `function` (`_pushdiag_wifi`).
    func completion(_ script: String, _ function: String, _ option: String) -> String? {
        guard let start = script.range(of: "\(function)() {") else { return nil }
        let body = script[start.upperBound...].prefix { _ in true }
        guard let end = body.range(of: "\n}\n"), let o = body[..<end.lowerBound].range(of: "'\(option)')\n") else { return nil }
        return body[o.upperBound...].split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func filesAndInterfacesComplete() throws {
        let bash = try pushdiag("--generate-completion-script", "bash").stdout
        for (function, option) in [
            ("_pushdiag_wifi", "--replay"), ("_pushdiag_wifi", "--record"), ("_pushdiag_survey", "--config"), ("_pushdiag_survey", "--capture"),
            ("_pushdiag_report_run", "--history"), ("_pushdiag_report_run", "--textfile"), ("_pushdiag_report_html", "--output"),
            ("_pushdiag_heartbeat", "--ca-file"), ("_pushdiag_responder", "--tls-cert"), ("_pushdiag_route", "--replay"),
        ] {
            #expect(completion(bash, function, option) == "__pushdiag_add_completions -f", "\(function) \(option)")
        }
        for (function, option) in [("_pushdiag_wifi", "--interface"), ("_pushdiag_survey", "--monitor"), ("_pushdiag_capture", "--interface")] {
            #expect(completion(bash, function, option)?.contains("/sys/class/net") == true, "\(function) \(option)")
        }
    }

    /// #13.17: `report` runs `report run` by default, so run's options complete right after
    /// `report` (argument-parser's scripts offered report's --help and --version only), in bash
    /// and fish as those shells complete, and in zsh's specs.
    @Test func reportCompletesItsDefaultSubcommandsOptions() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data().write(to: dir.appendingPathComponent("site.db"))
        for shell in ["bash", "zsh", "fish"] {
            try Data(try pushdiag("--generate-completion-script", shell).stdout.utf8).write(to: dir.appendingPathComponent("pushdiag.\(shell)"))
        }
        // bash: the completion function called as bash calls it, COMP_* set.
        let driver = """
            source pushdiag.bash
            comp() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
              _pushdiag pushdiag "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo "${COMPREPLY[*]}"; }
            comp pushdiag report --his
            comp pushdiag report --history ""
            comp pushdiag report ""
            comp pushdiag report --history site.db --text
            comp pushdiag report html --ou
            """
        let bash = try run("/bin/bash", ["-c", "cd '\(dir.path)' && " + driver])
        let lines = bash.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { Set($0.split(separator: " ").map(String.init)) }
        #expect(bash.status == 0 && lines.count >= 5, "\(bash.stdout) \(bash.stderr)")
        guard lines.count >= 5 else { return }
        #expect(lines[0] == ["--history"], "report --his: \(lines[0])")
        #expect(lines[1].contains("site.db") && !lines[1].contains("run"), "report --history: a file, \(lines[1])")
        #expect(lines[2].isSuperset(of: ["run", "html", "--history", "--textfile", "--server"]), "report: \(lines[2])")
        #expect(lines[3] == ["--textfile"] && lines[4] == ["--output"], "\(lines[3]) \(lines[4])")
        if let fish = TestPaths.which("fish") {
            func complete(_ line: String) throws -> [String] {
                let r = try run(fish, ["-c", "cd '\(dir.path)'; source pushdiag.fish; complete -C '\(line)'"])
                return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
            }
            #expect(try complete("pushdiag report --his") == ["--history"])
            #expect(try complete("pushdiag report --history ").contains("site.db"))
            #expect(try complete("pushdiag report ").contains("run"))
        }
        let zsh = try String(contentsOf: dir.appendingPathComponent("pushdiag.zsh"), encoding: .utf8)
        let body = try #require(zsh.range(of: "\n_pushdiag_report() {\n").map { zsh[$0.upperBound...].prefix { _ in true } })
        let report = body[..<(body.range(of: "\n}\n")?.lowerBound ?? body.endIndex)]
        #expect(report.contains("'--history[") && report.contains("'(-): :->command'"), "\(report.prefix(400))")
        if let z = TestPaths.which("zsh") { #expect(try run(z, ["-n", dir.appendingPathComponent("pushdiag.zsh").path]).status == 0) }
    }
}
