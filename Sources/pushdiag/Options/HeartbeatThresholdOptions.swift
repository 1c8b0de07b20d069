import ArgumentParser
import PushdiagCore

/// The heartbeats' limits, as heartbeat and survey both take them (--loss-*, --rtt-*); their
/// help, bounds and meaning come from the threshold table (`ThresholdRow`).
struct HeartbeatThresholdOptions: ParsableArguments {
    @OptionGroup var loss: RowFlags<FlagRows.Loss>
    @OptionGroup var rtt: RowFlags<FlagRows.RTT>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { loss.typed + rtt.typed }
}
