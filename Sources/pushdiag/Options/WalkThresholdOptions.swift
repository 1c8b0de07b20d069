import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `walk`'s limits: the flags, then the configuration file's [walk] table, then the defaults;
/// their help, bounds and meaning come from the threshold table (`ThresholdRow`, scope `.walk`).
struct WalkThresholdOptions: ScopedThresholdOptions {
    @OptionGroup var ftGap: RowFlags<FlagRows.FTGap>
    @OptionGroup var roamGap: RowFlags<FlagRows.RoamGap>
    @OptionGroup var signal: RowFlags<FlagRows.Signal>
    @OptionGroup var file: LimitsFile<WalkThresholds>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { ftGap.typed + roamGap.typed + signal.typed }
}
