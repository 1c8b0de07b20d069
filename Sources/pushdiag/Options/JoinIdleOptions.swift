import ArgumentParser
import Foundation
import PushdiagCore

/// `join --find-ap-idle`: the ladder of silences and the path's idle timeout they are weighed with.
struct JoinIdleOptions: ParsableArguments {
    @OptionGroup var ladder: IdleLadderOptions<APIdleLadder>

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --find-ap-idle: the idle time after which the path forgets a connection (as heartbeat --find-idle-timeout found it), one of the limits of the longest safe heartbeat interval.",
            valueName: "D"))
    var idleTimeout: String?

    /// The rungs, seconds (nil without --find-ap-idle), and the path's idle timeout.
    func settings() throws -> (rungs: [Double]?, pathIdleTimeoutS: Double?) {
        guard ladder.enabled else {
            if ladder.stray || idleTimeout != nil { throw ValidationError("--ladder, --max and --idle-timeout go with --find-ap-idle") }
            return (nil, nil)
        }
        return (try ladder.rungs(), try idleTimeout.map { try parseDuration($0, option: "--idle-timeout", atLeast: IdleTimeout.shortest) })
    }
}
