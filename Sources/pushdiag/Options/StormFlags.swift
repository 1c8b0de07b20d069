import ArgumentParser
import PushdiagCore
import PushdiagIO

/// heartbeat's reconnect-storm mode (`--clients N --storm`), apart from the rest of its options.
struct StormFlags: ParsableArguments {
    @Flag(
        help:
            "Load mode: connect the --clients devices, hold them for --settle, drop every connection at once and time their reconnects on --reconnect-schedule (\(HeartbeatProtocol.names(HeartbeatProtocol.with(.storm))); --tls too)."
    )
    var storm = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --storm: each reconnect delay times a factor drawn from 1 ± RATIO (0 to 1; default \(NumberText.format(DeviceEngine.Settings(clients: 1).jitter))).",
            valueName: "RATIO"))
    var jitter: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --storm: how long the devices hold their connections before the drop (default \(DurationText.format(DeviceEngine.Settings(clients: 1).settleSeconds))).",
            valueName: "D"))
    var settle: String?

    func validate() throws {
        if let jitter, !(jitter.isFinite && (0...1).contains(jitter)) { throw ValidationError("--jitter: '\(jitter)' is not a ratio from 0 to 1") }
        if let settle { _ = try parseDuration(settle, option: "--settle") }
    }

    /// The storm's settings for `clients` devices with the first connects spread over `ramp`.
    func settings(clients: Int, rampSeconds: Double) throws -> DeviceEngine.Settings {
        var s = DeviceEngine.Settings(clients: clients, rampSeconds: rampSeconds)
        if let jitter { s.jitter = jitter }
        if let settle { s.settleSeconds = try parseDuration(settle, option: "--settle") }
        return s
    }
}
