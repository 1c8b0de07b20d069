import ArgumentParser
import Foundation
import PushdiagCore

/// `join --find-ap-idle`: the ladder of silences and the path's idle timeout they are weighed with.
struct JoinIdleOptions: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "After the cycles, find after how long a silence the AP drops the station: silent for each rung of --ladder in turn (pushdiag sends nothing; the station's own frames are counted), then a push to check; the first drop ends it."
        ))
    var findApIdle = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("With --find-ap-idle: the longest silence to try (default 20m, or the longest of --ladder).", valueName: "D"))
    var max: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("With --find-ap-idle: the silences to try, comma-separated (default 30s,1m,2m,5m,10m,15m,20m).", valueName: "D,D,..."))
    var ladder: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --find-ap-idle: the idle time after which the path forgets a connection (as heartbeat --find-idle-timeout found it), one of the limits of the longest safe heartbeat interval.",
            valueName: "D"))
    var idleTimeout: String?

    /// The rungs, seconds (nil without --find-ap-idle), and the path's idle timeout.
    func settings() throws -> (rungs: [Double]?, pathIdleTimeoutS: Double?) {
        guard findApIdle else {
            if ladder != nil || max != nil || idleTimeout != nil { throw ValidationError("--ladder, --max and --idle-timeout go with --find-ap-idle") }
            return (nil, nil)
        }
        let rungs = try IdleLadder.rungs(ladder, max: max, defaults: APIdle.defaultRungs)
        return (rungs, try idleTimeout.map { try parseDuration($0, option: "--idle-timeout", atLeast: 0.1) })
    }
}

/// A ladder of idle times given as `--ladder D,D,...` and `--max D` (heartbeat's
/// --find-idle-timeout, join's --find-ap-idle): the rungs up to the most, sorted.
enum IdleLadder {
    static func rungs(_ ladder: String?, max: String?, defaults: [Double]) throws -> [Double] {
        var rungs = defaults
        if let ladder {
            rungs = try ladder.split(separator: ",", omittingEmptySubsequences: false).map { part in
                try parseDuration(part.trimmingCharacters(in: .whitespaces), option: "--ladder", atLeast: 0.1)
            }
            guard rungs.count <= 64 else { throw ValidationError("--ladder: at most 64 idle times") }
        }
        // A ladder of one's own ends where it ends, unless --max says otherwise.
        let most = try max.map { try parseDuration($0, option: "--max", atLeast: 0.1) } ?? rungs.max()!
        return IdleTimeout.rungs(upTo: most, from: rungs)
    }
}
