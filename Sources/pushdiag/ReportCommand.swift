import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Run a survey for cron: append it to the history and write a Prometheus textfile.",
        discussion: """
            Takes the survey's options (a cron line needs no config file). --history appends \
            the survey to an SQLite database, in one transaction; --textfile writes the \
            Prometheus metrics for node_exporter's textfile collector, to a temporary file \
            renamed into place. Overlapping runs take turns (a lock beside each file); a run \
            killed at any point loses nothing already written. Prints the Nagios status line; \
            exit status as for survey.
            """
    )

    @OptionGroup var options: SurveyOptions

    @Option(help: ArgumentHelp("SQLite database to append the survey to.", valueName: "FILE"))
    var history: String?

    @Option(help: ArgumentHelp("Prometheus textfile to write (*.prom, for node_exporter's textfile collector).", valueName: "FILE"))
    var textfile: String?

    func validate() throws {
        if let textfile, !textfile.hasSuffix(".prom") { throw ValidationError("--textfile: node_exporter reads only files ending in .prom") }
    }

    func run() throws {
        let config = try options.settings().config
        let history = self.history ?? config.history, textfile = self.textfile ?? config.textfile
        guard history != nil || textfile != nil else {
            diagnose("report: give --history, --textfile or both (or set them in the [report] section of the configuration)")
            throw ExitCode(3)
        }
        let report = try options.survey()
        var failed = false
        do {
            if let history {
                let lock = try AtomicFile.lock(history)
                defer { close(lock) }
                try HistoryStore(path: history).append(report, json: try JSONRenderer.render(report, pretty: false))
            }
            if let textfile {
                let lock = try AtomicFile.lock(textfile)
                defer { close(lock) }
                try AtomicFile.write(SurveyPrometheusRenderer().render(report), to: textfile)
            }
        } catch let e as StoreError {
            diagnose(e.description)
            failed = true
        }
        print(SurveyNagiosRenderer().render(report), terminator: "")
        throw ExitCode(failed ? max(report.status, .unknown).exitCode : report.status.exitCode)
    }
}
