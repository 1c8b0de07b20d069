import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// wpa_supplicant's control interface (wpa_ctrl.c's protocol): a unix datagram socket at
/// DIR/IFACE, one command per datagram, one reply. The client's own end is autobound in the
/// abstract namespace (no file to clean up); wpa_supplicant answers the address it came from.
public final class WPAControl {
    let fd: Descriptor
    public let path: String

    /// Connects to `/var/run/wpa_supplicant/IFACE` (or `directory`).
    public init(interface: String, directory: String = "/var/run/wpa_supplicant") throws(WPAControlError) {
        path = directory + "/" + interface
        let s = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw .socket(path: path, Errno.current) }
        fd = Descriptor(s)
        // Autobind: an address of the family alone gets an abstract name from the kernel.
        var local = sockaddr_un()
        local.sun_family = sa_family_t(AF_UNIX)
        let bound = withUnsafePointer(to: &local) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(s, $0, socklen_t(MemoryLayout<sa_family_t>.size)) }
        }
        guard bound == 0 else { throw .socket(path: path, Errno.current) }
        var remote = sockaddr_un()
        remote.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: remote.sun_path) else { throw .socket(path: path, Errno(ENAMETOOLONG)) }
        withUnsafeMutableBytes(of: &remote.sun_path) { b in
            for (i, c) in bytes.enumerated() { b[i] = c }
        }
        let connected = withUnsafePointer(to: &remote) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw .socket(path: path, Errno.current) }
    }

    /// Sends `command` and waits up to `timeoutMs` for its reply (unsolicited event messages,
    /// which begin with `<`, are skipped).
    public func request(_ command: String, timeoutMs: Int32 = 2000) throws(WPAControlError) -> String {
        let sent = Array(command.utf8).withUnsafeBytes { b in Syscall.retrying { Glibc.send(fd.rawValue, b.baseAddress, b.count, Int32(MSG_NOSIGNAL)) } }
        if case .failure(let e) = sent { throw .socket(path: path, e) }
        let deadline = Clock.ms() + Double(timeoutMs)
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            switch Syscall.poll(fd.rawValue, events: Int16(POLLIN), timeoutMs: Clock.pollTimeout(until: deadline)) {
            case .failure(let e): throw .socket(path: path, e)
            case .success(let ev) where ev == 0:
                if Clock.ms() >= deadline { throw .noReply(path: path, command: command) }
                continue
            case .success: break
            }
            let n = buf.withUnsafeMutableBytes { b in Syscall.retrying { Glibc.recv(fd.rawValue, b.baseAddress, b.count, 0) } }
            switch n {
            case .failure(let e): throw .socket(path: path, e)
            case .success(let count):
                let text = String(decoding: buf.prefix(Int(count)), as: UTF8.self)
                if text.hasPrefix("<") { continue }
                return text
            }
        }
    }

    /// A command whose reply must be `OK` (DISCONNECT, RECONNECT).
    public func expectOK(_ command: String) throws(WPAControlError) {
        let reply = try request(command)
        guard reply.hasPrefix("OK") else { throw .refused(path: path, command: command, reply: reply.trimmingNewline) }
    }

    public func status() throws(WPAControlError) -> [String: String] { WPAStatus.parse(try request("STATUS")) }
}

/// Why wpa_supplicant's control interface could not be used.
public enum WPAControlError: Error, Equatable, CustomStringConvertible {
    /// The socket: missing (wpa_supplicant not running on the interface, or another directory),
    /// refused (root or the ctrl_interface group needed), or a send or receive that failed.
    case socket(path: String, Errno)
    case noReply(path: String, command: String)
    case refused(path: String, command: String, reply: String)

    public var description: String {
        switch self {
        case .socket(let p, let e):
            let hint: String
            switch e.rawValue {
            case ENOENT, ECONNREFUSED: hint = " (is wpa_supplicant running on this interface, with its control interface there?)"
            case EACCES, EPERM: hint = " (wpa_supplicant's control interface needs root or its ctrl_interface group)"
            default: hint = ""
            }
            return "wpa_supplicant control interface \(p): \(e)\(hint)"
        case .noReply(let p, let c): return "wpa_supplicant control interface \(p): no reply to \(c) within 2 s"
        case .refused(let p, let c, let r): return "wpa_supplicant control interface \(p): \(c) answered \(r)"
        }
    }
}

extension String {
    var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
