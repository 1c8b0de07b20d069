import NIOCore
import NIOHTTP1
import NIOPosix
import PushdiagCore
import PushdiagIO

/// The exporter could not have its port: the address is taken, not this machine's, or not
/// allowed. One line, exit 3, as a usage error.
public struct ListenFailure: Error, Equatable, CustomStringConvertible {
    public let endpoint: Endpoint
    /// strerror's text with the C name, or swift-nio's words when it gave no errno.
    public let reason: String
    public var description: String { "--listen: cannot listen on \(endpoint): \(reason)" }
}

/// A request as the routes see it: its head and the client's address (no port).
struct HTTPRequest: Sendable {
    var head: HTTPRequestHead
    var client: String
}

typealias HTTPAnswerer = @Sendable (HTTPRequest, @escaping @Sendable (HTTPAnswer) -> Void) -> Void

/// The exporter's HTTP side on swift-nio (HTTP/1.1 with keep-alive and pipelining from
/// NIOHTTP1; malformed requests are answered 400 by its error handler): one event-loop thread.
/// Each new connection is TLS when `tls` gives a context (`--web-config`; asked per connection,
/// so a reload takes effect for the next one). Routes go to `answer`, which may reply from any
/// thread.
final class HTTPServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: Channel

    /// Listens on `endpoint`; `answer(request, reply)`.
    init(endpoint: Endpoint, tls: @escaping @Sendable () -> TLSServerContext?, answer: @escaping HTTPAnswerer) throws(ListenFailure) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: .seconds(60)))
                    if let context = tls() { try channel.pipeline.syncOperations.addHandler(TLSHandler(session: try TLSMemorySession(context: context))) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(answer: answer))
                }
            }
        do {
            channel = try bootstrap.bind(host: endpoint.host, port: Int(endpoint.port)).wait()
        } catch {
            try? group.syncShutdownGracefully()
            let why = (error as? IOError).map { Errno($0.errnoCode).description } ?? "\(error)"
            throw ListenFailure(endpoint: endpoint, reason: why)
        }
        self.group = group
    }

    /// The port bound (the one asked, or the kernel's choice for port 0).
    var port: Int? { channel.localAddress?.port }

    func close() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// One connection: a request's head, then at its end the answer, written on the connection's
/// event loop whatever thread produced it.
final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let answer: HTTPAnswerer
    var head: HTTPRequestHead?

    init(answer: @escaping HTTPAnswerer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break  // no route takes a body
        case .end:
            guard let h = head else { return }
            head = nil
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            let handler = NIOLoopBound(self, eventLoop: loop)
            let client = context.remoteAddress?.ipAddress ?? ""
            answer(HTTPRequest(head: h, client: client)) { reply in
                loop.execute { handler.value.write(reply, for: h, context: bound.value) }
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func write(_ reply: HTTPAnswer, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        let (status, type, body): (Int, String, [UInt8])
        var headers = HTTPHeaders()
        switch reply {
        case .metrics(let b): (status, type, body) = (200, "text/plain; version=0.0.4; charset=utf-8", b)
        case .text(let s, let t): (status, type, body) = (s, "text/plain; charset=utf-8", Array(t.utf8))
        case .html(let t): (status, type, body) = (200, "text/html; charset=utf-8", Array(t.utf8))
        case .unauthorized:
            // No detail: which of user, password or header was wrong is not said.
            (status, type, body) = (401, "text/plain; charset=utf-8", Array("Unauthorized\n".utf8))
            headers.add(name: "WWW-Authenticate", value: "Basic")
        case .tooMany(let t):
            (status, type, body) = (429, "text/plain; charset=utf-8", Array(t.utf8))
            headers.add(name: "Retry-After", value: "1")
        }
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.count))
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: status), headers: headers))),
            promise: nil)
        if request.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
