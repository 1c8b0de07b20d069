import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `join`'s limits: the flags, then the configuration file's [join] table, then the defaults;
/// their help, bounds and meaning come from the threshold table (`ThresholdRow`, scope `.join`).
struct JoinThresholdOptions: ScopedThresholdOptions {
    @OptionGroup var pushReady: RowFlags<FlagRows.PushReady>
    @OptionGroup var joinLink: RowFlags<FlagRows.JoinLink>
    @OptionGroup var joinKeys: RowFlags<FlagRows.JoinKeys>
    @OptionGroup var joinAddress: RowFlags<FlagRows.JoinAddress>
    @OptionGroup var joinName: RowFlags<FlagRows.JoinName>
    @OptionGroup var joinPush: RowFlags<FlagRows.JoinPush>
    @OptionGroup var file: LimitsFile<JoinThresholds>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] {
        pushReady.typed + joinLink.typed + joinKeys.typed + joinAddress.typed + joinName.typed + joinPush.typed
    }
}
