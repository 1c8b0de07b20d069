import ArgumentParser
import PushdiagCore

/// The signal's limits, as wifi and survey both take them (--signal-*, --snr-*); their help,
/// bounds and meaning come from the threshold table (`ThresholdRow`). Walk takes the signal's
/// alone (`WalkThresholdOptions`): it has no noise floor to read.
struct SignalThresholdOptions: ParsableArguments {
    @OptionGroup var signal: RowFlags<FlagRows.Signal>
    @OptionGroup var snr: RowFlags<FlagRows.SNR>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { signal.typed + snr.typed }
}
