import ArgumentParser
import Foundation

/// Writes a diagnostic line to stderr: "pushdiag: what failed: why".
func diagnose(_ line: String) {
    FileHandle.standardError.write(Data(("pushdiag: " + line + "\n").utf8))
}

/// Runs `body`; a failure pushdiag describes (configuration, settings, netlink, Wi-Fi, socket
/// and file errors all say what failed and why) becomes that one line on stderr and exit 3,
/// UNKNOWN for the Monitoring Plugins: the check could not run. Exit codes and usage errors
/// pass through.
func unknownOnFailure<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        throw e
    } catch let e as CleanExit {
        throw e
    } catch {
        diagnose(String(describing: error))
        throw ExitCode(3)
    }
}
