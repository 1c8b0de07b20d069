import NIOCore
import PushdiagCore
import PushdiagIO

/// TLS for one connection of the exporter's HTTP server, through pushdiag's OpenSSL
/// (`TLSMemorySession`): ciphertext from the socket becomes plaintext for the HTTP handlers
/// behind it, and their responses go out encrypted. A failed handshake (no client certificate
/// where one is required, one the client CA did not sign, not TLS at all) closes the connection.
final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let session: TLSMemorySession
    var closing = false

    init(session: TLSMemorySession) {
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { session.feed($0) }
        let plaintext: [UInt8]
        do throws(ConnectionFailure) {
            plaintext = try session.read()
        } catch {
            sendOutput(context, promise: nil)  // the alert, if OpenSSL made one
            context.close(promise: nil)
            return
        }
        sendOutput(context, promise: nil)
        if !plaintext.isEmpty {
            var out = context.channel.allocator.buffer(capacity: plaintext.count)
            out.writeBytes(plaintext)
            context.fireChannelRead(wrapInboundOut(out))
            context.fireChannelReadComplete()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        do throws(ConnectionFailure) {
            try buffer.withUnsafeReadableBytes { bytes throws(ConnectionFailure) in try session.write(bytes) }
        } catch {
            promise?.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
            return
        }
        sendOutput(context, promise: promise, flush: false)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if !closing, mode == .all {
            closing = true
            session.shutdown()
            sendOutput(context, promise: nil)
        }
        context.close(mode: mode, promise: promise)
    }

    /// Writes what the session has for the client (flushed unless told not to).
    func sendOutput(_ context: ChannelHandlerContext, promise: EventLoopPromise<Void>?, flush: Bool = true) {
        let bytes = session.takeOutput()
        guard !bytes.isEmpty else {
            promise?.succeed(())
            return
        }
        var out = context.channel.allocator.buffer(capacity: bytes.count)
        out.writeBytes(bytes)
        if flush {
            context.writeAndFlush(wrapOutboundOut(out), promise: promise)
        } else {
            context.write(wrapOutboundOut(out), promise: promise)
        }
    }
}
