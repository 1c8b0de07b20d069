// libFuzzer target: configuration files through pushdiag's own TOML parser and its checks of
// keys, ranges, ports and durations. Every input gives a configuration or a one-line error.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    configurationOrOneLine(data, size) { bytes throws(ConfigError) in
        _ = try ConfigParser.parse(bytes, file: "fuzz.toml").servers.count
    }
}
