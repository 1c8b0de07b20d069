// libFuzzer target: `exporter --web-config` files through the YAML subset and WebConfig's checks
// (keys, client_auth_type, bcrypt shapes, paths). Every input gives a configuration or a
// one-line error naming the file and a line of the input.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    configurationOrOneLine(data, size) { bytes throws(ConfigError) in
        _ = try WebConfig.parse(bytes, file: "fuzz/web.yml").users.count
    } check: { error, bytes in
        guard error.file == "fuzz/web.yml", let line = error.line, line >= 1, line <= bytes.count + 1 else {
            fatalError("an error without a line of the input: \(error.description)")
        }
    }
}
