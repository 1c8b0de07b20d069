import ArgumentParser
import PushdiagCore

extension ThresholdRow {
    /// A threshold flag's help, from the row: the same words in every command that takes it.
    func argumentHelp(_ level: Level) -> ArgumentHelp { ArgumentHelp(help(level), valueName: "RANGE") }
}
