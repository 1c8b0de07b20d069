import ArgumentParser
import PushdiagCore
import PushdiagIO
import PushdiagRender

extension HeartbeatCommand {
    /// `--clients N --storm`: the storm's measurement, the core's report and verdict, rendered.
    func runStorm(_ o: HeartbeatOptions, clients: Int) throws {
        let settings = try storm.settings(clients: clients, rampSeconds: try parseDuration(ramp, option: "--ramp"))
        let measured = StormRunner(o, settings: settings).run { StopSignal.isRequested }
        let report = StormReport.assemble(measured)
        if let e = report.error { diagnose(e) }
        let output = format == .json ? try JSONRenderer.render(report) : HeartbeatTextRenderer().render(report)
        print(output, terminator: output.hasSuffix("\n") ? "" : "\n")
        throw ExitCode(report.status.exitCode)
    }
}
