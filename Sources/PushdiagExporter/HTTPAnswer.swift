import PushdiagCore
import PushdiagIO

/// The exporter could not have its port: the address is taken, not this machine's, or not
/// allowed. One line, exit 3, as a usage error.
public struct ListenFailure: Error, Equatable, CustomStringConvertible {
    public let endpoint: Endpoint
    /// strerror's text with the C name, or the resolver's words.
    public let reason: String
    public var description: String { "--listen: cannot listen on \(endpoint): \(reason)" }
}

/// What the exporter's routes send back, before it is HTTP (`HTTPServer` in PushdiagIO writes
/// it, with the request's version, `Content-Length` and, when the connection ends, `Connection:
/// close`).
public enum HTTPAnswer: Sendable {
    case metrics([UInt8])
    case text(Int, String)
    case html(String)
    /// 401 with `WWW-Authenticate: Basic`: missing or wrong credentials.
    case unauthorized
    /// 429 with `Retry-After: 1`: a client over its rate.
    case tooMany(String)

    var response: HTTPResponse {
        let text = "text/plain; charset=utf-8"
        let (status, type, body, fields): (Int, String, [UInt8], [HTTPHeaderField])
        switch self {
        case .metrics(let b): (status, type, body, fields) = (200, "text/plain; version=0.0.4; charset=utf-8", b, [])
        case .text(let s, let t): (status, type, body, fields) = (s, text, Array(t.utf8), [])
        case .html(let t): (status, type, body, fields) = (200, "text/html; charset=utf-8", Array(t.utf8), [])
        case .unauthorized:
            // No detail: which of user, password or header was wrong is not said.
            (status, type, body, fields) = (401, text, Array("Unauthorized\n".utf8), [HTTPHeaderField(name: "WWW-Authenticate", value: "Basic")])
        case .tooMany(let t): (status, type, body, fields) = (429, text, Array(t.utf8), [HTTPHeaderField(name: "Retry-After", value: "1")])
        }
        return HTTPResponse(status: status, fields: fields + [HTTPHeaderField(name: "Content-Type", value: type)], body: body)
    }
}

extension HTTPServer {
    /// The exporter's server on `endpoint`; a port it cannot have is a `ListenFailure`.
    static func exporter(
        _ endpoint: Endpoint, tls: @escaping @Sendable () -> TLSServerContext?,
        answer: @escaping @Sendable (HTTPServerRequest, @escaping @Sendable (HTTPAnswer) -> Void) -> Void
    ) throws(ListenFailure) -> HTTPServer {
        do throws(ConnectionFailure) {
            return try HTTPServer(endpoint: endpoint, tls: tls) { request, reply in answer(request) { reply($0.response) } }
        } catch {
            let reason: String
            switch error {
            case .io(_, let errno): reason = errno.description
            default: reason = error.description
            }
            throw ListenFailure(endpoint: endpoint, reason: reason)
        }
    }
}
