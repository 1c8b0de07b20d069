import Foundation
import PushdiagIO
import TestSupport
import Testing

/// SystemBus (libdbus) against a real dbus-daemon of the test's own, reached through
/// DBUS_SYSTEM_BUS_ADDRESS (which libdbus reads for the system bus): the bus daemon's own methods
/// give every shape pushdiag reads — a string, a boolean, an array of strings, dictionaries of
/// variants with unsigned integers and arrays in them — and its errors. NetworkManager and iwd
/// themselves are met in the lab (LabTests, join-iwd and join-nm). One test, since the address is
/// the process's environment.
@Suite struct SystemBusTests {
    @Test(.enabled(if: TestPaths.which("dbus-daemon") != nil, "dbus-daemon is not installed"))
    func callsRepliesAndErrorsOfARealBus() throws {
        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("bus").path
        // Debian's session configuration (anyone may call anything), listening where the test says.
        let daemon = try Background(
            TestPaths.which("dbus-daemon")!, ["--session", "--nofork", "--nopidfile", "--print-address", "--address=unix:path=\(socket)"])
        defer { daemon.stop() }
        #expect(daemon.wait(for: "unix:path="), "\(daemon.output)")
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=\(socket)", 1)
        defer { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }

        let bus = try SystemBus()
        let daemonName = "org.freedesktop.DBus"
        let daemonPath = "/org/freedesktop/DBus"
        // A string: the bus's id, 32 hex digits.
        let id = try bus.call(daemonName, daemonPath, daemonName, "GetId")
        #expect(id.count == 1 && id.first?.text?.count == 32 && id.first?.text?.allSatisfy(\.isHexDigit) == true, "\(id)")
        // Booleans: the daemon owns its name; nobody owns iwd's here.
        #expect(bus.hasOwner(daemonName))
        #expect(!bus.hasOwner("net.connman.iwd"))
        // An array of strings, holding the daemon's name and this connection's unique name.
        guard case .array(let names)? = try bus.call(daemonName, daemonPath, daemonName, "ListNames").first else {
            Issue.record("ListNames: not an array")
            return
        }
        #expect(names.contains(.string(daemonName)) && names.contains { $0.text?.hasPrefix(":") == true }, "\(names)")
        // A dictionary of variants (a{sv}): this process's credentials, an unsigned integer each.
        var pids: [UInt64] = []
        for case .string(let n) in names where n.hasPrefix(":") {
            let creds = try bus.call(daemonName, daemonPath, daemonName, "GetConnectionCredentials", [.string(n)]).first
            if case .unsigned(let pid)? = creds?["ProcessID"]?.unwrapped { pids.append(pid) }
            #expect(creds?["UnixUserID"]?.unwrapped == .unsigned(UInt64(getuid())), "\(String(describing: creds))")
        }
        #expect(pids.contains(UInt64(getpid())), "\(pids) has not \(getpid())")
        // A property through org.freedesktop.DBus.Properties.Get: an array of strings in a variant.
        let features = try bus.property(daemonName, daemonPath, daemonName, "Interfaces")
        guard case .array(let interfaces)? = features else {
            Issue.record("Interfaces: \(String(describing: features))")
            return
        }
        #expect(interfaces.allSatisfy { $0.text?.hasPrefix("org.freedesktop.DBus.") == true }, "\(interfaces)")
        // A call whose reply is read later: waited for, or looked for without blocking.
        let pending = try bus.send(daemonName, daemonPath, daemonName, "GetId")
        #expect(try pending.reply() == id)
        let polled = try bus.send(daemonName, daemonPath, daemonName, "GetId")
        for _ in 0..<500 where !polled.isCompleted { usleep(10_000) }
        #expect(polled.isCompleted)
        #expect(try polled.reply() == id)

        // Errors: the D-Bus error's name, never a crash.
        #expect(throws: SystemBusError.self) { try bus.call(daemonName, daemonPath, daemonName, "NoSuchMethod") }
        do {
            _ = try bus.call("net.connman.iwd", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
            Issue.record("a call to a name nobody owns was answered")
        } catch {
            guard case .failed(_, let name, _) = error else { throw error }
            #expect(name == "org.freedesktop.DBus.Error.ServiceUnknown", "\(error)")
        }
        // Paths and names libdbus would abort on are refused first.
        for (destination, path) in [(daemonName, "not/a/path"), (daemonName, "/a//b"), ("not a name", daemonPath)] {
            do {
                _ = try bus.call(destination, path, daemonName, "GetId")
                Issue.record("\(destination) \(path) was sent")
            } catch {
                guard case .failed(_, let name, _) = error else { throw error }
                #expect(name == "invalid", "\(error)")
            }
        }
        #expect(throws: SystemBusError.self) { try bus.call(daemonName, daemonPath, daemonName, "GetNameOwner", [.objectPath("no path")]) }

        // The bus gone: a call fails, the process goes on (libdbus's shared connection would exit).
        daemon.stop()
        #expect(throws: SystemBusError.self) { try bus.call(daemonName, daemonPath, daemonName, "GetId", timeoutMs: 2000) }
    }
}
