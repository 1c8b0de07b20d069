import ArgumentParser
import PushdiagCore
import PushdiagIO

/// The iPhone lens's settings: how far an iPhone's signal reading sits from this machine's, and
/// how often the walk asks for a scan of its candidates.
struct IPhoneLensOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Add this to the laptop's signals before iOS's roaming rules judge them: the iPhone's reading minus the laptop's, measured side by side (docs/FIELD-GUIDE.md).",
            valueName: "DB"))
    var signalOffset: String = "0"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Ask the kernel for a scan this often, of the channels the SSID's BSSs were seen on (every channel before any): fresher candidates for the lens, at the cost of a stall each (named own_scan). Needs CAP_NET_ADMIN; at least \(DurationText.format(WalkSettings.shortestScanEverySeconds)) (default: the system's own scans only).",
            valueName: "D"))
    var scanEvery: String?

    /// `--scan-every` in seconds; refused with --replay (a replay asks for the scans its walk asked for).
    func scanEverySeconds(replaying: Bool) throws -> Double? {
        guard let scanEvery else { return nil }
        if replaying { throw ValidationError("--scan-every cannot be combined with --replay: a replay asks for the scans its walk asked for") }
        return try parseDuration(scanEvery, option: "--scan-every", atLeast: WalkSettings.shortestScanEverySeconds, max: 86_400)
    }

    func lens() throws -> IPhoneLens {
        guard let db = Double(signalOffset), db.isFinite, (-60...60).contains(db) else {
            throw ValidationError("--signal-offset: '\(signalOffset)' is not a number of dB from -60 to 60")
        }
        return IPhoneLens(signalOffsetDb: db)
    }
}
