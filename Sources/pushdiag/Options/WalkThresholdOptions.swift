import ArgumentParser
import PushdiagCore
import PushdiagIO

/// `walk`'s limits: the flags, then the configuration file's [walk] table, then the defaults;
/// their help, bounds and meaning come from the threshold table (`ThresholdRow`).
struct WalkThresholdOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ThresholdRow.ftGap.argumentHelp(.warning)) var ftGapWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.ftGap.argumentHelp(.critical)) var ftGapCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.roamGap.argumentHelp(.warning)) var roamGapWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.roamGap.argumentHelp(.critical)) var roamGapCritical: String?
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.warning)) var signalWarning: String?
    @Option(parsing: .unconditional, help: ThresholdRow.signal.argumentHelp(.critical)) var signalCritical: String?

    @Option(
        help: ArgumentHelp(
            "Configuration file for the [walk] limits (default: /etc/pushdiag/pushdiag.toml when it exists). Flags win over it.", valueName: "FILE"),
        completion: .file())
    var config: String?

    /// The limits: flags, then the configuration's [walk] table, then the defaults.
    func thresholds() throws -> WalkThresholds {
        let typed: [(ThresholdRow, ThresholdRow.Level, String?)] = [
            (.ftGap, .warning, ftGapWarning), (.ftGap, .critical, ftGapCritical), (.roamGap, .warning, roamGapWarning),
            (.roamGap, .critical, roamGapCritical), (.signal, .warning, signalWarning), (.signal, .critical, signalCritical),
        ]
        switch WalkThresholds.resolve(try ThresholdRow.configuredLimits(config: config, table: \.walk, flags: typed)) {
        case .success(let t): return t
        case .failure(let e): throw ValidationError(e.description)
        }
    }
}
