import ArgumentParser

/// The shell completion scripts, with what argument-parser's generator leaves out: the options
/// of a default subcommand at its parent (`pushdiag report --history FILE` runs `report run`, but
/// the generated scripts offer `report`'s own two flags there). Each script gets the default
/// subcommand's options spliced in where the parent is completed; a script whose shape this does
/// not recognise is left as generated (the completion tests then fail and say so).
enum CompletionScript {
    /// `argv` asks for a completion script: prints it (with the additions) and returns true.
    static func handle(_ argv: [String]) -> Bool {
        var shellName: String?
        if argv.count >= 3, argv[1] == "--generate-completion-script" { shellName = argv[2] }
        if argv.count >= 2, argv[1].hasPrefix("--generate-completion-script=") { shellName = String(argv[1].dropFirst("--generate-completion-script=".count)) }
        guard let shellName, let shell = CompletionShell(rawValue: shellName) else { return false }
        print(patched(Pushdiag.completionScript(for: shell), shell: shell), terminator: "")
        return true
    }

    /// (parent function name, default subcommand) pairs: `report` runs `run` by default.
    static let defaults = [("report", "run")]

    static func patched(_ script: String, shell: CompletionShell) -> String {
        var s = script
        for (parent, child) in defaults {
            switch shell {
            case .bash: s = bash(s, parent: parent, child: child)
            case .zsh: s = zsh(s, parent: parent, child: child)
            case .fish: s = fish(s, parent: parent, child: child)
            default: break
            }
        }
        return s
    }

    /// The text of the function `name` (from its opening line to the closing brace).
    static func function(_ s: String, _ name: String) -> Range<String.Index>? {
        guard let start = s.range(of: "\n\(name)() {\n"), let end = s[start.upperBound...].range(of: "\n}\n") else { return nil }
        return start.upperBound..<end.lowerBound
    }

    /// bash: where the parent would offer only its subcommands' names, also complete as the
    /// default subcommand would, from the words the parent saw.
    static func bash(_ s: String, parent: String, child: String) -> String {
        let name = "_pushdiag_\(parent)"
        guard let body = function(s, name) else { return s }
        var text = String(s[body])
        guard let offer = text.range(of: "        COMPREPLY+=($(compgen -W ") else { return s }
        guard let lineEnd = text[offer.upperBound...].firstIndex(of: "\n") else { return s }
        // The subcommand names, then what the default subcommand takes (its flags include the
        // parent's --help and --version).
        text.replaceSubrange(offer.lowerBound..<offer.lowerBound, with: "        COMPREPLY=()\n")
        let end = text.index(lineEnd, offsetBy: "        COMPREPLY=()\n".count)
        text.insert(
            contentsOf: "\n        # and what the default subcommand, \(child), takes (added by pushdiag)\n"
                + "        unparsed_words=(\"${pushdiag_default_words[@]}\")\n        \(name)_\(child)", at: end)
        // An option before any subcommand is the default subcommand's: complete as it would.
        let subcommands =
            text.range(of: "    case \"${subcommand}\" in\n    ").flatMap { r in text[r.upperBound...].split(separator: ")").first } ?? Substring(child)
        text =
            "    local -a pushdiag_default_words=(\"${unparsed_words[@]}\")\n"
            + "    local pushdiag_word\n"
            + "    for pushdiag_word in \"${unparsed_words[@]}\"; do\n"
            + "        case \"${pushdiag_word}\" in\n"
            + "        \(subcommands)) break ;;\n"
            + "        --version | -h | --help) ;;\n"
            + "        -?*) \(name)_\(child); return ;;\n"
            + "        esac\n"
            + "    done\n" + text
        return s.replacingCharacters(in: body, with: text)
    }

    /// zsh: the default subcommand's option specs (and the value lists they name) join the
    /// parent's, before its subcommand position.
    static func zsh(_ s: String, parent: String, child: String) -> String {
        let name = "_pushdiag_\(parent)"
        guard let childBody = function(s, "\(name)_\(child)"), let body = function(s, name) else { return s }
        let childLines = s[childBody].split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = childLines.firstIndex(where: { $0.hasSuffix("local -ar arg_specs=(") }),
            let close = childLines[open...].firstIndex(where: { $0 == "    )" })
        else { return s }
        let lists = childLines[..<open].filter { $0.hasPrefix("    local -ar ___") }
        let specs = childLines[(open + 1)..<close].filter { line in
            !line.contains("'--version[") && !line.contains("{-h,--help}") && !line.contains("'(-)")
        }
        var text = String(s[body])
        guard let at = text.range(of: "        '(-): :->command'"), let declare = text.range(of: "    local -ar arg_specs=(") else { return s }
        text.insert(contentsOf: specs.joined(separator: "\n") + "\n", at: at.lowerBound)
        text.insert(contentsOf: lists.joined(separator: "\n") + (lists.isEmpty ? "" : "\n"), at: declare.lowerBound)
        return s.replacingCharacters(in: body, with: text)
    }

    /// fish: the parent parses the default subcommand's options, and each of its option
    /// completions is offered at the parent too.
    static func fish(_ s: String, parent: String, child: String) -> String {
        let lines = s.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let parentCase = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "case '\(parent)'" }),
            parentCase + 1 < lines.count,
            let childCase = lines[parentCase...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "case '\(child)'" }),
            childCase + 1 < lines.count,
            lines[childCase + 1].contains("__pushdiag_parse_subcommand")
        else { return s }
        var out = lines
        let indent = lines[parentCase + 1].prefix { $0 == " " }
        out[parentCase + 1] = indent + lines[childCase + 1].trimmingCharacters(in: .whitespaces)
        let marker = "\"pushdiag \(parent) \(child)\""
        var extra: [String] = []
        for l in lines where l.hasPrefix("complete ") && l.contains("__pushdiag_should_offer_completions_for_flags_or_options \(marker)") {
            if l.contains(" -l 'version'") || l.contains(" -l 'help'") { continue }
            extra.append(l.replacingOccurrences(of: marker, with: "\"pushdiag \(parent)\""))
        }
        return out.joined(separator: "\n") + (s.hasSuffix("\n") ? "" : "\n") + extra.joined(separator: "\n") + (extra.isEmpty ? "" : "\n")
    }
}
