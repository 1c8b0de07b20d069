private import CSSL
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// One TLS client context for many connections: the trust store is loaded once (loading it per
/// connection costs more than a handshake), and certificate and name checks happen during the
/// handshake, so a refused server fails it. Owns its `SSL_CTX`.
public final class TLSClientContext {
    let ctx: OpaquePointer
    public let options: TLSOptions

    public init(_ options: TLSOptions) throws(ConnectionFailure) {
        let c = try makeClientContext(options)
        SSL_CTX_set_verify(c, options.verify ? CSSL_VERIFY_PEER() : CSSL_VERIFY_NONE(), nil)
        _ = CSSL_CTX_release_buffers(c)
        ctx = c
        self.options = options
    }

    deinit { SSL_CTX_free(ctx) }
}

/// A session kept from an earlier handshake, offered on the next one to resume it (a TLS 1.3
/// ticket or a TLS 1.2 session ID), as a device's TLS stack does. Owns its `SSL_SESSION`.
public final class TLSSavedSession {
    let raw: OpaquePointer
    init(_ raw: OpaquePointer) { self.raw = raw }
    deinit { SSL_SESSION_free(raw) }
}

/// One client connection's TLS, non-blocking, advanced by an event loop: each call does what it
/// can now and says what it waits for. Owns its `SSL`; the socket stays the caller's.
public final class TLSClientSession {
    public enum Wait: Sendable { case done, readable, writable }

    private let ssl: OpaquePointer
    let fd: Int32
    let peer: String
    let options: TLSOptions

    public init(fd: Int32, peer: String, context: TLSClientContext, resuming saved: TLSSavedSession?) throws(ConnectionFailure) {
        guard let s = SSL_new(context.ctx) else { throw .tls("TLS: cannot create a session") }
        ssl = s
        self.fd = fd
        self.peer = peer
        options = context.options
        SSL_set_fd(s, fd)
        setPeerName(s, options.serverName)
        if let saved { SSL_set_session(s, saved.raw) }
    }

    /// Freed without a TLS close (a dropped network, an attempt given up): OpenSSL would mark
    /// the session of such a connection, the very one a device keeps to offer next time, as not
    /// resumable, which no device's TLS stack does for a lost network. Marked shut down first, it
    /// stays resumable.
    deinit {
        SSL_set_shutdown(ssl, CSSL_SHUTDOWN_BOTH())
        SSL_free(ssl)
    }

    /// The handshake resumed the offered session.
    public var resumed: Bool { SSL_session_reused(ssl) == 1 }

    /// The session to offer next time, when the server gave one that can be resumed (TLS 1.3
    /// tickets arrive after the handshake: ask after the first read).
    public func sessionToKeep() -> TLSSavedSession? {
        guard let s = SSL_get1_session(ssl) else { return nil }
        guard SSL_SESSION_is_resumable(s) == 1 else {
            SSL_SESSION_free(s)
            return nil
        }
        return TLSSavedSession(s)
    }

    /// What the handshake showed, and whether a device would refuse it (the key pin); nil when
    /// acceptable. Verification and the name were checked during the handshake.
    public func pinRefusal() -> String? {
        guard options.pin != nil else { return nil }
        return TLSConnection.refusal(TLSConnection.describe(ssl, options: options), options: options, peer: peer)
    }

    /// Advances the handshake.
    public func handshake() throws(ConnectionFailure) -> Wait {
        ERR_clear_error()
        let rc = SSL_connect(ssl)
        if rc == 1 { return .done }
        return try wait(rc, what: "TLS handshake with \(peer)")
    }

    /// Writes all of `bytes` (a heartbeat: far below a socket buffer), or throws.
    public func write(_ bytes: [UInt8]) throws(ConnectionFailure) {
        ERR_clear_error()
        let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        if Int(n) == bytes.count { return }
        _ = try wait(n, what: "sending to \(peer)")
        throw .io("sending to \(peer)", errno: .wouldBlock)
    }

    /// Reads what is there into `buffer`: the byte count, 0 at the end of the stream, nil when
    /// it must wait.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ConnectionFailure) -> Int? {
        ERR_clear_error()
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return Int(n) }
        do {
            _ = try wait(n, what: "receiving from \(peer)")
            return nil
        } catch {
            if case .closedByPeer = error, n == 0 { return 0 }
            throw error
        }
    }

    private func wait(_ rc: Int32, what: String) throws(ConnectionFailure) -> Wait {
        let e = SSL_get_error(ssl, rc)
        if e == CSSL_ERROR_WANT_READ() { return .readable }
        if e == CSSL_ERROR_WANT_WRITE() { return .writable }
        if e == CSSL_ERROR_ZERO_RETURN() { throw .closedByPeer("\(what): the server closed the connection") }
        if e == CSSL_ERROR_SYSCALL() {
            let sys = Errno.current
            if ERR_peek_error() == 0 {
                if rc == 0 || sys.rawValue == 0 { throw .closedByPeer("\(what): the server closed the connection") }
                throw .io(what, errno: sys)
            }
        }
        let code = ERR_get_error()
        if code == 0 { throw .closedByPeer("\(what): the server closed the connection") }
        throw .tls("\(what): \(openSSLErrorText(code))")
    }
}
