private import CSSL
import FoundationEssentials
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A client `SSL_CTX` with the system's trust store and `options`' CA file; the caller owns it.
func makeClientContext(_ options: TLSOptions) throws(ConnectionFailure) -> OpaquePointer {
    guard let c = SSL_CTX_new(TLS_client_method()) else { throw .tls("TLS: cannot create a context") }
    SSL_CTX_set_default_verify_paths(c)
    if let ca = options.caFile, SSL_CTX_load_verify_locations(c, ca, nil) != 1 {
        SSL_CTX_free(c)
        throw .tls("TLS: cannot load the CA file \(ca)")
    }
    return c
}

/// The name the certificate must carry: an IP address, or a host name (sent as SNI too).
func setPeerName(_ ssl: OpaquePointer, _ name: String) {
    if IPText.parse(name) != nil {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name)
    } else {
        _ = CSSL_set_tlsext_host_name(ssl, name)
        SSL_set1_host(ssl, name)
    }
}

/// OpenSSL's words for an error code from its queue.
func openSSLErrorText(_ code: UInt) -> String {
    var buf = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buf, buf.count)
    return String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Waits on the socket as OpenSSL asks (`SSL_ERROR_WANT_READ`/`WANT_WRITE`), or throws what went wrong.
private func sslWait(_ err: Int32, fd: Int32, deadline: Double, what: String) throws(ConnectionFailure) {
    let events: Int16
    if err == CSSL_ERROR_WANT_READ() {
        events = Int16(POLLIN)
    } else if err == CSSL_ERROR_WANT_WRITE() {
        events = Int16(POLLOUT)
    } else if err == CSSL_ERROR_ZERO_RETURN() {
        throw .closedByPeer("the server closed the connection")
    } else {
        let code = ERR_get_error()
        if code == 0 { throw .closedByPeer("the server closed the connection") }
        throw .tls("\(what): \(openSSLErrorText(code))")
    }
    if Clock.ms() >= deadline { throw .timeout(what) }
    if case .failure(let e) = Syscall.poll(fd, events: events, timeoutMs: Clock.pollTimeout(until: deadline)) { throw .io(what, errno: e) }
}

/// Writes every byte through `SSL_write`, waiting as OpenSSL asks, within the deadline.
private func sslWriteAll(_ ssl: OpaquePointer, fd: Int32, _ bytes: [UInt8], timeoutMs: Int32, what: String) throws(ConnectionFailure) {
    let deadline = Clock.ms() + Double(timeoutMs)
    var off = 0
    while off < bytes.count {
        ERR_clear_error()
        let n = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + off, Int32($0.count - off)) }
        if n > 0 {
            off += Int(n)
            continue
        }
        try sslWait(SSL_get_error(ssl, n), fd: fd, deadline: deadline, what: what)
    }
}

/// Why `sslReadAvailable` stopped.
enum SSLReadEnd { case wouldBlock, closedCleanly, failed }

/// Every byte of plaintext OpenSSL can give now, read `chunk` bytes at a time, and why it stopped:
/// it wants more bytes from the peer (or to write), the peer closed the session (close_notify),
/// or the session failed.
func sslReadAvailable(_ ssl: OpaquePointer, chunk: Int) -> (bytes: [UInt8], end: SSLReadEnd) {
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: chunk)
    while true {
        ERR_clear_error()
        let n = buf.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        if n > 0 {
            out += buf[0..<Int(n)]
            continue
        }
        let e = SSL_get_error(ssl, n)
        if e == CSSL_ERROR_WANT_READ() || e == CSSL_ERROR_WANT_WRITE() { return (out, .wouldBlock) }
        return (out, e == CSSL_ERROR_ZERO_RETURN() ? .closedCleanly : .failed)
    }
}

/// TLS over a TCP connection through OpenSSL, non-blocking with the same deadlines. Owns its
/// `SSL_CTX` and `SSL`, freed once.
public final class TLSConnection: ByteStream {
    let tcp: TCPConnection
    private let ctx: OpaquePointer
    private let ssl: OpaquePointer
    public private(set) var info: TLSInfo?

    public init(over tcp: TCPConnection, options: TLSOptions, timeoutMs: Int32) throws(ConnectionFailure) {
        self.tcp = tcp
        let c = try makeClientContext(options)
        guard let s = SSL_new(c) else {
            SSL_CTX_free(c)
            throw .tls("TLS: cannot create a session")
        }
        ctx = c
        ssl = s
        SSL_set_fd(s, tcp.fd)
        // Verify on the handshake, but decide after it, so the report shows what was presented.
        SSL_set_verify(s, CSSL_VERIFY_NONE(), nil)
        setPeerName(s, options.serverName)
        let deadline = Clock.ms() + Double(timeoutMs)
        while true {
            ERR_clear_error()
            let rc = SSL_connect(s)
            if rc == 1 { break }
            try sslWait(SSL_get_error(s, rc), fd: tcp.fd, deadline: deadline, what: "TLS handshake with \(tcp.peer)")
        }
        info = Self.describe(s, options: options)
    }

    /// The verdict a client would reach on what the handshake showed: certificate verification
    /// (unless disabled) and the key pin (when given). Nil when the server is acceptable.
    public static func refusal(_ info: TLSInfo?, options: TLSOptions, peer: String) -> String? {
        guard let i = info else { return "TLS handshake with \(peer): the server presented no certificate" }
        if options.verify, !i.verified { return "TLS handshake with \(peer): certificate verify failed: \(i.verifyError ?? "unknown reason")" }
        if let pin = options.pin, i.spkiSha256 != pin { return "TLS: \(peer) presents key pin \(i.spkiSha256), not the expected \(pin)" }
        return nil
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(ctx)
    }

    static func describe(_ s: OpaquePointer, options: TLSOptions) -> TLSInfo? {
        guard let cert = CSSL_get_peer_certificate(s) else { return nil }
        defer { X509_free(cert) }
        func name(_ n: OpaquePointer?) -> String {
            guard let n, let p = X509_NAME_oneline(n, nil, 0) else { return "" }
            defer { CRYPTO_free(p, nil, 0) }
            return String(cString: p)
        }
        var days: Int32 = 0
        var secs: Int32 = 0
        _ = CSSL_not_after_diff(cert, &days, &secs)
        // In seconds: a certificate valid until 9999 (notAfter 99991231235959Z) is beyond what
        // 64-bit nanoseconds hold.
        let notAfterSeconds = WallClock.nanoseconds() / 1_000_000_000 + Int64(days) * 86_400 + Int64(secs)
        // SPKI: the DER of the certificate's public key info, hashed.
        var der: UnsafeMutablePointer<UInt8>?
        let len = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der)
        var digest = [UInt8](repeating: 0, count: 32)
        if len > 0, let der { _ = SHA256(der, Int(len), &digest) }
        if let der { CRYPTO_free(der, nil, 0) }
        let result = SSL_get_verify_result(s)
        let verified = result == Int(CSSL_X509_V_OK())
        let verifyError = verified ? nil : String(cString: X509_verify_cert_error_string(result))
        let pin = Data(digest).base64EncodedString()
        return TLSInfo(
            version: String(cString: SSL_get_version(s)),
            cipher: SSL_CIPHER_get_name(SSL_get_current_cipher(s)).map { String(cString: $0) } ?? "?",
            subject: name(X509_get_subject_name(cert)), issuer: name(X509_get_issuer_name(cert)),
            notAfter: Timestamp.rfc3339(seconds: notAfterSeconds), notAfterSeconds: notAfterSeconds, daysLeft: Int(days),
            spkiSha256: pin, verified: verified, verifyError: verifyError, pinMatched: options.pin.map { $0 == pin })
    }

    public func send(_ bytes: [UInt8], timeoutMs: Int32) throws(ConnectionFailure) {
        try sslWriteAll(ssl, fd: tcp.fd, bytes, timeoutMs: timeoutMs, what: "sending to \(tcp.peer)")
    }

    public func receive(max: Int, timeoutMs: Int32) throws(ConnectionFailure) -> [UInt8]? {
        let deadline = Clock.ms() + Double(timeoutMs)
        var buf = [UInt8](repeating: 0, count: max)
        while true {
            ERR_clear_error()
            let n = buf.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 { return Array(buf[0..<Int(n)]) }
            do {
                try sslWait(SSL_get_error(ssl, n), fd: tcp.fd, deadline: deadline, what: "receiving from \(tcp.peer)")
            } catch {
                switch error {
                case .closedByPeer: return []
                case .timeout: return nil
                default: throw error
                }
            }
        }
    }
}

/// The server side of TLS for the responder: a certificate and key loaded once, then one
/// non-blocking session per accepted connection, advanced by the poll loop.
public final class TLSServerContext: @unchecked Sendable {
    let ctx: OpaquePointer

    public init(certificate: String, key: String) throws(ConnectionFailure) {
        guard let c = SSL_CTX_new(TLS_server_method()) else { throw .tls("TLS: cannot create a context") }
        guard SSL_CTX_use_certificate_chain_file(c, certificate) == 1 else {
            SSL_CTX_free(c)
            throw .tls("TLS: cannot load the certificate \(certificate)")
        }
        guard SSL_CTX_use_PrivateKey_file(c, key, SSL_FILETYPE_PEM) == 1, SSL_CTX_check_private_key(c) == 1 else {
            SSL_CTX_free(c)
            throw .tls("TLS: cannot load the key \(key), or it does not match the certificate")
        }
        _ = CSSL_CTX_release_buffers(c)
        ctx = c
    }

    /// Takes `ctx`, made and configured by the caller.
    init(owning ctx: OpaquePointer) { self.ctx = ctx }

    deinit { SSL_CTX_free(ctx) }
}

public final class TLSServerConnection: ByteStream {
    let tcp: TCPConnection
    private let ssl: OpaquePointer
    public private(set) var established = false

    public init(over tcp: TCPConnection, context: TLSServerContext) throws(ConnectionFailure) {
        guard let s = SSL_new(context.ctx) else { throw .tls("TLS: cannot create a session") }
        self.tcp = tcp
        ssl = s
        SSL_set_fd(s, tcp.fd)
    }

    deinit { SSL_free(ssl) }

    /// The handshake resumed an earlier session instead of a full one.
    public var resumed: Bool { SSL_session_reused(ssl) == 1 }

    /// Advances the handshake: true when done, false when it needs more bytes; throws on failure.
    public func handshakeStep() throws(ConnectionFailure) -> Bool {
        if established { return true }
        ERR_clear_error()
        let rc = SSL_accept(ssl)
        if rc == 1 {
            established = true
            return true
        }
        let e = SSL_get_error(ssl, rc)
        if e == CSSL_ERROR_WANT_READ() || e == CSSL_ERROR_WANT_WRITE() { return false }
        throw .tls("TLS handshake with a client failed")
    }

    public func send(_ bytes: [UInt8], timeoutMs: Int32) throws(ConnectionFailure) {
        do {
            try sslWriteAll(ssl, fd: tcp.fd, bytes, timeoutMs: timeoutMs, what: "sending to a client")
        } catch {
            if case .timeout = error { throw error }
            throw .closedByPeer("the client closed the connection")
        }
    }

    /// What is readable now (nil: nothing yet; empty: closed).
    public func receive(max: Int, timeoutMs: Int32) throws(ConnectionFailure) -> [UInt8]? {
        let (out, end) = sslReadAvailable(ssl, chunk: max)
        return end == .wouldBlock && out.isEmpty ? nil : out
    }
}
