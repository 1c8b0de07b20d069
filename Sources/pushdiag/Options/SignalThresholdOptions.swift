import ArgumentParser
import PushdiagCore

/// The signal's limits, as wifi and survey both take them (--signal-*, --snr-*); their help,
/// bounds and meaning come from the threshold table (`ThresholdRow`). Walk takes the signal's
/// alone (`WalkThresholdOptions`): it has no noise floor to read.
struct SignalThresholdOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.warning)) var signalWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.critical)) var signalCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.snr.argumentHelp(.warning)) var snrWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.snr.argumentHelp(.critical)) var snrCritical: String?

    /// Each row with its warning and critical flag as typed.
    var rows: [(ThresholdRow, warning: String?, critical: String?)] {
        [(.signal, signalWarning, signalCritical), (.snr, snrWarning, snrCritical)]
    }

    /// The same, a flag a line.
    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { rows.flatMap { [($0.0, .warning, $0.warning), ($0.0, .critical, $0.critical)] } }
}
