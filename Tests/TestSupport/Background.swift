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

/// A port nobody listens on yet, on loopback.
public func freePort() -> UInt16 {
    for _ in 0..<50 {
        let p = UInt16.random(in: 20_000...60_000)
        if (try? TCPListener(Endpoint("127.0.0.1:\(p)", defaultPort: nil)!)) != nil { return p }
    }
    return 39_999
}
