import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `--join-limits FILE`, shared by heartbeat, survey and report: the server's heartbeat spacing
/// graded against the longest safe heartbeat interval a `join --find-ap-idle` run found on this
/// path (beside it in each command, the `safe_interval` row's flags, which also grade it against
/// the path's idle timeout: `--idle-timeout`, a server's `idle_timeout`).
struct JoinLimitsOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The limits join --find-ap-idle found on this path (BSS Max Idle advertised, the silence the AP kept, the NAT idle timeout): its JSON report, or a history (join --history) whose newest such join is taken (on the survey's interface). The server's heartbeat spacing is graded against the lowest.",
            valueName: "FILE"), completion: .file())
    var joinLimits: String?

    /// The limits at `path` (a join report or a history; its newest join on `interface`, or on
    /// any interface); a file that is not one is one line naming it, and exit 3.
    static func load(_ path: String?, interface: String?) throws -> JoinLimits? {
        guard let path else { return nil }
        return try unknownOnFailure { () throws(JoinLimitsError) in try JoinLimitsFile.load(path, interface: interface) }
    }
}
