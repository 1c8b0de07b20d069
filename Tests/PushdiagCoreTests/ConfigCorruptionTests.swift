import Foundation
import PushdiagCore
import PushdiagIO
import TestSupport
import Testing

/// Damaged configuration files (the example, with bytes flipped, cut and repeated): a result or
/// one line with file and line, never a crash. (This test found toml++ aborting on a damaged
/// header; pushdiag has parsed TOML itself since. FuzzConfig drives the same path with libFuzzer.)
struct ConfigCorruptionTests {
    @Test func damagedFilesNeverCrash() throws {
        let example = [UInt8](try Data(contentsOf: TestPaths.root.appendingPathComponent("pushdiag.toml.example")))
        var state: UInt64 = 0xC0FFEE
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % max(n, 1)
        }
        var outcomes: [String: Int] = [:]
        for round in 0..<3000 {
            var b = example
            switch round % 3 {
            case 0: for _ in 0..<(1 + random(8)) { b[random(b.count)] = UInt8(truncatingIfNeeded: random(256)) }
            case 1: b = Array(b.prefix(random(b.count)))
            default:
                let a = random(b.count)
                let n = random(200)
                b.insert(contentsOf: b[a..<min(b.count, a + n)], at: random(b.count))
            }
            let text = String(decoding: b, as: UTF8.self)
            if let keep = ProcessInfo.processInfo.environment["PUSHDIAG_KEEP_CONFIG"] { try? Data(text.utf8).write(to: URL(fileURLWithPath: keep)) }
            do {
                _ = try ConfigParser.parse(text, file: "damaged.toml")
                outcomes["valid", default: 0] += 1
            } catch {
                #expect(error.description.hasPrefix("damaged.toml"), "\(error)")
                #expect(!error.description.contains("\n"), "one line")
                outcomes["error", default: 0] += 1
            }
        }
        #expect((outcomes["error"] ?? 0) > 100 && (outcomes["valid"] ?? 0) > 100, "\(outcomes)")
    }
}
