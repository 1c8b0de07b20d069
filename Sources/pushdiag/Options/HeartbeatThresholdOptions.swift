import ArgumentParser
import PushdiagCore

/// The heartbeats' limits, as heartbeat and survey both take them (--loss-*, --rtt-*); their
/// help, bounds and meaning come from the threshold table (`ThresholdRow`).
struct HeartbeatThresholdOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ThresholdRow.loss.argumentHelp(.warning)) var lossWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.loss.argumentHelp(.critical)) var lossCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.rtt.argumentHelp(.warning)) var rttWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.rtt.argumentHelp(.critical)) var rttCritical: String?

    /// Each row with its warning and critical flag as typed.
    var rows: [(ThresholdRow, warning: String?, critical: String?)] { [(.loss, lossWarning, lossCritical), (.rtt, rttWarning, rttCritical)] }

    /// The same, a flag a line.
    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { rows.flatMap { [($0.0, .warning, $0.warning), ($0.0, .critical, $0.critical)] } }
}
