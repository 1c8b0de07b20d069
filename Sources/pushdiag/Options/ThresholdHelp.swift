import ArgumentParser
import PushdiagCore

extension ThresholdRow {
    /// A threshold flag's help, from the row: the same words in every command that takes it.
    func argumentHelp(_ level: Level) -> ArgumentHelp { ArgumentHelp(help(level), valueName: "RANGE") }

    /// `ThresholdRow.limits(flags:)` for a command: a flag's bad text is a usage error (exit 3).
    static func flagLimits(_ typed: [(ThresholdRow, Level, String?)]) throws -> [String: Double] {
        switch limits(flags: typed) {
        case .failure(let e): throw ValidationError(e.description)
        case .success(let values): return values
        }
    }
}
