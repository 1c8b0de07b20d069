import ArgumentParser
import Foundation
import PushdiagCore

/// What differs between the modes that climb a ladder of idle times (heartbeat's
/// --find-idle-timeout, join's --find-ap-idle), as one value.
struct IdleLadderWords {
    /// The flag that asks for the mode, without its dashes, and its help.
    var flag: String
    var help: String
    /// A rung in words, one and several ("idle time", "idle times").
    var rung: String
    var rungs: String
    /// The rungs without --ladder, seconds.
    var defaults: [Double]
}

protocol IdleLadderMode: SendableMetatype {
    static var words: IdleLadderWords { get }
}

/// The mode's flag, `--max D` and `--ladder D,D,...`, declared once for both modes; their help
/// says the mode's defaults from its table.
struct IdleLadderOptions<Mode: IdleLadderMode>: ParsableArguments {
    @Flag(name: .customLong(Mode.words.flag), help: ArgumentHelp(Mode.words.help))
    var enabled = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --\(Mode.words.flag): the longest \(Mode.words.rung) to try (default \(DurationText.format(Mode.words.defaults.max() ?? 0)), or the longest of --ladder).",
            valueName: "D"))
    var max: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --\(Mode.words.flag): the \(Mode.words.rungs) to try, comma-separated (default \(Mode.words.defaults.map(DurationText.format).joined(separator: ","))).",
            valueName: "D,D,..."))
    var ladder: String?

    /// --max or --ladder given (they go with the flag).
    var stray: Bool { max != nil || ladder != nil }

    /// The rungs, seconds: up to the most, sorted.
    func rungs() throws -> [Double] {
        var rungs = Mode.words.defaults
        if let ladder {
            rungs = try ladder.split(separator: ",", omittingEmptySubsequences: false).map { part in
                try parseDuration(part.trimmingCharacters(in: .whitespaces), option: "--ladder", atLeast: IdleTimeout.shortest)
            }
            guard rungs.count <= 64 else { throw ValidationError("--ladder: at most 64 idle times") }
        }
        // A ladder of one's own ends where it ends, unless --max says otherwise.
        let most = try max.map { try parseDuration($0, option: "--max", atLeast: IdleTimeout.shortest) } ?? rungs.max() ?? 0
        return IdleTimeout.rungs(upTo: most, from: rungs)
    }
}

/// heartbeat --find-idle-timeout: connections left idle on the way to the server.
enum PathIdleLadder: IdleLadderMode {
    static let words = IdleLadderWords(
        flag: "find-idle-timeout",
        help: "Find the longest idle time a connection survives on the way to the server: one connection per rung of --ladder, left idle, then a heartbeat.",
        rung: "idle time", rungs: "idle times", defaults: IdleTimeout.defaultRungs)
}

/// join --find-ap-idle: the station left silent on its AP.
enum APIdleLadder: IdleLadderMode {
    static let words = IdleLadderWords(
        flag: "find-ap-idle",
        help:
            "After the cycles, find after how long a silence the AP drops the station: silent for each rung of --ladder in turn (pushdiag sends nothing; the station's own frames are counted), then a push to check; the first drop ends it.",
        rung: "silence", rungs: "silences", defaults: APIdle.defaultRungs)
}
