import Foundation
import PushdiagCore
import PushdiagIO

/// A background process (a server) that the test stops.
public final class Background {
    public let process = Process()
    public let log: URL
    public init(_ executable: String, _ args: [String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("pushdiag-bg-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        let h = try FileHandle(forWritingTo: log)
        process.standardOutput = h
        process.standardError = h
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits until the log says `text` (a server saying it listens).
    public func wait(for text: String, seconds: Double = 10) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if let s = try? String(contentsOf: log, encoding: .utf8), s.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// SIGINT first; the test runner may have left signals blocked in children that do not
    /// unblock them (pushdiag does), so SIGKILL after two seconds.
    public func stop() {
        if process.isRunning { process.interrupt() }
        let end = Date().addingTimeInterval(2)
        while process.isRunning && Date() < end { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: log)
    }
}

/// A TCP socket's state as /proc/net/tcp writes it (include/net/tcp_states.h).
public enum TCPState: String, Sendable {
    case established = "01"
    case synSent = "02"
}

/// Waits until the kernel holds `count` TCP sockets in `state` whose local port (or, with
/// `remote`, the port they connect to) is `port`, in the network namespace of `pid` (this
/// process's when nil; /proc/PID/net/tcp is that process's namespace's table), IPv4: a client
/// has connected, or is connecting, whatever its start-up took. False after `seconds`.
public func waitTCP(
    port: UInt16, state: TCPState = .established, count: Int = 1, remote: Bool = false, namespaceOf pid: Int32? = nil, seconds: Double = 10
) -> Bool {
    let suffix = String(format: ":%04X", port)
    let path = pid.map { "/proc/\($0)/net/tcp" } ?? "/proc/net/tcp"
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        let held = procFile(path).split(separator: "\n").dropFirst().filter { line in
            let f = line.split(separator: " ")
            return f.count > 3 && f[remote ? 2 : 1].hasSuffix(suffix) && f[3] == state.rawValue
        }
        if held.count >= count { return true }
        usleep(20_000)
    }
    return false
}

/// A /proc file whole: read to its end (Foundation's `String(contentsOfFile:)` stops at the
/// first short read, and /proc/net/tcp gives a page of records a read).
func procFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        bytes += buffer[0..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A port nobody listens on yet, on loopback.
public func freePort() -> UInt16 {
    for _ in 0..<50 {
        let p = UInt16.random(in: 20_000...60_000)
        if (try? TCPListener(Endpoint("127.0.0.1:\(p)", defaultPort: nil)!)) != nil { return p }
    }
    return 39_999
}
