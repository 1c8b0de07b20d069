// libFuzzer target: configuration files through pushdiag's own TOML parser and its checks of
// keys, ranges, ports and durations. Every input gives a configuration or a one-line error.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let config = try ConfigParser.parse(bytes, file: "fuzz.toml")
        _ = config.servers.count
    } catch {
        if error.description.contains("\n") { fatalError("an error of more than one line: \(error.description)") }
    }
    return 0
}
