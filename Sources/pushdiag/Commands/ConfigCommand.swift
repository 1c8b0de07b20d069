import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with the configuration file.",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check a configuration file and print what a survey would use. Exit 0 when valid, 3 with the line and key of the first problem."
        )

        @Option(help: ArgumentHelp("The file (default: \(ConfigLoader.defaultPath)).", valueName: "FILE"), completion: .file())
        var config: String = ConfigLoader.defaultPath

        func run() throws {
            // The same resolution a survey makes, so whatever passes here runs there.
            let (c, s, limits) = try unknownOnFailure {
                let c = try ConfigLoader.load(path: config)
                // The walk's and the join's limits as those commands resolve them without flags.
                for (scope, values) in [(ThresholdRow.Scope.walk, c.walk), (.join, c.join)] {
                    if let p = ThresholdRow.problem(values, in: scope) { throw ConfigError(file: config, line: nil, key: nil, message: p.description) }
                }
                let s = try SurveySettings.resolve(SurveyFlags(), config: c, file: config)
                return (c, s, try s.joinLimitsPath.map { p throws(JoinLimitsError) in try JoinLimitsFile.load(p, interface: s.interface) })
            }
            var out = "\(config): valid\n"
            out += "  interface: \(c.interface ?? "(the first in station mode)")\n"
            if let m = c.monitor { out += "  monitor: \(m)\n" }
            out += "  duration: \(c.duration ?? SurveySettings.defaultDuration)\n"
            if c.servers.isEmpty { out += "  push servers: none (heartbeat and route checks are skipped)\n" }
            for s in c.servers {
                out += "  push server: \(s.host)\(s.port.map { ":\($0)" } ?? "") \(s.proto)\(s.tls ? " over TLS" : "")\(s.pin != nil ? ", pinned" : "")\n"
            }
            for k in PushdiagConfig.thresholdKeys {
                guard let v = c.thresholds[k] else { continue }
                // A safe_interval limit with nothing to grade is valid and unused: say so.
                let safeInterval = ThresholdRow.row(key: k, in: .survey)?.0 == .safeInterval
                let unused = safeInterval && !s.gradesSafeInterval ? ThresholdRow.safeIntervalAlone(k, takes: "join_limits or a server's idle_timeout") : nil
                out += "  \(k): \(v)\(unused.map { " (not used: \($0))" } ?? "")\n"
            }
            if let h = c.history { out += "  history: \(h)\n" }
            if let t = c.textfile { out += "  textfile: \(t)\n" }
            if let l = limits {
                out += "  join limits: \(l.origin), safe interval \(l.safeIntervalS.map(DurationText.format) ?? "UNKNOWN"): \(l.summary)\n"
            }
            print(out, terminator: "")
        }
    }
}
