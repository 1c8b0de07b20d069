import ArgumentParser
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender

/// `join`'s outputs besides standard output: the waterfall as a web page, the run appended to
/// report's SQLite history, a Prometheus textfile. Each is written whatever became of the others.
struct JoinOutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also write the waterfall as a web page: every cycle's steps on one scale, push-ready marked, the groups graded.", valueName: "FILE"),
        completion: .file())
    var html: String?

    @Option(
        help: ArgumentHelp("Append the run, its cycles and their steps to this SQLite history (the one report writes).", valueName: "FILE"),
        completion: .file())
    var history: String?

    @Option(
        help: ArgumentHelp("Write the run as Prometheus metrics (*.prom, for node_exporter's textfile collector).", valueName: "FILE"),
        completion: .file())
    var textfile: String?

    func validate() throws {
        if let html, html.isEmpty { throw ValidationError("--html needs a file name") }
        if let history, history.isEmpty { throw ValidationError("--history needs a file name") }
        if let why = textfile.flatMap(PrometheusText.textfileProblem) { throw ValidationError("--textfile: \(why)") }
    }

    /// Writes every output asked for (each file replaced atomically, the history in one
    /// transaction, each under its lock); false when one could not be written, after one line
    /// naming it on stderr.
    func write(_ report: JoinReport) throws -> Bool {
        var written = true
        func attempt(_ option: String, _ body: () throws(StoreError) -> Void) {
            do throws(StoreError) { try body() } catch {
                diagnose("\(option): \(error)")
                written = false
            }
        }
        if let html { attempt("--html") { () throws(StoreError) in try AtomicFile.write(JoinHTMLRenderer().render(report), to: html) } }
        if let history {
            let json = try JSONRenderer.render(report, pretty: false)
            attempt("--history") { () throws(StoreError) in
                let lock = try AtomicFile.lock(history)
                defer { withExtendedLifetime(lock) {} }
                try HistoryStore(path: history).append(join: report, json: json)
            }
        }
        if let textfile {
            attempt("--textfile") { () throws(StoreError) in
                let lock = try AtomicFile.lock(textfile)
                defer { withExtendedLifetime(lock) {} }
                try AtomicFile.write(JoinPrometheusRenderer().render(report), to: textfile)
            }
        }
        return written
    }
}
