import FixtureKit
import Foundation
import PushdiagCore
import PushdiagIO
import PushdiagRender
import TestSupport
import Testing

/// JSONRenderer's own writer against Foundation's JSONEncoder with the contract's options
/// (`JSONRenderer.foundation`), byte for byte, pretty and on one line: the capture report of
/// every fixture and shared capture (and of all of them at once, as `capture A B ...` prints),
/// every stored report in fixtures/ read back into its type, every walk recording replayed, and
/// random values of every kind
/// Codable offers.
@Suite struct JSONWriterTests {
    static func same<T: Encodable>(_ value: T, _ what: String) throws {
        for pretty in [true, false] {
            let ours = try JSONRenderer.render(value, pretty: pretty)
            let foundation = try JSONRenderer.foundation(value, pretty: pretty)
            if ours != foundation {
                let at = zip(ours.utf8, foundation.utf8).prefix { $0 == $1 }.count
                let context = { (s: String) in String(decoding: Array(s.utf8).dropFirst(max(0, at - 80)).prefix(160), as: UTF8.self) }
                Issue.record("\(what) (pretty: \(pretty)): first difference at byte \(at):\nours: \(context(ours))\nFoundation: \(context(foundation))")
            }
        }
    }

    static func captures() -> [String] {
        var paths = ((try? FileManager.default.contentsOfDirectory(atPath: TestPaths.fixtures.path)) ?? [])
            .filter { $0.hasSuffix(".pcap") }.sorted().map { TestPaths.fixtures.appendingPathComponent($0).path }
        if TestPaths.hasSharedPcaps, let all = try? FileManager.default.subpathsOfDirectory(atPath: TestPaths.sharedPcaps.path) {
            paths += all.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") || $0.hasSuffix(".cap") }.sorted()
                .map { TestPaths.sharedPcaps.appendingPathComponent($0).path }
        }
        return paths
    }

    @Test func everyCapturesReport() throws {
        let paths = Self.captures()
        #expect(paths.count >= 20)
        var reports: [CaptureReport] = []
        var total = CaptureAnalyzer(options: .init())
        for path in paths {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let outcome = CaptureFileAnalysis.analyze(path: path, options: .init())
            let report = outcome.report(file: name)
            try Self.same(report, name)
            reports.append(report)
            total.merge(outcome.analyzer)
        }
        let combined = total.report(file: nil, truncated: false, error: nil)
        try Self.same(MultiCaptureReport(files: reports, total: combined, status: combined.status), "all captures at once")
    }

    /// The reports fixtures/ keeps (recorded in the lab or written for the tests), decoded as
    /// `report --history` and `--join-limits` read them, and the walks' recordings replayed.
    @Test func everyStoredReport() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        func read(_ name: String) throws -> Data { try Data(contentsOf: TestPaths.fixtures.appendingPathComponent(name)) }
        func check<T: Codable>(_ type: T.Type, _ name: String) throws {
            do {
                try Self.same(try decoder.decode(type, from: read(name)), name)
            } catch let e as DecodingError {
                Issue.record("\(name) as \(type): \(e)")
            }
        }
        // lab-walk.json predates fields the walk has gained: the walks' recordings replayed instead.
        let heartbeat = HeartbeatOptions(endpoint: Endpoint(host: "10.40.0.1", port: 3000), proto: .simplepush)
        for walk in StallReplayTests.walks {
            let t = try WalkRunner.replay(
                directory: TestPaths.fixtures.appendingPathComponent(walk).path, settings: WalkSettings(interface: "", heartbeat: heartbeat))
            try Self.same(WalkReport.assemble(t), "the walk \(walk), replayed")
        }
        try check(JoinReport.self, "lab-join.json")
        try check(JoinReport.self, "join-report.json")
        try check(DoctorReport.self, "lab-doctor.json")
        try check(RouteSetReport.self, "lab-route-vlan.json")
        try check(WiFiReport.self, "lab-wifi.json")
        try check(WiFiReport.self, "lab-nlmon-wifi.json")
        let lines = try String(decoding: read("lab-watch-roams.jsonl"), as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        // Its events, then the summary; each line is what watch printed, and prints again.
        for (n, line) in lines.enumerated() {
            let again: String
            if n == lines.count - 1 {
                let summary = try decoder.decode(WatchSummary.self, from: Data(line.utf8))
                try Self.same(summary, "lab-watch-roams.jsonl's summary")
                again = try JSONRenderer.line(summary)
            } else {
                let event = try decoder.decode(WatchEvent.self, from: Data(line.utf8))
                try Self.same(event, "lab-watch-roams.jsonl line \(n + 1)")
                again = try JSONRenderer.line(event)
            }
            #expect(again == String(line), "line \(n + 1)")
        }
    }

    // MARK: Random values

    enum Kind: String, Codable, CodingKeyRepresentable {
        case firstKind
        case secondKind = "second_kind"
        case urlThing = "URLThing"
    }

    struct Leaf: Codable {
        var plainName: String
        var someURLValue: Double
        var aFloat: Float
        var count: Int
        var small: Int8
        var unsigned: UInt64
        var wide: Int64
        var flag: Bool
        var maybe: Int?
        @Nullable var nullable: String?
        var kind: Kind
    }

    struct Tree: Codable {
        var leaves: [Leaf]
        var byName: [String: Leaf]
        var byNumber: [Int: String]
        var byKind: [Kind: Int]
        var nested: [[Double]]
        var empty: [Int]
        var emptyObject: [String: Int]
        var strings: [String]
        var child: [Tree]
        var optionalChild: [Tree?]
    }

    struct Draw {
        var random: SeededRandom

        mutating func int(_ n: Int) -> Int { Int(random.next() * Double(n)) }
        mutating func string() -> String {
            let pieces = [
                "a", "Z", "\"", "\\", "/", "\n", "\r", "\t", "\u{08}", "\u{0C}", "\u{01}", "\u{1F}", "\u{7F}", "é", "ß", "Ω", "日本", "😀", " ", "0", "_", "ÉCOLE",
                "aB", "ABc",
            ]
            return (0..<int(8)).map { _ in pieces[int(pieces.count)] }.joined()
        }
        mutating func double() -> Double {
            switch int(8) {
            case 0: return [Double.nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e16, 1e-7, 123456789.0][int(10)]
            case 1: return Double(bitPattern: UInt64(random.next() * Double(UInt64.max)))
            case 2: return Double(int(2_000_000) - 1_000_000)
            default: return (random.next() - 0.5) * pow(10, Double(int(30) - 15))
            }
        }
        mutating func leaf() -> Leaf {
            Leaf(
                plainName: string(), someURLValue: double(), aFloat: Float(double()), count: int(Int(Int32.max)) - Int(Int32.max / 2),
                small: Int8(int(256) - 128), unsigned: UInt64(random.next() * Double(UInt64.max)), wide: [Int64.min, Int64.max, 0, -1][int(4)],
                flag: int(2) == 0, maybe: int(2) == 0 ? nil : int(100), nullable: int(2) == 0 ? nil : string(),
                kind: [.firstKind, .secondKind, .urlThing][int(3)])
        }
        mutating func tree(depth: Int) -> Tree {
            var names: [String: Leaf] = [:]
            for _ in 0..<int(4) { names[string()] = leaf() }
            var numbers: [Int: String] = [:]
            for _ in 0..<int(4) { numbers[int(1000) - 500] = string() }
            var kinds: [Kind: Int] = [:]
            for _ in 0..<int(3) { kinds[[.firstKind, .secondKind, .urlThing][int(3)]] = int(10) }
            return Tree(
                leaves: (0..<int(4)).map { _ in leaf() }, byName: names, byNumber: numbers, byKind: kinds,
                nested: (0..<int(3)).map { _ in (0..<int(3)).map { _ in double() } }, empty: [], emptyObject: [:],
                strings: (0..<int(4)).map { _ in string() },
                child: depth > 0 ? (0..<int(3)).map { _ in tree(depth: depth - 1) } : [],
                optionalChild: depth > 0 ? [nil, tree(depth: depth - 1)] : [])
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Nested containers and super encoders, with keys to convert (one not ASCII, which goes to
    /// JSONEncoder whole).
    struct Containers: Encodable {
        var outerKey: String

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: AnyKey.self)
            var nested = c.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(outerKey))
            try nested.encode(1, forKey: AnyKey("innerURLKey"))
            var list = c.nestedUnkeyedContainer(forKey: AnyKey("aList"))
            try list.encode("x")
            var deeper = list.nestedContainer(keyedBy: AnyKey.self)
            try deeper.encode(true, forKey: AnyKey("deepKey"))
            try "super".encode(to: c.superEncoder())
            try 2.encode(to: c.superEncoder(forKey: AnyKey("superKey")))
        }
    }

    @Test func randomValuesOfEveryKind() throws {
        var draw = Draw(random: SeededRandom(seed: 0x5EED_1502))
        for n in 0..<200 {
            try Self.same(draw.tree(depth: 2), "random tree \(n)")
            try Self.same(draw.leaf(), "random leaf \(n)")
        }
        // Top-level values that are not objects, and the key conversions' corners.
        try Self.same([1.0, -0.0, .nan, 1e300], "an array of doubles")
        try Self.same("a \"string\"/\u{00}", "a string")
        try Self.same(Optional<Int>.none, "nil")
        try Self.same([[String: Int]](), "an empty array")
        try Self.same(["fooBar": ["ABTest": 1]], "a dictionary's keys stay as they are")
        try Self.same([Kind.urlThing: [Kind.firstKind: 2]], "CodingKeyRepresentable keys are converted")
        try Self.same(Containers(outerKey: "outerKey"), "nested containers and super encoders")
        try Self.same(Containers(outerKey: "clÉKey"), "a nested container's key that is not ASCII")
    }
}
