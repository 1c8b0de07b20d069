// Compiled into every fuzz target by run.sh beside its own file: what the targets of
// configuration files (Config, WebConfig) ask of every input.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

/// Gives the input to `parse`: a configuration, or an error of one line, which `check` may look
/// at further (with the input).
func configurationOrOneLine(
    _ data: UnsafePointer<UInt8>, _ size: Int, _ parse: ([UInt8]) throws(ConfigError) -> Void, check: (ConfigError, [UInt8]) -> Void = { _, _ in }
) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try parse(bytes)
    } catch {
        if error.description.contains("\n") { fatalError("an error of more than one line: \(error.description)") }
        check(error, bytes)
    }
    return 0
}
