import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A byte stream with deadlines: plain TCP, or TLS over it.
public protocol ByteStream: AnyObject {
    func send(_ bytes: [UInt8], timeoutMs: Int32) throws(ConnectionFailure)
    /// Bytes within `timeoutMs`: nil on timeout (or when a signal cut the wait short), empty at
    /// the end of the stream.
    func receive(max: Int, timeoutMs: Int32) throws(ConnectionFailure) -> [UInt8]?
}

/// A connected, non-blocking TCP socket; every wait has a deadline. Owns its descriptor.
public final class TCPConnection: ByteStream {
    let descriptor: Descriptor
    public let peer: String
    public var fd: Int32 { descriptor.rawValue }

    init(_ descriptor: Descriptor, peer: String) {
        self.descriptor = descriptor
        self.peer = peer
    }

    /// A non-blocking TCP socket for `family`, with `TCP_NODELAY` (heartbeats are small).
    static func socket(family: Int32) -> Result<Descriptor, Errno> {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return Syscall.retrying { Glibc.socket(family, type, 0) }.map { fd in
            Syscall.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return Descriptor(fd)
        }
    }

    /// Connects within `timeoutMs`; a refusal or timeout names the host. A connect that is in
    /// progress, or that a signal interrupted (it goes on in the kernel), is waited for with
    /// poll and its outcome read from `SO_ERROR`: the connection returned is established.
    /// A stop asked meanwhile (`stop`, looked at every 100 ms) ends the wait.
    public static func connect(
        _ a: IPAddress, port: UInt16, name: String, timeoutMs: Int32, stop: () -> Bool = { false }
    ) throws(ConnectionFailure) -> TCPConnection {
        let address = SocketAddress(a, port: port)
        let d: Descriptor
        switch socket(family: address.family) {
        case .success(let s): d = s
        case .failure(let e): throw .io("cannot open a socket to \(name)", errno: e)
        }
        let rc = address.withSockaddr { Glibc.connect(d.rawValue, $0, $1) }
        if rc != 0 {
            let e = Errno.current
            guard e == .inProgress || e == .interrupted else { throw .connect(host: name, errno: e) }
            let deadline = Clock.ms() + Double(timeoutMs)
            while true {
                switch Syscall.poll(d.rawValue, events: Int16(POLLOUT), timeoutMs: min(Clock.pollTimeout(until: deadline), 100)) {
                case .failure(let e): throw .io("waiting for \(name)", errno: e)
                case .success(0):
                    if Clock.ms() >= deadline { throw .timeout("connecting to \(name)") }
                    if stop() { throw .stopped("connecting to \(name)") }
                    continue  // a signal: the connect goes on
                case .success: break
                }
                break
            }
            if let e = Syscall.pendingError(d.rawValue) { throw .connect(host: name, errno: e) }
        }
        return TCPConnection(d, peer: name)
    }

    public func send(_ bytes: [UInt8], timeoutMs: Int32) throws(ConnectionFailure) {
        var off = 0
        let deadline = Clock.ms() + Double(timeoutMs)
        while off < bytes.count {
            let sent = bytes.withUnsafeBytes { b in
                Syscall.retrying { Glibc.send(fd, b.baseAddress! + off, b.count - off, Int32(MSG_NOSIGNAL)) }
            }
            switch sent {
            case .success(let n): off += n
            case .failure(let e) where e == .wouldBlock:
                if case .failure(let e) = Syscall.poll(fd, events: Int16(POLLOUT), timeoutMs: Clock.pollTimeout(until: deadline)) {
                    throw .io("sending to \(peer)", errno: e)
                }
                if Clock.ms() >= deadline { throw .timeout("sending to \(peer)") }
            case .failure(let e) where e == .brokenPipe || e == .connectionReset:
                throw .closedByPeer("the server closed the connection")
            case .failure(let e):
                throw .io("sending to \(peer)", errno: e)
            }
        }
    }

    /// Bytes received within `timeoutMs`: nil on timeout, empty at end of stream.
    public func receive(max: Int = 65_536, timeoutMs: Int32) throws(ConnectionFailure) -> [UInt8]? {
        switch Syscall.poll(fd, events: Int16(POLLIN), timeoutMs: timeoutMs) {
        case .failure(let e): throw .io("waiting for \(peer)", errno: e)
        case .success(0): return nil
        case .success: break
        }
        var buf = [UInt8](repeating: 0, count: max)
        let got = buf.withUnsafeMutableBytes { b in Syscall.retrying { recv(fd, b.baseAddress, b.count, 0) } }
        switch got {
        case .success(let n): return Array(buf[0..<n])
        case .failure(let e) where e == .wouldBlock: return nil
        case .failure(let e) where e == .connectionReset: throw .closedByPeer("the server closed the connection")
        case .failure(let e): throw .io("receiving from \(peer)", errno: e)
        }
    }
}

/// A listening TCP socket. Accepting from another thread is safe (accept(2) is).
public final class TCPListener: Sendable {
    let descriptor: Descriptor
    public let port: UInt16
    public var fd: Int32 { descriptor.rawValue }

    public init(_ e: Endpoint) throws(ConnectionFailure) {
        let a: IPAddress
        switch Resolver.resolve(e.host) {
        case .success(let r): a = r
        case .failure(let f): throw f
        }
        let address = SocketAddress(a, port: e.port)
        let d: Descriptor
        switch TCPConnection.socket(family: address.family) {
        case .success(let s): d = s
        case .failure(let err): throw .io("cannot open a socket for \(e)", errno: err)
        }
        Syscall.setOption(d.rawValue, SOL_SOCKET, SO_REUSEADDR, 1)
        guard address.withSockaddr({ bind(d.rawValue, $0, $1) }) == 0, listen(d.rawValue, 4096) == 0 else {
            throw .io("cannot listen on \(e)", errno: .current)
        }
        descriptor = d
        port = e.port
    }

    /// The port bound: the one asked, or the kernel's choice for port 0 (getsockname).
    public var boundPort: UInt16 { SocketAddress(of: fd, peer: false)?.port ?? port }

    /// An accepted connection, nil when none is waiting; `.failure` when accepting failed for a
    /// reason other than that (the open-file limit, say).
    public func accept() -> Result<TCPConnection, Errno>? {
        switch Syscall.retrying({ Glibc.accept(fd, nil, nil) }) {
        case .success(let c):
            // accept4 is not in Glibc's Swift module: the flags are set after.
            _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
            _ = fcntl(c, F_SETFD, FD_CLOEXEC)
            Syscall.setOption(c, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return .success(TCPConnection(Descriptor(c), peer: "client"))
        case .failure(let e) where e == .wouldBlock:
            return nil
        case .failure(let e):
            return .failure(e)
        }
    }
}
