import ArgumentParser
import Foundation
import PushdiagRender

/// Writes a diagnostic line to stderr: "pushdiag: what failed: why".
func diagnose(_ line: String) {
    FileHandle.standardError.write(Data(("pushdiag: " + line + "\n").utf8))
}

/// Runs `body`; a failure pushdiag describes (configuration, settings, netlink, Wi-Fi, socket
/// and file errors all say what failed and why) becomes that one line on stderr and exit 3,
/// UNKNOWN for the Monitoring Plugins: the check could not run. Exit codes and usage errors
/// pass through.
/// With `json`, a JSON caller also gets an object on stdout instead of nothing:
/// `{"status": "unknown", "error": "…"}` (for JSON Lines, `"event": "error"` as well).
func unknownOnFailure<T>(json: JSONFailure? = nil, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        throw e
    } catch let e as CleanExit {
        throw e
    } catch {
        let line = String(describing: error)
        diagnose(line)
        if let json { print(json.object(line)) }
        throw ExitCode(3)
    }
}

/// How a command that failed before it had a report says so to a JSON reader.
enum JSONFailure {
    case object, line

    func object(_ error: String) -> String {
        struct Failure: Encodable {
            var event: String?
            var status = "unknown"
            var error: String
        }
        let f = Failure(event: self == .line ? "error" : nil, error: error)
        return (try? JSONRenderer.render(f, pretty: self == .object)) ?? "{\"status\": \"unknown\"}"
    }
}
