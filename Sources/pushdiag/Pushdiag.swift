import ArgumentParser
import Foundation

@main
struct Pushdiag: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "pushdiag",
        abstract: "Diagnose Wi-Fi for Local Push Connectivity: utilisation, retransmissions, roaming, push-server reachability.",
        discussion: """
            Exit codes: 0 OK, 1 WARNING, 2 CRITICAL (a threshold exceeded), 3 UNKNOWN (could not \
            analyse, or bad usage). See pushdiag(1).
            """,
        version: version,
        subcommands: [
            SurveyCommand.self, ReportCommand.self, ConfigCommand.self, CaptureCommand.self, WiFiCommand.self, WatchCommand.self, RouteCommand.self,
            HeartbeatCommand.self, WalkCommand.self, JoinCommand.self, DoctorCommand.self, ExporterCommand.self, ResponderCommand.self,
        ]
    )

    /// Runs the command; usage errors exit 3 (UNKNOWN) so monitoring systems read them right.
    static func main() {
        BrokenPipe.ignore()
        if CompletionScript.handle(CommandLine.arguments) { return }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(3)
            }
            exit(withError: error)
        }
    }
}
