// libFuzzer target: the replies pushdiag join reads from NetworkManager and iwd over the system
// bus. The input is a whole D-Bus message in its wire format; libdbus demarshals and validates it
// (dbus_message_demarshal) and SystemBus's decoding walks its arguments — nested arrays,
// dictionaries, variants and structures to D-Bus's depth limit, any basic type — into BusValue,
// whose lookups the managers use (a dictionary's key, a variant unwrapped, a path's text).
// Built with Sources/PushdiagIO/Join/SystemBus.swift alone and libdbus (run.sh).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let values = SystemBus.arguments(marshalled: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for v in values {
        _ = v.unwrapped.text
        _ = v["net.connman.iwd.Station"]?["ConnectedNetwork"]?.text
        if case .dictionary(let d) = v.unwrapped {
            for (_, inner) in d { _ = inner["net.connman.iwd.Device"]?["Name"]?.text }
        }
    }
    return 0
}
