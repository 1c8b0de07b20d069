import ArgumentParser
import PushdiagCore
import PushdiagIO

/// The limits `capture` and `wifi` grade the air with. Help, bounds and input come from the
/// threshold table (`ThresholdRow`), so each flag takes what survey's flag of the same name
/// takes: a number, or a range open on the good side. `--retry-warning` and `--retry-critical`
/// are the older spellings of the retransmission limits.
struct ThresholdOptions: ParsableArguments {
    @OptionGroup var utilization: RowFlags<FlagRows.Utilization>
    @OptionGroup var retransmission: RowFlags<FlagRows.RetransmissionOrRetry>
    @Option(name: .customLong("min-frames"), parsing: .unconditional, help: ArgumentHelp("Judge retry rates only over at least N frames.", valueName: "N"))
    var minimumFrames: Int = Thresholds().minimumFrames

    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { utilization.typed + retransmission.typed }

    /// The limits these flags and `more` (a command's other limits, typed the same way) give over
    /// the table's defaults.
    func thresholds(_ more: [(ThresholdRow, ThresholdRow.Level, String?)] = []) throws -> Thresholds {
        switch Thresholds.resolve(try ThresholdRow.flagLimits(typed + more)) {
        case .failure(let e): throw ValidationError(e.description)
        case .success(var t):
            t.minimumFrames = minimumFrames
            return t
        }
    }

    func validate() throws {
        guard minimumFrames >= 1 else { throw ValidationError("--min-frames must be at least 1") }
        _ = try thresholds()
    }
}

/// Limits whose rows have a table of their own in the configuration file (`[walk]`, `[join]`).
protocol ScopedLimits {
    static var scope: ThresholdRow.Scope { get }
    static var table: KeyPath<PushdiagConfig, [String: Double]> { get }
    static func resolve(_ values: [String: Double], flags: Set<String>?) -> Result<Self, SettingsError>
}

extension WalkThresholds: ScopedLimits {
    static let scope = ThresholdRow.Scope.walk
    static var table: KeyPath<PushdiagConfig, [String: Double]> { \.walk }
}

extension JoinThresholds: ScopedLimits {
    static let scope = ThresholdRow.Scope.join
    static var table: KeyPath<PushdiagConfig, [String: Double]> { \.join }
}

/// A command's flags for such limits (`typed`) and its `--config`.
protocol ScopedThresholdOptions: ParsableArguments {
    associatedtype Limits: ScopedLimits
    var typed: [(ThresholdRow, ThresholdRow.Level, String?)] { get }
    var file: LimitsFile<Limits> { get }
}

extension ScopedThresholdOptions {
    /// The limits: flags, then the configuration's table, then the defaults. A contradiction
    /// names a limit by where it was set: its flag, or its key in the file.
    func thresholds() throws -> Limits {
        let flags = try ThresholdRow.flagLimits(typed)
        let configured = try ThresholdRow.configuredLimits(config: file.config, table: Limits.table)
        let values = configured.values.merging(flags) { _, flag in flag }
        switch Limits.resolve(values, flags: Set(flags.keys)) {
        case .success(let t): return t
        case .failure(let e):
            // A limit the file set is named by its key: the file is named too, as config check names it.
            let fromFile = configured.values.keys.contains { flags[$0] == nil && e.description.contains("\($0) (") }
            throw ValidationError((fromFile ? configured.file.map { "\($0): " } ?? "" : "") + e.description)
        }
    }
}

/// `--config` of a command with a limits table of its own.
struct LimitsFile<Limits: ScopedLimits>: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Configuration file for the [\(Limits.scope.rawValue)] limits (default: \(ConfigLoader.defaultPath) when it exists). Flags win over it.",
            valueName: "FILE"),
        completion: .file())
    var config: String?
}

extension ThresholdRow {
    /// The limits of one table of the configuration file (`--config`, else the default file when
    /// it exists: `ConfigLoader.load(explicit:)`), for the command's flags to win over.
    static func configuredLimits(config: String?, table: KeyPath<PushdiagConfig, [String: Double]>) throws -> (values: [String: Double], file: String?) {
        do throws(ConfigError) {
            let (c, file) = try ConfigLoader.load(explicit: config)
            return (c[keyPath: table], file)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
