import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO

/// `walk`'s limits: the flags, then the configuration file's [walk] table, then the defaults.
struct WalkThresholdOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Warn when an 802.11r roam's link gap is above MS (default 80).", valueName: "MS"))
    var ftGapWarning: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Critical when an 802.11r roam's link gap is above MS (default 150).", valueName: "MS"))
    var ftGapCritical: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Warn when another roam's link gap is above MS (default 100).", valueName: "MS"))
    var roamGapWarning: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Critical when another roam's link gap is above MS (default 300).", valueName: "MS"))
    var roamGapCritical: Double?
    @Option(parsing: .unconditional, help: ArgumentHelp("Warn for samples weaker than DBM (default -67).", valueName: "DBM"))
    var signalWarning: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("Critical for samples weaker than DBM (default -70).", valueName: "DBM"))
    var signalCritical: Int?

    @Option(
        help: ArgumentHelp(
            "Configuration file for the [walk] limits (default: /etc/pushdiag/pushdiag.toml when it exists). Flags win over it.", valueName: "FILE"),
        completion: .file())
    var config: String?

    /// The limits: flags, then the configuration's [walk] table, then the defaults.
    func thresholds() throws -> WalkThresholds {
        var values: [String: Double] = [:]
        let path = config ?? (access(ConfigLoader.defaultPath, R_OK) == 0 ? ConfigLoader.defaultPath : nil)
        if let path {
            do throws(ConfigError) { values = try ConfigLoader.load(path: path).walk } catch { throw ValidationError(error.description) }
        }
        let flags: [(String, Double?)] = [
            ("ft_gap_warning", ftGapWarning), ("ft_gap_critical", ftGapCritical), ("roam_gap_warning", roamGapWarning),
            ("roam_gap_critical", roamGapCritical), ("signal_warning", signalWarning.map(Double.init)), ("signal_critical", signalCritical.map(Double.init)),
        ]
        for (key, value) in flags {
            guard let value else { continue }
            guard value.isFinite, WalkThresholds.configKeys[key]!.contains(value) else {
                let range = WalkThresholds.configKeys[key]!
                throw ValidationError(
                    "--\(key.replacingOccurrences(of: "_", with: "-")): '\(NumberText.format(value))' is outside \(NumberText.format(range.lowerBound))…\(NumberText.format(range.upperBound))"
                )
            }
            values[key] = value
        }
        switch WalkThresholds.resolve(values) {
        case .success(let t): return t
        case .failure(let e): throw ValidationError(e.description)
        }
    }
}
