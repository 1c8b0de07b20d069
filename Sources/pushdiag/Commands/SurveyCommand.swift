import ArgumentParser
import Dispatch
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

enum SurveyFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, prometheus, nagios
}

struct SurveyCommand: ParsableCommand {
    @OptionGroup var options: SurveyOptions

    @Option(help: "Output format: text, json, prometheus or nagios.")
    var format: SurveyFormat = .text

    func run() throws {
        let report = options.survey(try options.settings())
        let output: String
        switch format {
        case .text: output = SurveyTextRenderer().render(report)
        case .json: output = try JSONRenderer.render(report)
        case .nagios: output = SurveyNagiosRenderer().render(report)
        case .prometheus: output = SurveyPrometheusRenderer().render(report)
        }
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(report.status.exitCode)
    }

    static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract:
            "The go/no-go for local push on this Wi-Fi: utilisation, retransmissions, roaming support, heartbeats and routes to the push servers, in one verdict table.",
        discussion: """
            Runs its parts side by side within --duration: nl80211 sampling of the interface (or \
            --replay of a recording), a capture on --monitor or of --capture FILE, heartbeats and \
            the route to each --server. A check asked for that cannot run is UNKNOWN with the \
            reason; one not asked for is skipped. Exit status: the worst check, 0 OK, 1 WARNING, \
            2 CRITICAL, 3 UNKNOWN (also for bad usage).
            """
    )
}
