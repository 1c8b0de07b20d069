/// Why a connection to a push server could not be made or kept: a value with a kind that callers
/// switch on (the finding it makes, the exit code), and a text that people read.
public enum ConnectionFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name does not resolve on this machine.
    case resolve(host: String, reason: String)
    /// `connect(2)` failed: refused, unreachable, no route.
    case connect(host: String, errno: Errno)
    /// The TLS handshake failed or its result is refused (verification, pin).
    case tls(String)
    /// The server broke its protocol: an oversized frame, a reply that does not match, a
    /// refused CONNACK or WebSocket upgrade.
    case protocolViolation(String)
    /// Nothing came within the deadline; `what` was being waited for.
    case timeout(String)
    /// The server closed the connection (or reset it).
    case closedByPeer(String)
    /// Another system call failed; `what` names it.
    case io(String, errno: Errno)
    /// A stop was asked (SIGINT, SIGTERM, the end of a walk) while `what` was under way.
    case stopped(String)

    public var description: String {
        switch self {
        case .resolve(let host, let reason): return "cannot resolve \(host): \(reason)"
        case .connect(let host, let e): return "cannot connect to \(host): \(e)"
        case .tls(let s): return s
        case .protocolViolation(let s): return s
        case .timeout(let what): return "\(what): timed out"
        case .closedByPeer(let s): return s
        case .io(let what, let e): return "\(what): \(e)"
        case .stopped(let what): return "\(what): stopped"
        }
    }

}
