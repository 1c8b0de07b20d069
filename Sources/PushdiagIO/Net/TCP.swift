import PushdiagCore
#if canImport(Glibc)
import Glibc
#endif

/// Why a TCP exchange failed, in words a field engineer can act on.
public enum SocketError: Error, Equatable, CustomStringConvertible {
    case resolve(String)
    case connect(host: String, errno: Int32)
    case timeout(String)
    case closed
    case io(String, errno: Int32)
    case protocolError(String)

    public var description: String {
        switch self {
        case .resolve(let s): return s
        case .connect(let host, let e): return "cannot connect to \(host): \(Errno.describe(e))"
        case .timeout(let what): return "\(what): timed out"
        case .closed: return "the server closed the connection"
        case .io(let what, let e): return "\(what): \(Errno.describe(e))"
        case .protocolError(let s): return s
        }
    }
}

/// host:port, [v6]:port or host (with a default port).
public struct Endpoint: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init?(_ text: String, defaultPort: UInt16?) {
        var host = text
        var port = defaultPort
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.hasPrefix(":") { port = UInt16(rest.dropFirst()) }
            else if !rest.isEmpty { return nil }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            port = UInt16(text[text.index(after: colon)...])
        }
        guard !host.isEmpty, let port, port > 0 else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

enum Clock {
    static func ms() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}

func sockaddrStorage(_ a: IPAddress, port: UInt16) -> (sockaddr_storage, socklen_t) {
    var ss = sockaddr_storage()
    var len: socklen_t = 0
    withUnsafeMutableBytes(of: &ss) { raw in
        if a.bytes.count == 4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin.sin_addr) { $0.copyBytes(from: a.bytes) }
            withUnsafeBytes(of: sin) { raw.copyMemory(from: $0) }
            len = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: a.bytes) }
            withUnsafeBytes(of: sin6) { raw.copyMemory(from: $0) }
            len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }
    return (ss, len)
}

/// A connected, non-blocking TCP socket; every wait has a deadline. Owns its descriptor.
public final class TCPConnection {
    public let fd: Int32
    public let peer: String

    init(fd: Int32, peer: String) {
        self.fd = fd
        self.peer = peer
    }

    deinit { close(fd) }

    /// Connects within `timeoutMs`; the refusal or timeout names the host.
    public static func connect(_ a: IPAddress, port: UInt16, name: String, timeoutMs: Int32) throws(SocketError) -> TCPConnection {
        let fd = socket(a.bytes.count == 4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io("socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var (ss, len) = sockaddrStorage(a, port: port)
        let rc = withUnsafePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, len) } }
        if rc != 0 && errno != EINPROGRESS {
            let e = errno
            close(fd)
            throw .connect(host: name, errno: e)
        }
        if rc != 0 {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&p, 1, timeoutMs)
            if n == 0 {
                close(fd)
                throw .timeout("connecting to \(name)")
            }
            var err: Int32 = 0
            var elen = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen)
            if err != 0 {
                close(fd)
                throw .connect(host: name, errno: err)
            }
        }
        return TCPConnection(fd: fd, peer: name)
    }

    public func send(_ bytes: [UInt8], timeoutMs: Int32) throws(SocketError) {
        var off = 0
        let deadline = Clock.ms() + Double(timeoutMs)
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n > 0 { off += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                let left = Int32(max(0, deadline - Clock.ms()))
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&p, 1, left) == 0 { throw .timeout("sending to \(peer)") }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            let e = errno
            if e == EPIPE || e == ECONNRESET { throw .closed }
            throw .io("sending to \(peer)", errno: e)
        }
    }

    /// Bytes received within `timeoutMs`: nil on timeout, empty at end of stream.
    public func receive(max: Int = 65_536, timeoutMs: Int32) throws(SocketError) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let n = poll(&p, 1, timeoutMs)
            if n == 0 { return nil }
            if n < 0 {
                if errno == EINTR { return nil }
                throw .io("waiting for \(peer)", errno: errno)
            }
            break
        }
        var buf = [UInt8](repeating: 0, count: max)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { return nil }
            if errno == ECONNRESET { throw .closed }
            throw .io("receiving from \(peer)", errno: errno)
        }
        return Array(buf[0..<n])
    }
}

/// A listening TCP socket. Accepting from another thread is safe (accept(2) is).
public final class TCPListener: @unchecked Sendable {
    public let fd: Int32
    public let port: UInt16

    public init(_ e: Endpoint) throws(SocketError) {
        guard case .success(let a) = RouteChecker.resolve(e.host) else { throw .resolve("cannot resolve \(e.host)") }
        let fd = socket(a.bytes.count == 4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io("socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var (ss, len) = sockaddrStorage(a, port: e.port)
        let rc = withUnsafePointer(to: &ss) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard rc == 0, listen(fd, 4096) == 0 else {
            let err = errno
            close(fd)
            throw .io("cannot listen on \(e)", errno: err)
        }
        self.fd = fd
        port = e.port
    }

    deinit { close(fd) }

    /// An accepted connection, or nil when none is waiting.
    public func accept() -> TCPConnection? {
        let c = Glibc.accept(fd, nil, nil)
        guard c >= 0 else { return nil }
        _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
        _ = fcntl(c, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(c, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return TCPConnection(fd: c, peer: "client")
    }
}
