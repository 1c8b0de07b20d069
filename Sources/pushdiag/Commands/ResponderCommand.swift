import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO

/// A protocol the responder serves (its --help and completions list these, not every client
/// protocol).
struct ServedProtocol: ExpressibleByArgument {
    let served: HeartbeatProtocol

    init?(argument: String) {
        guard let p = HeartbeatProtocol(rawValue: argument), p.modes.contains(.serve) else { return nil }
        served = p
    }

    static var allValueStrings: [String] { HeartbeatProtocol.with(.serve).map(\.rawValue) }
    var defaultValueDescription: String { served.rawValue }
}

struct ResponderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "responder",
        abstract:
            "A small reference push server (\(HeartbeatProtocol.names(HeartbeatProtocol.with(.serve)))) with fault injection, for end-to-end checks and tests.",
        discussion: """
            simplepush answers every request with an acknowledge and sends its own heartbeats to \
            clients that registered; websocket answers the upgrade and every ping with a pong; \
            line answers every line with --reply. Faults: --delay before \
            each answer, --drop a share of answers, --close-after N answers. Runs until SIGINT or \
            SIGTERM, then prints what it served.
            """
    )

    @Option(help: ArgumentHelp("Address and port to listen on.", valueName: "ADDR:PORT"))
    var listen: String

    @Option(name: .customLong("protocol"), help: "\(HeartbeatProtocol.names(HeartbeatProtocol.with(.serve))).")
    var proto = ServedProtocol(argument: HeartbeatProtocol.simplepush.rawValue)!

    @Option(parsing: .unconditional, help: ArgumentHelp("Delay before each answer.", valueName: "D"))
    var delay: String = "0s"

    @Option(parsing: .unconditional, help: ArgumentHelp("Share of answers to drop, 0 to 1.", valueName: "RATIO"))
    var drop: Double = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Close a connection after answering N requests.", valueName: "N"))
    var closeAfter: Int?

    // A protocol's own: optional, their defaults said in the help, so that one given for a
    // protocol that does not read it is refused.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "\(HeartbeatProtocol.names(HeartbeatProtocol.with([.serve, .register]))): interval of the server's heartbeats to registered clients (default \(DurationText.format(Self.defaults.heartbeatIntervalMs / 1000))).",
            valueName: "D"))
    var heartbeatInterval: String?

    @Option(help: "\(HeartbeatProtocol.reading(.byteOrder)): byte order of the length prefix (default \(Self.defaults.byteOrder.rawValue)).")
    var byteOrder: SimplePush.ByteOrder?

    @Option(help: ArgumentHelp("\(HeartbeatProtocol.reading(.reply)): the reply to every line (default \(Self.defaults.reply)).", valueName: "TEXT"))
    var reply: String?

    /// The responder's defaults, for the help.
    static let defaults = ResponderOptions(endpoint: Endpoint(host: "", port: 0), proto: .simplepush)

    @Option(parsing: .unconditional, help: ArgumentHelp("Seed of the generator that picks dropped answers.", valueName: "N"))
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Serve TLS with this certificate chain (PEM).", valueName: "FILE"), completion: .file())
    var tlsCert: String?

    @Option(help: ArgumentHelp("The TLS private key (PEM).", valueName: "FILE"), completion: .file())
    var tlsKey: String?

    func validate() throws {
        guard Endpoint(listen, defaultPort: proto.served.defaultPort(tls: false)) != nil else {
            throw ValidationError("--listen: '\(listen)' is not ADDR:PORT")
        }
        guard (0...1).contains(drop) else { throw ValidationError("--drop must be between 0 and 1") }
        if let closeAfter, closeAfter < 1 { throw ValidationError("--close-after must be at least 1") }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        _ = try parseDuration(delay, option: "--delay")
        if let heartbeatInterval {
            _ = try parseDuration(heartbeatInterval, option: "--heartbeat-interval")
            if !proto.served.modes.contains(.register) {
                throw ValidationError(
                    "--heartbeat-interval goes with --protocol \(HeartbeatProtocol.names(HeartbeatProtocol.with([.serve, .register]))), not with \(proto.served)"
                )
            }
        }
        for (setting, isGiven) in [(PushSetting.byteOrder, byteOrder != nil), (.reply, reply != nil)] where isGiven {
            if let why = proto.served.flagProblem(setting) { throw ValidationError(why) }
        }
    }

    func run() throws {
        StopSignal.install()
        DeviceEngine.raiseFileLimit()
        var o = ResponderOptions(endpoint: Endpoint(listen, defaultPort: proto.served.defaultPort(tls: false))!, proto: proto.served)
        o.delayMs = try parseDuration(delay, option: "--delay") * 1000
        o.dropRatio = drop
        o.closeAfter = closeAfter
        if let heartbeatInterval { o.heartbeatIntervalMs = max(10, try parseDuration(heartbeatInterval, option: "--heartbeat-interval") * 1000) }
        if let byteOrder { o.byteOrder = byteOrder }
        if let reply { o.reply = reply }
        o.seed = seed
        o.tlsCertificate = tlsCert
        o.tlsKey = tlsKey
        let server: Responder
        do { server = try Responder(o) } catch {
            diagnose(error.description)
            throw ExitCode(3)
        }
        FileHandle.standardError.write(Data("pushdiag: responder (\(proto.served)\(tlsCert != nil ? " over TLS" : "")) listening on \(o.endpoint)\n".utf8))
        server.run { StopSignal.isRequested }
        print("served \(NumberText.count(server.connections, "connection")), \(NumberText.count(server.requests, "request")), dropped \(server.dropped)")
        if tlsCert != nil { print("TLS sessions resumed: \(server.resumed) of \(NumberText.count(server.connections, "connection"))") }
    }
}
