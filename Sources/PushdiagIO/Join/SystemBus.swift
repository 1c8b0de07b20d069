private import CDBus

/// A value in a D-Bus message, as far as pushdiag reads them: the basic types, arrays,
/// dictionaries whose keys are strings or object paths (`a{sv}`, `a{oa{sa{sv}}}`), structures
/// and variants. Any other type is kept as its signature, never guessed at.
public indirect enum BusValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case array([BusValue])
    case dictionary([String: BusValue])
    case structure([BusValue])
    case variant(BusValue)
    case other(signature: String)

    /// The value inside any variants.
    public var unwrapped: BusValue {
        if case .variant(let v) = self { return v.unwrapped }
        return self
    }

    public var text: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s): s
        default: nil
        }
    }

    public subscript(key: String) -> BusValue? {
        if case .dictionary(let d) = unwrapped { return d[key] }
        return nil
    }
}

/// Why the system bus could not be used, or what a call on it answered.
public enum SystemBusError: Error, Equatable, CustomStringConvertible {
    /// No system bus (none running, or its socket not reachable from here).
    case unavailable(String)
    /// The call was answered with a D-Bus error (its name and message), or not at all.
    case failed(call: String, name: String, message: String)

    public var description: String {
        switch self {
        case .unavailable(let why): "the system bus: \(why)"
        case .failed(let call, let name, let message): "\(call): \(name)\(message.isEmpty ? "" : ": " + message)"
        }
    }
}

/// A private connection to the system bus (libdbus): blocking method calls with a timeout, and
/// calls whose reply is collected later (`send`/`Pending`), for a method that replies only once
/// its work is done (iwd's Network.Connect replies when the station is connected, while the join
/// must watch the steps as they happen). Private, so that a bus that goes away does not end the
/// process (libdbus's shared connection exits on disconnect) and nothing else shares it.
public final class SystemBus {
    let connection: OpaquePointer

    public init() throws(SystemBusError) {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else {
            defer { dbus_error_free(&error) }
            throw .unavailable(Self.message(error) ?? "no connection")
        }
        connection = c
        dbus_connection_set_exit_on_disconnect(c, 0)
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// A method call's arguments: strings and object paths are all pushdiag sends.
    public enum Argument: Sendable {
        case string(String)
        case objectPath(String)
    }

    /// Calls `interface.method` on `path` at `destination` and waits up to `timeoutMs` for the
    /// reply's arguments.
    public func call(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument] = [], timeoutMs: Int32 = 10_000
    ) throws(SystemBusError) -> [BusValue] {
        let name = "\(interface).\(method) on \(path)"
        let message = try Self.message(destination, path, interface, method, arguments, name: name)
        defer { dbus_message_unref(message) }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMs, &error) else {
            defer { dbus_error_free(&error) }
            throw .failed(call: name, name: error.name.map { String(cString: $0) } ?? "no reply", message: Self.message(error) ?? "")
        }
        defer { dbus_message_unref(reply) }
        return try Self.arguments(of: reply, call: name)
    }

    /// A call sent, whose reply is read later.
    public final class Pending {
        let call: OpaquePointer
        let name: String
        /// The bus's connection (kept alive by the SystemBus that sent the call).
        weak var bus: SystemBus?
        var connection: OpaquePointer? { bus?.connection }
        init(call: OpaquePointer, name: String, bus: SystemBus) {
            self.call = call
            self.name = name
            self.bus = bus
        }
        deinit { dbus_pending_call_unref(call) }

        /// Whether the reply has come, read without blocking (what the bus has sent is taken in).
        public var isCompleted: Bool {
            // A pending call completes when its reply is dispatched: read what is there, then
            // dispatch all of it (one read_write_dispatch call does one or the other).
            if dbus_pending_call_get_completed(call) == 0, let c = connection, dbus_connection_read_write(c, 0) != 0 {
                while dbus_connection_dispatch(c) == DBUS_DISPATCH_DATA_REMAINS {}
            }
            return dbus_pending_call_get_completed(call) != 0
        }

        /// Waits for the reply (the call's own timeout bounds the wait).
        public func reply() throws(SystemBusError) -> [BusValue] {
            dbus_pending_call_block(call)
            guard let reply = dbus_pending_call_steal_reply(call) else { throw .failed(call: name, name: "no reply", message: "") }
            defer { dbus_message_unref(reply) }
            return try SystemBus.arguments(of: reply, call: name)
        }
    }

    /// Sends the call and returns at once; its reply is read with `Pending.reply()`.
    public func send(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument] = [], timeoutMs: Int32 = 60_000
    ) throws(SystemBusError) -> Pending {
        let name = "\(interface).\(method) on \(path)"
        let message = try Self.message(destination, path, interface, method, arguments, name: name)
        defer { dbus_message_unref(message) }
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(connection, message, &pending, timeoutMs) != 0, let pending else {
            throw .failed(call: name, name: "not sent", message: "the connection to the system bus is closed")
        }
        dbus_connection_flush(connection)
        return Pending(call: pending, name: name, bus: self)
    }

    /// Whether a bus name has an owner now: asked before calling a manager, so that a call does
    /// not start one through D-Bus activation.
    public func hasOwner(_ name: String) -> Bool {
        let r = try? call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(name)], timeoutMs: 2000)
        return r?.first == .bool(true)
    }

    /// One property, through org.freedesktop.DBus.Properties.Get.
    public func property(_ destination: String, _ path: String, _ interface: String, _ name: String) throws(SystemBusError) -> BusValue? {
        try call(destination, path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(name)]).first?.unwrapped
    }

    static func message(
        _ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [Argument], name: String
    ) throws(SystemBusError) -> OpaquePointer {
        // libdbus aborts the process on an invalid path or name: checked here first.
        guard dbus_validate_path(path, nil) != 0, dbus_validate_bus_name(destination, nil) != 0, dbus_validate_interface(interface, nil) != 0,
            dbus_validate_member(method, nil) != 0
        else { throw .failed(call: name, name: "invalid", message: "not a valid D-Bus path or name") }
        for case .objectPath(let p) in arguments where dbus_validate_path(p, nil) == 0 {
            throw .failed(call: name, name: "invalid", message: "\(p) is not an object path")
        }
        for case .string(let s) in arguments where dbus_validate_utf8(s, nil) == 0 {
            throw .failed(call: name, name: "invalid", message: "an argument is not UTF-8")
        }
        guard let m = dbus_message_new_method_call(destination, path, interface, method) else {
            throw .failed(call: name, name: "no memory", message: "")
        }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(m, &iter)
        for a in arguments {
            let (type, text): (Int32, String) =
                switch a {
                case .string(let s): (Int32(UInt8(ascii: "s")), s)
                case .objectPath(let p): (Int32(UInt8(ascii: "o")), p)
                }
            let appended = text.withCString { p in
                var pointer: UnsafePointer<CChar>? = p
                return dbus_message_iter_append_basic(&iter, type, &pointer)
            }
            guard appended != 0 else {
                dbus_message_unref(m)
                throw .failed(call: name, name: "no memory", message: "")
            }
        }
        return m
    }

    /// The arguments of a whole message in D-Bus's wire format (as dbus_message_marshal writes
    /// it); nil where libdbus refuses the bytes. The fuzz target's door to the decoding above.
    public static func arguments(marshalled bytes: [UInt8]) -> [BusValue]? {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard bytes.count < Int(Int32.max) else { return nil }
        let message = bytes.withUnsafeBytes { b in
            b.baseAddress.flatMap { dbus_message_demarshal($0.assumingMemoryBound(to: CChar.self), Int32(b.count), &error) }
        }
        guard let message else { return nil }
        defer { dbus_message_unref(message) }
        return try? arguments(of: message, call: "fuzz")
    }

    fileprivate static func message(_ error: CDBus.DBusError) -> String? {
        error.message.map { String(cString: $0) }
    }

    static func arguments(of reply: OpaquePointer, call: String) throws(SystemBusError) -> [BusValue] {
        if dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR {
            let name = dbus_message_get_error_name(reply).map { String(cString: $0) } ?? "error"
            let args = (try? arguments(of: reply)) ?? []
            throw .failed(call: call, name: name, message: args.first?.text ?? "")
        }
        return try arguments(of: reply)
    }

    static func arguments(of message: OpaquePointer) throws(SystemBusError) -> [BusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return values(&iter, depth: 0)
    }

    /// The values from `iter` to the end of its container. D-Bus limits nesting to 64; so does this.
    fileprivate static func values(_ iter: inout DBusMessageIter, depth: Int) -> [BusValue] {
        var out: [BusValue] = []
        repeat {
            let type = dbus_message_iter_get_arg_type(&iter)
            if type == 0 { break }  // DBUS_TYPE_INVALID: an empty container
            out.append(value(&iter, type: type, depth: depth))
        } while dbus_message_iter_next(&iter) != 0
        return out
    }

    fileprivate static func value(_ iter: inout DBusMessageIter, type: Int32, depth: Int) -> BusValue {
        func basic<T>(_: T.Type, _ zero: T) -> T {
            var v = zero
            withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&iter, $0) }
            return v
        }
        func signature() -> String {
            guard let s = dbus_message_iter_get_signature(&iter) else { return "?" }
            defer { dbus_free(s) }
            return String(cString: s)
        }
        switch UInt8(truncatingIfNeeded: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "g"):
            return .string(basic(UnsafePointer<CChar>?.self, nil).map { String(cString: $0) } ?? "")
        case UInt8(ascii: "o"): return .objectPath(basic(UnsafePointer<CChar>?.self, nil).map { String(cString: $0) } ?? "")
        case UInt8(ascii: "b"): return .bool(basic(UInt32.self, 0) != 0)
        case UInt8(ascii: "y"): return .unsigned(UInt64(basic(UInt8.self, 0)))
        case UInt8(ascii: "q"): return .unsigned(UInt64(basic(UInt16.self, 0)))
        case UInt8(ascii: "u"): return .unsigned(UInt64(basic(UInt32.self, 0)))
        case UInt8(ascii: "t"): return .unsigned(basic(UInt64.self, 0))
        case UInt8(ascii: "n"): return .integer(Int64(basic(Int16.self, 0)))
        case UInt8(ascii: "i"): return .integer(Int64(basic(Int32.self, 0)))
        case UInt8(ascii: "x"): return .integer(basic(Int64.self, 0))
        case UInt8(ascii: "d"): return .double(basic(Double.self, 0))
        case UInt8(ascii: "v"), UInt8(ascii: "r"), UInt8(ascii: "a"):
            guard depth < 64 else { return .other(signature: signature()) }
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            let items = values(&inner, depth: depth + 1)
            switch UInt8(truncatingIfNeeded: type) {
            case UInt8(ascii: "v"): return items.first.map { .variant($0) } ?? .other(signature: "v")
            case UInt8(ascii: "r"): return .structure(items)
            default:
                // An array of dictionary entries whose keys are strings or paths: a dictionary.
                // (Keys of another type stay an array of entries: nothing is dropped.)
                if dbus_message_iter_get_element_type(&iter) == Int32(UInt8(ascii: "e")) {
                    var d: [String: BusValue] = [:]
                    for case .structure(let pair) in items where pair.count == 2 {
                        guard let k = pair[0].text else { return .array(items) }
                        d[k] = pair[1]
                    }
                    return .dictionary(d)
                }
                return .array(items)
            }
        case UInt8(ascii: "e"):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return .structure(values(&inner, depth: depth + 1))
        default:
            return .other(signature: signature())
        }
    }
}
