import ArgumentParser
import PushdiagCore

/// --tls and its companions, shared by heartbeat, survey and report.
struct TLSFlags: ParsableArguments {
    @Flag(help: "TLS to the push server (its certificate verified against the system's trust store).")
    var tls = false

    @Flag(help: "With --tls: do not verify the certificate (the report still shows it).")
    var insecure = false

    @Option(help: ArgumentHelp("With --tls: the expected base64 SHA-256 of the server key's SubjectPublicKeyInfo.", valueName: "PIN"))
    var pin: String?

    @Option(help: ArgumentHelp("With --tls: also trust the certificates in this PEM file.", valueName: "FILE"), completion: .file())
    var caFile: String?

    func validate() throws {
        if let why = TLSOptions.flagsProblem(tls: tls, insecure: insecure, pin: pin, caFile: caFile) { throw ValidationError(why) }
    }

    /// The flags as typed into survey's (and the exporter's) settings, for the core to resolve
    /// with the configuration file.
    func copy(into f: inout SurveyFlags) {
        f.tls = tls
        f.insecure = insecure
        f.pin = pin
        f.caFile = caFile
    }

    /// The TLS options for a server named `host`; nil without --tls.
    func options(serverName host: String) -> TLSOptions? {
        guard tls else { return nil }
        var t = TLSOptions(serverName: host)
        t.verify = !insecure
        t.pin = pin
        t.caFile = caFile
        return t
    }
}
