import PushdiagCore
import TestSupport
import Testing

/// The help every command prints for a threshold flag is its table row's, word for word, and
/// every row of a scope is a flag of that scope's commands: a row added to the table without its
/// flag, or a flag with its own words, fails here.
@Suite struct ThresholdHelpTests {
    /// Each option's abstract by long name, for `command` (from argument-parser's own description).
    static func abstracts(_ command: [String]) throws -> [String: String] {
        let r = try pushdiag(["--experimental-dump-help"])
        var node = try #require(try json(r.stdout)["command"] as? [String: Any])
        for name in command {
            let children = node["subcommands"] as? [[String: Any]] ?? []
            node = try #require(children.first { $0["commandName"] as? String == name }, "\(command)")
        }
        var out: [String: String] = [:]
        for argument in node["arguments"] as? [[String: Any]] ?? [] {
            for n in argument["names"] as? [[String: Any]] ?? [] where n["kind"] as? String != "short" {
                if let name = n["name"] as? String { out["--" + name] = argument["abstract"] as? String }
            }
        }
        return out
    }

    @Test func everyRowIsAFlagWithTheRowsHelp() throws {
        let commands: [([String], ThresholdRow.Scope)] = [(["survey"], .survey), (["report", "run"], .survey), (["walk"], .walk), (["join"], .join)]
        for (command, scope) in commands {
            let help = try Self.abstracts(command)
            for row in ThresholdRow.rows(scope) {
                for level in ThresholdRow.Level.allCases {
                    #expect(help[row.flag(level)] == row.help(level), "\(command) \(row.flag(level))")
                }
            }
        }
    }

    /// The commands that take some of the survey's rows take them under the same names and words
    /// (`RowFlags`): heartbeat the heartbeat's, the certificate's and the safe interval's, wifi and
    /// capture the air's (capture walk's link gaps too); and capture and wifi still answer to `--retry-*`.
    @Test func aRowTakenElsewhereIsTheSameFlag() throws {
        let commands: [([String], [ThresholdRow])] = [
            (["heartbeat"], [.loss, .rtt, .certificate, .safeInterval]), (["wifi"], [.utilization, .retransmission, .signal, .snr]),
            (["capture"], [.utilization, .retransmission, .ftGap, .roamGap]),
        ]
        for (command, rows) in commands {
            let help = try Self.abstracts(command)
            for row in rows {
                for level in ThresholdRow.Level.allCases {
                    #expect(help[row.flag(level)] == row.help(level), "\(command) \(row.flag(level))")
                }
            }
            if command != ["heartbeat"] {
                #expect(help["--retry-warning"] == ThresholdRow.retransmission.help(.warning), "\(command)")
                #expect(help["--retry-critical"] == ThresholdRow.retransmission.help(.critical), "\(command)")
            }
        }
    }
}
