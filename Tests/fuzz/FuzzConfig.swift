// libFuzzer target: configuration files through pushdiag's parser — the guard in front of toml++,
// toml++ itself (TOMLKit's C++ built with the same instrumentation) and pushdiag's checks of keys,
// ranges, ports and durations. Every input must give a configuration or a one-line error.
#if !FUZZ_WITH_CORE_SOURCES
import PushdiagCore
import PushdiagIO
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let config = try ConfigParser.parse(text, file: "fuzz.toml")
        _ = config.servers.count
    } catch {
        if error.description.contains("\n") { fatalError("an error of more than one line: \(error.description)") }
    }
    return 0
}
