// libFuzzer target: `exporter --web-config` files through the YAML subset and WebConfig's checks
// (keys, client_auth_type, bcrypt shapes, paths). Every input gives a configuration or a
// one-line error naming the file and a line of the input.
#if !FUZZ_WITH_CORE_SOURCES
    import PushdiagCore
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let config = try WebConfig.parse(bytes, file: "fuzz/web.yml")
        _ = config.users.count
    } catch {
        if error.description.contains("\n") { fatalError("an error of more than one line: \(error.description)") }
        guard error.file == "fuzz/web.yml", let line = error.line, line >= 1, line <= bytes.count + 1 else {
            fatalError("an error without a line of the input: \(error.description)")
        }
    }
    return 0
}
