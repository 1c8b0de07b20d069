import ArgumentParser

/// `--format`: what a command prints.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
