import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `walk`'s limits: the flags, then the configuration file's [walk] table, then the defaults;
/// their help, bounds and meaning come from the threshold table (`ThresholdRow`, scope `.walk`).
struct WalkThresholdOptions: ScopedThresholdOptions {
    @Option(parsing: .unconditional, help: ThresholdRow.ftGap.argumentHelp(.warning)) var ftGapWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.ftGap.argumentHelp(.critical)) var ftGapCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.roamGap.argumentHelp(.warning)) var roamGapWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.roamGap.argumentHelp(.critical)) var roamGapCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.warning)) var signalWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.critical)) var signalCritical: String?
    @OptionGroup var file: LimitsFile<WalkThresholds>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] {
        [
            (.ftGap, .warning, ftGapWarning), (.ftGap, .critical, ftGapCritical), (.roamGap, .warning, roamGapWarning),
            (.roamGap, .critical, roamGapCritical), (.signal, .warning, signalWarning), (.signal, .critical, signalCritical),
        ]
    }
}
