private import CSSL
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

extension TLSServerContext {
    /// The exporter's TLS from its web configuration (`tls_server_config`): the certificate chain
    /// and key, and the client certificates asked for as client_auth_type says. A file that
    /// cannot be used is reported at the line that names it.
    public convenience init(_ tls: WebConfig.TLS, file: String) throws(ConfigError) {
        for p in [tls.certFile, tls.keyFile] + (tls.clientCAFile.map { [$0] } ?? []) where access(p.path, R_OK) != 0 {
            throw ConfigError(file: file, line: p.line, key: p.key, message: "cannot read \(p.path): \(Errno.current)")
        }
        func failure(_ p: WebConfig.Path, _ what: String) -> ConfigError {
            let detail = ERR_peek_last_error()
            ERR_clear_error()
            return ConfigError(
                file: file, line: p.line, key: p.key, message: "cannot load \(what) \(p.path)\(detail == 0 ? "" : " (\(openSSLErrorText(detail)))")")
        }
        guard let c = SSL_CTX_new(TLS_server_method()) else {
            throw ConfigError(file: file, line: tls.certFile.line, key: nil, message: "TLS: cannot create a context")
        }
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(c, tls.certFile.path) == 1 else {
            SSL_CTX_free(c)
            throw failure(tls.certFile, "the certificate")
        }
        guard SSL_CTX_use_PrivateKey_file(c, tls.keyFile.path, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(c)
            throw failure(tls.keyFile, "the key")
        }
        guard SSL_CTX_check_private_key(c) == 1 else {
            SSL_CTX_free(c)
            throw failure(tls.keyFile, "a key matching cert_file: not")
        }
        if let ca = tls.clientCAFile {
            guard SSL_CTX_load_verify_locations(c, ca.path, nil) == 1, let names = SSL_load_client_CA_file(ca.path) else {
                SSL_CTX_free(c)
                throw failure(ca, "the client CA file")
            }
            SSL_CTX_set_client_CA_list(c, names)
        }
        if tls.clientAuth.requests {
            var mode = CSSL_VERIFY_PEER()
            if tls.clientAuth.requiresCertificate { mode |= CSSL_VERIFY_FAIL_IF_NO_PEER_CERT() }
            CSSL_CTX_set_verify(c, mode, tls.clientAuth.verifies ? 1 : 0)
            // A resumed session must be one this configuration made (OpenSSL refuses to resume
            // a verified session without it).
            let context = Array("pushdiag-exporter".utf8)
            _ = SSL_CTX_set_session_id_context(c, context, UInt32(context.count))
        }
        _ = CSSL_CTX_release_buffers(c)
        self.init(owning: c)
    }
}

/// One server TLS session over memory instead of a socket, for an event loop that does its own
/// reading and writing (`HTTPServer`, the exporter's): ciphertext in through `feed`, plaintext
/// out of `read`, plaintext in through `write`, ciphertext out of `takeOutput`. Owns its `SSL`
/// (and the two memory BIOs it holds), freed once. Used from one thread at a time.
public final class TLSMemorySession {
    private let ssl: OpaquePointer
    private let input: OpaquePointer
    private let output: OpaquePointer
    public private(set) var established = false

    public init(context: TLSServerContext) throws(ConnectionFailure) {
        guard let s = SSL_new(context.ctx) else { throw .tls("TLS: cannot create a session") }
        guard let i = BIO_new(BIO_s_mem()), let o = BIO_new(BIO_s_mem()) else {
            SSL_free(s)
            throw .tls("TLS: cannot create a memory BIO")
        }
        SSL_set_bio(s, i, o)  // the session owns both from here
        SSL_set_accept_state(s)
        (ssl, input, output) = (s, i, o)
    }

    deinit { SSL_free(ssl) }

    /// Bytes that came from the client.
    public func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = BIO_write(input, base, Int32(bytes.count))
    }

    /// The plaintext the fed bytes hold (empty while the handshake goes on or a record is
    /// partial); throws when the handshake fails (a client certificate refused, not TLS) or the
    /// client closed.
    public func read() throws(ConnectionFailure) -> [UInt8] {
        if !established {
            ERR_clear_error()
            let rc = SSL_do_handshake(ssl)
            if rc != 1 {
                let e = SSL_get_error(ssl, rc)
                if e == CSSL_ERROR_WANT_READ() || e == CSSL_ERROR_WANT_WRITE() { return [] }
                let code = ERR_get_error()
                throw .tls("TLS handshake with a client failed\(code == 0 ? "" : ": \(openSSLErrorText(code))")")
            }
            established = true
        }
        let (out, end) = sslReadAvailable(ssl, chunk: 16_384)
        if end == .wouldBlock || (end == .closedCleanly && !out.isEmpty) { return out }
        throw .closedByPeer("the client closed the connection")
    }

    /// Plaintext to send (once established); its records wait in `takeOutput`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ConnectionFailure) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        ERR_clear_error()
        let n = SSL_write(ssl, base, Int32(bytes.count))
        guard n == Int32(bytes.count) else { throw .tls("TLS: cannot encrypt a response") }
    }

    /// Says goodbye (close_notify); its record waits in `takeOutput`.
    public func shutdown() {
        if established { _ = SSL_shutdown(ssl) }
    }

    /// The ciphertext to send to the client now (handshake and records).
    public func takeOutput() -> [UInt8] {
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: pending)
        let n = out.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress, Int32(pending)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }
}
