import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `join`'s limits: the flags, then the configuration file's [join] table, then the defaults;
/// their help, bounds and meaning come from the threshold table (`ThresholdRow`, scope `.join`).
struct JoinThresholdOptions: ScopedThresholdOptions {
    @Option(parsing: .unconditional, help: ThresholdRow.pushReady.argumentHelp(.warning)) var pushReadyWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.pushReady.argumentHelp(.critical)) var pushReadyCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinLink.argumentHelp(.warning)) var joinLinkWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinLink.argumentHelp(.critical)) var joinLinkCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinKeys.argumentHelp(.warning)) var joinKeysWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinKeys.argumentHelp(.critical)) var joinKeysCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinAddress.argumentHelp(.warning)) var joinAddressWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinAddress.argumentHelp(.critical)) var joinAddressCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinName.argumentHelp(.warning)) var joinNameWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinName.argumentHelp(.critical)) var joinNameCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinPush.argumentHelp(.warning)) var joinPushWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.joinPush.argumentHelp(.critical)) var joinPushCritical: String?
    @OptionGroup var file: LimitsFile<JoinThresholds>

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] {
        [
            (.pushReady, pushReadyWarning, pushReadyCritical), (.joinLink, joinLinkWarning, joinLinkCritical),
            (.joinKeys, joinKeysWarning, joinKeysCritical), (.joinAddress, joinAddressWarning, joinAddressCritical),
            (.joinName, joinNameWarning, joinNameCritical), (.joinPush, joinPushWarning, joinPushCritical),
        ].flatMap { row, w, c in [(row, ThresholdRow.Level.warning, w), (row, .critical, c)] }
    }
}
