import FoundationEssentials
import PushdiagCore
import PushdiagIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One line per state change on standard error ("2026-11-23T10:00:00.123Z push 10.0.0.5:3000:
/// ready"), as journald or a terminal shows it. A subject repeating its last line says nothing.
public final class ExporterLog: Sendable {
    let last = Mutex<[String: String]>([:])
    let write: @Sendable (String) -> Void

    public init(
        write: @escaping @Sendable (String) -> Void = { line in
            let text = line + "\n"
            _ = text.withCString { Glibc.write(2, $0, strlen($0)) }
        }
    ) {
        self.write = write
    }

    /// Logs `what` about `subject` unless it is what was last logged about it.
    public func change(_ subject: String, _ what: String) {
        let repeated = last.withLock { l -> Bool in
            defer { l[subject] = what }
            return l[subject] == what
        }
        if !repeated { line("\(subject): \(what)") }
    }

    /// Logs a line whatever came before, on one line: what a request or a file said in it (a
    /// /probe target refused) cannot start a line of its own.
    public func line(_ text: String) {
        write("\(Timestamp.rfc3339(nanoseconds: WallClock.nanoseconds())) \(text.oneLine)")
    }

    /// Forgets a subject (it left the configuration).
    public func forget(_ subject: String) { _ = last.withLock { $0.removeValue(forKey: subject) } }
}
