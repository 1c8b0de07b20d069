import ArgumentParser
import PushdiagCore

/// A threshold row a command takes as flags. ArgumentParser names an option when the command is
/// defined, so each such row is a type (`FlagRows.Signal`) that names its row; `RowFlags` makes
/// the row's two flags from it.
protocol FlagRow {
    static var row: ThresholdRow { get }
    /// Older names the flags also answer to, as `NAME-warning` and `NAME-critical`.
    static var formerNames: [String] { get }
}

extension FlagRow {
    static var formerNames: [String] { [] }

    /// `--KEY-warning` (and the older names) for the warning level, likewise for critical: the
    /// row's own spelling (`ThresholdRow.flag`), the one its errors and the configuration use.
    static func names(_ level: ThresholdRow.Level) -> NameSpecification {
        NameSpecification([.customLong(String(row.flag(level).dropFirst(2)))] + formerNames.map { .customLong("\($0)-\(level.rawValue)") })
    }
}

/// A row's two flags, `--KEY-warning RANGE` and `--KEY-critical RANGE`: the row names them,
/// explains them (`ThresholdRow.help`) and reads what they take (`ThresholdRow.limits(flags:)`),
/// so every command that takes a row takes the same input under the same words.
///
/// Declare them in the command or in its one group of options, not in a group inside a group: in
/// a debug build argument-parser checks every option group at every level at each start, and each
/// level multiplies that work about fourfold (`survey --help` took 2.2 s in a debug build with
/// the heartbeat's and the signal's rows in groups of their own inside `SurveyOptions`, 0.6 s
/// with them in `SurveyOptions` itself, 0.7 s before `RowFlags`; a release build skips the
/// checks: 0.1 s).
struct RowFlags<Row: FlagRow>: ParsableArguments {
    @Option(name: Row.names(.warning), parsing: .unconditional, help: Row.row.argumentHelp(.warning)) var warning: String?
    @Option(name: Row.names(.critical), parsing: .unconditional, help: Row.row.argumentHelp(.critical)) var critical: String?

    /// The two flags as typed, for `ThresholdRow.limits(flags:)`.
    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { [(Row.row, .warning, warning), (Row.row, .critical, critical)] }
}

/// The rows commands take as flags, a type each.
enum FlagRows {
    enum Utilization: FlagRow { static var row: ThresholdRow { .utilization } }
    enum Retransmission: FlagRow { static var row: ThresholdRow { .retransmission } }
    /// `capture` and `wifi` still take `--retry-warning` and `--retry-critical`, their first names.
    enum RetransmissionOrRetry: FlagRow {
        static var row: ThresholdRow { .retransmission }
        static var formerNames: [String] { ["retry"] }
    }
    enum Loss: FlagRow { static var row: ThresholdRow { .loss } }
    enum RTT: FlagRow { static var row: ThresholdRow { .rtt } }
    enum Signal: FlagRow { static var row: ThresholdRow { .signal } }
    enum SNR: FlagRow { static var row: ThresholdRow { .snr } }
    enum Certificate: FlagRow { static var row: ThresholdRow { .certificate } }
    enum SafeInterval: FlagRow { static var row: ThresholdRow { .safeInterval } }
    enum FTGap: FlagRow { static var row: ThresholdRow { .ftGap } }
    enum RoamGap: FlagRow { static var row: ThresholdRow { .roamGap } }
    enum PushReady: FlagRow { static var row: ThresholdRow { .pushReady } }
    enum JoinLink: FlagRow { static var row: ThresholdRow { .joinLink } }
    enum JoinKeys: FlagRow { static var row: ThresholdRow { .joinKeys } }
    enum JoinAddress: FlagRow { static var row: ThresholdRow { .joinAddress } }
    enum JoinName: FlagRow { static var row: ThresholdRow { .joinName } }
    enum JoinPush: FlagRow { static var row: ThresholdRow { .joinPush } }
}
