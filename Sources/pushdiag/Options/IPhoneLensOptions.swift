import ArgumentParser
import PushdiagCore

/// The iPhone lens's one setting: how far an iPhone's signal reading sits from this machine's.
struct IPhoneLensOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Add this to the laptop's signals before iOS's roaming rules judge them: the iPhone's reading minus the laptop's, measured side by side (docs/FIELD-GUIDE.md).",
            valueName: "DB"))
    var signalOffset: String = "0"

    func lens() throws -> IPhoneLens {
        guard let db = Double(signalOffset), db.isFinite, (-60...60).contains(db) else {
            throw ValidationError("--signal-offset: '\(signalOffset)' is not a number of dB from -60 to 60")
        }
        return IPhoneLens(signalOffsetDb: db)
    }
}
