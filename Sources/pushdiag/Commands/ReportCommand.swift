import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

struct ReportCommand: ParsableCommand {
    /// How far back `report html --since` may reach: ten years of history.
    static let longestHistory: Double = 3650 * 86_400

    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Cron health reports: a survey into the history and a Prometheus textfile (the default), or the history as a web page (html).",
        subcommands: [Run.self, HTML.self],
        defaultSubcommand: Run.self
    )

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run a survey for cron: append it to the history and write a Prometheus textfile.",
            discussion: """
                Takes the survey's options (a cron line needs no config file). --history appends \
                the survey to an SQLite database, in one transaction; --textfile writes the \
                Prometheus metrics for node_exporter's textfile collector, to a temporary file \
                renamed into place. Overlapping runs take turns (a lock beside each file); a run \
                killed at any point loses nothing already written. Prints the Nagios status line; \
                exit status as for survey. `report html` draws the history as a web page.
                """
        )

        @OptionGroup var options: SurveyOptions

        @Option(help: ArgumentHelp("SQLite database to append the survey to.", valueName: "FILE"), completion: .file())
        var history: String?

        @Option(help: ArgumentHelp("Prometheus textfile to write (*.prom, for node_exporter's textfile collector).", valueName: "FILE"), completion: .file())
        var textfile: String?

        func validate() throws {
            if let why = textfile.flatMap(PrometheusText.textfileProblem) { throw ValidationError("--textfile: \(why)") }
        }

        func run() throws {
            let settings = try options.settings()
            let history = self.history ?? settings.history
            let textfile = self.textfile ?? settings.textfile
            guard history != nil || textfile != nil else {
                diagnose("report: give --history, --textfile or both (or set them in the [report] section of the configuration)")
                throw ExitCode(3)
            }
            let report = options.survey(settings)
            let failures = ReportOutputs.write(
                report, json: try JSONRenderer.render(report, pretty: false), prometheus: SurveyPrometheusRenderer().render(report),
                history: history, textfile: textfile)
            for f in failures { diagnose(f.description) }
            print(SurveyNagiosRenderer().render(report, failures: failures.map(\.description)), terminator: "")
            throw ExitCode(failures.isEmpty ? report.status.exitCode : max(report.status, .unknown).exitCode)
        }
    }

    struct HTML: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "html",
            abstract: "An HTML page from the history: utilisation and retransmissions against Apple's limits, heartbeat round trips, roams, the worst hours."
        )

        @Option(help: ArgumentHelp("The history database (default: the configuration's [report] history).", valueName: "FILE"), completion: .file())
        var history: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("How far back (7d, 24h).", valueName: "D"))
        var since: String = "7d"

        @Option(help: ArgumentHelp("Where to write the page.", valueName: "FILE"), completion: .file())
        var output: String

        @Option(help: ArgumentHelp("Configuration file, for the history's path.", valueName: "FILE"), completion: .file())
        var config: String?

        func validate() throws { _ = try parseDuration(since, option: "--since", max: ReportCommand.longestHistory) }

        func run() throws {
            var path = history
            // As every command reads it: a --config given must load; the default file, when it
            // exists, only where it is needed (for the history's path).
            if path == nil || config != nil {
                do throws(ConfigError) {
                    let loaded = try ConfigLoader.load(explicit: config).0
                    if path == nil { path = loaded.history }
                } catch {
                    diagnose(error.description)
                    throw ExitCode(3)
                }
            }
            guard let path else {
                diagnose("report html: give --history (or set [report] history in the configuration)")
                throw ExitCode(3)
            }
            let to = Date()
            let from = to.addingTimeInterval(-(try parseDuration(since, option: "--since", max: ReportCommand.longestHistory)))
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let since = Timestamp.rfc3339(nanoseconds: Int64(from.timeIntervalSince1970 * 1e9))
            let rows: [(started: String, report: String)]
            do {
                rows = try HistoryStore(path: path, create: false).runs(since: since)
            } catch {
                diagnose(error.description)
                throw ExitCode(3)
            }
            var points: [HistoryHTMLRenderer.Point] = []
            var unread = 0
            for row in rows {
                // The stamps are Timestamp's own (with or without a fraction), read by it.
                guard let ns = Timestamp.nanoseconds(rfc3339: row.started), let r = try? decoder.decode(SurveyReport.self, from: Data(row.report.utf8)) else {
                    unread += 1
                    continue
                }
                points.append(HistoryHTMLRenderer.Point(time: Date(timeIntervalSince1970: Double(ns) / 1e9), report: r))
            }
            let html = HistoryHTMLRenderer().render(points, from: from, to: to, title: "pushdiag: the last \(self.since)")
            do {
                try AtomicFile.write(html, to: output)
            } catch {
                diagnose(error.description)
                throw ExitCode(3)
            }
            let left = unread > 0 ? " (\(NumberText.count(unread, "stored run")) not readable, left out)" : ""
            print("\(output): \(NumberText.count(points.count, "survey"))" + left)
        }
    }

}
