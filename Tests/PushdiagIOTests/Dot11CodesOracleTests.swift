import Foundation
import PushdiagCore
import TestSupport
import Testing

/// The 802.11 numbers pushdiag names, held to Wireshark's names for them (`tshark -G values`):
/// a row shifted by one, or a number the standard gave another meaning, fails here.
struct Dot11CodesOracleTests {
    /// tshark's value strings, by field and number (`tshark -G values` takes seconds: run once).
    static let tsharkValues: Result<[String: [Int: String]], any Error> = Result {
        let r = try run(TestPaths.which("tshark")!, ["-G", "values"])
        guard r.status == 0 else { throw TsharkFailed(stderr: r.stderr) }
        var out: [String: [Int: String]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            if f.count >= 4, f[0] == "V", let n = Int(f[2]) { out[String(f[1]), default: [:]][n] = String(f[3]) }
        }
        return out
    }

    struct TsharkFailed: Error { let stderr: String }

    static func tsharkValues(_ field: String) throws -> [Int: String] { try tsharkValues.get()[field] ?? [:] }

    /// The words of `text`, lower case, split at anything not a letter or digit.
    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
    }

    /// Ours names the same thing as theirs when at least half of our words of three letters or
    /// more stand in theirs (ours are short: "four-way handshake timeout" against "4-way
    /// handshake timeout").
    static func agree(_ ours: String, _ theirs: String) -> Bool {
        let mine = words(ours).filter { $0.count >= 3 }
        return !mine.isEmpty && 2 * mine.intersection(words(theirs)).count >= mine.count
    }

    /// How much of our name Wireshark's holds: the share of our words of three letters or more
    /// that stand in theirs.
    static func likeness(_ ours: String, _ theirs: String) -> Double {
        let mine = words(ours).filter { $0.count >= 3 }
        return mine.isEmpty ? 0 : Double(mine.intersection(words(theirs)).count) / Double(mine.count)
    }

    /// Each name agrees with Wireshark's for its number, and is no less like it than like any
    /// other number's: two rows swapped (6 and 7, 15 and 16, 49 and 50) fail.
    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func everyReasonNameIsWiresharksForItsNumber() throws {
        let theirs = try Self.tsharkValues("wlan.fixed.reason_code")
        #expect(theirs.count > 40, "tshark named \(theirs.count) reason codes")
        for (code, name) in Dot11Codes.reasons.sorted(by: { $0.key < $1.key }) {
            let t = theirs[Int(code)]
            #expect(t.map { Self.agree(name, $0) } == true, "reason \(code): ours \"\(name)\", Wireshark's \"\(t ?? "none")\"")
            let best = theirs.values.map { Self.likeness(name, $0) }.max() ?? 0
            #expect(t.map { Self.likeness(name, $0) >= best } == true, "reason \(code): ours \"\(name)\" is more like another number's name")
        }
        // The rule would catch a swap: 6's name given to 7 is more like 6's.
        let six = try #require(Dot11Codes.reasons[6])
        #expect(theirs.values.map { Self.likeness(six, $0) }.max() ?? 0 > Self.likeness(six, theirs[7] ?? ""))
    }

    @Test(.enabled(if: TestPaths.which("tshark") != nil, "tshark is not installed"))
    func everyAuthenticationAlgorithmIsWiresharksForItsNumber() throws {
        let theirs = try Self.tsharkValues("wlan.fixed.auth.alg")
        for a in AuthenticationAlgorithm.allCases {
            let t = theirs[Int(a.rawValue)]
            #expect(t.map { Self.agree(a.name, $0) } == true, "algorithm \(a.rawValue): ours \"\(a.name)\", Wireshark's \"\(t ?? "none")\"")
        }
        // The capture's table is the enum's.
        #expect(Dot11Codes.authAlgorithms.count == AuthenticationAlgorithm.allCases.count)
        #expect(Dot11Codes.authAlgorithms.allSatisfy { AuthenticationAlgorithm(rawValue: $0.key)?.name == $0.value })
    }
}
