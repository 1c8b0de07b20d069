import Foundation
import PushdiagCore
import TestSupport
import Testing

/// pushdiag's TOML parser against Python's tomllib (Tests/oracle/tomllib-tagged.py), an
/// independent TOML 1.0 implementation: hand-written documents and thousands of mutations of
/// them must be accepted by both with the same values, or refused by both.
struct TOMLOracleTests {
    /// Documents exercising the grammar, valid and invalid; the oracle decides which is which.
    static let documents: [String] = #"""
        # comment
        title = "TOML \"Example\" \u00E9 \U0001F600 \b\t\n\f\r\\"
        literal = 'C:\Users\nodejs\templates'
        empty = ""
        "quoted key" = 1
        'literal key' = 2
        "" = 3
        bare-key_1 = 4
        1234 = "digits as a key"
        ----
        multi = """
        Roses are red
        Violets are blue"""
        trim = """\
               The quick brown \
               fox.\
               """
        quotes = """Here are two quotation marks: "". Simple enough."""
        five = """Here are fifteen quotation marks: ""\"""\"""\"""\"""\"."""
        ends = """"This," she said, "is just a pointless statement.""""
        lit = '''
        The first newline is
        trimmed in raw strings.
           All other whitespace
           is preserved.
        '''
        lit4 = ''''That,' she said, 'is still pointless.''''
        ----
        int1 = +99
        int2 = 42
        int3 = 0
        int4 = -17
        int5 = 1_000
        int6 = 5_349_221
        hex1 = 0xDEADBEEF
        hex2 = 0xdead_beef
        oct1 = 0o01234567
        oct2 = 0o755
        bin1 = 0b11010110
        max = 9223372036854775807
        min = -9223372036854775808
        ----
        flt1 = +1.0
        flt2 = 3.1415
        flt3 = -0.01
        flt4 = 5e+22
        flt5 = 1e06
        flt6 = -2E-2
        flt7 = 6.626e-34
        flt8 = 224_617.445_991_228
        sf1 = inf
        sf2 = +inf
        sf3 = -inf
        sf4 = nan
        sf5 = +nan
        sf6 = -nan
        neg0 = -0.0
        big = 1e400
        tiny = 4.9e-324
        ----
        odt1 = 1979-05-27T07:32:00Z
        odt2 = 1979-05-27T00:32:00-07:00
        odt3 = 1979-05-27T00:32:00.999999-07:00
        odt4 = 1979-05-27 07:32:00Z
        odt5 = 1979-05-27t07:32:00.123456789z
        ldt1 = 1979-05-27T07:32:00
        ldt2 = 1979-05-27T00:32:00.999999
        ld1 = 1979-05-27
        lt1 = 07:32:00
        lt2 = 00:32:00.999999
        leap = 2024-02-29
        first = 0001-01-01
        ----
        integers = [ 1, 2, 3 ]
        colors = [ "red", "yellow", "green" ]
        nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]
        nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
        string_array = [ "all", 'strings', """are the same""", '''type''' ]
        numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]
        contributors = [
          "Foo Bar <foo@example.com>",
          { name = "Baz Qux", email = "bazqux@example.com", url = "https://example.com/bazqux" }
        ]
        integers2 = [
          1, 2, 3, # comment
        ]
        integers3 = [
          1,
          2, # this is ok
        ]
        empty = [ ]
        ----
        [table-1]
        key1 = "some string"
        key2 = 123

        [table-2]
        key1 = "another string"
        key2 = 456

        [dog."tater.man"]
        type.name = "pug"

        [a.b.c]            # this is best practice
        [ d.e.f ]          # same as [d.e.f]
        [ g .  h  . i ]    # same as [g.h.i]
        [ j . "ʞ" . 'l' ]  # same as [j."ʞ".'l']
        ----
        # [x] you
        # [x.y] don't
        # [x.y.z] need these
        [x.y.z.w] # for this to work
        [x] # defining a super-table afterward is ok
        ----
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true
        [fruit.apple.texture]  # you can add sub-tables
        smooth = true
        ----
        name = { first = "Tom", last = "Preston-Werner" }
        point = { x = 1, y = 2 }
        animal = { type.name = "pug" }
        nested = { a = { b = { c = [1, { d = 2 }] } } }
        emptyt = {}
        ----
        [[products]]
        name = "Hammer"
        sku = 738594937

        [[products]]  # empty table within the array

        [[products]]
        name = "Nail"
        sku = 284758393

        color = "gray"
        ----
        [[fruits]]
        name = "apple"

        [fruits.physical]  # subtable
        color = "red"
        shape = "round"

        [[fruits.varieties]]  # nested array of tables
        name = "red delicious"

        [[fruits.varieties]]
        name = "granny smith"

        [[fruits]]
        name = "banana"

        [[fruits.varieties]]
        name = "plantain"
        ----
        [a]
        b.c = 1
        [a.b.d]
        e = 2
        ----
        [a.b.c]
        z = 9
        [a]
        b.d = 1
        ----
        [[arr]]
        a.b = 1
        [[arr]]
        a.b = 2
        [arr.a]
        c = 3
        ----
        key = # INVALID
        ----
        first = "Tom" last = "Preston-Werner" # INVALID
        ----
        = "no key name"  # INVALID
        ----
        name = "Tom"
        name = "Pradyun"
        ----
        spelling = "favorite"
        "spelling" = "favourite"
        ----
        fruit.apple = 1
        fruit.apple.smooth = true
        ----
        [fruit]
        apple = "red"
        [fruit]
        orange = "orange"
        ----
        [fruit]
        apple = "red"
        [fruit.apple]
        texture = "smooth"
        ----
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true
        [fruit.apple]  # INVALID
        ----
        [product]
        type = { name = "Nail" }
        type.edible = false  # INVALID
        ----
        [product]
        type.name = "Nail"
        type = { edible = false }  # INVALID
        ----
        fruits = []
        [[fruits]] # Not allowed
        ----
        [[fruits]]
        name = "apple"
        [[fruits.varieties]]
        name = "red delicious"
        [fruits.varieties]
        name = "granny smith"
        ----
        [[fruits]]
        name = "apple"
        [fruits.physical]
        color = "red"
        [[fruits.physical]]
        color = "green"
        ----
        a = [1, 2, 3]
        [a.b]
        ----
        [a]
        [[a]]
        ----
        x = {a = 1, b = 2,}
        ----
        x = {a = 1
        , b = 2}
        ----
        x = { a = { b = 1 }, a.c = 2 }
        ----
        x = { a.b = 1, a.c = 2, d = [ { e = 1 } ] }
        ----
        s1 = "bad \x escape"
        ----
        s2 = "bad \u12 escape"
        ----
        s3 = "surrogate \uD800"
        ----
        s4 = "tab	inside is fine"
        s5 = 'tab	inside literal'
        ----
        s6 = "unterminated
        ----
        s7 = """unterminated
        ----
        s8 = '''a''''''
        ----
        s9 = """a"""""
        ----
        n1 = 01
        ----
        n2 = 1__000
        ----
        n3 = 1_
        ----
        n4 = _1
        ----
        n5 = 0x
        ----
        n6 = 0xG
        ----
        n7 = +0x10
        ----
        n8 = 1.
        ----
        n9 = .5
        ----
        n10 = 1e
        ----
        n11 = 3.14.15
        ----
        n12 = 9223372036854775808
        ----
        n13 = 0b102
        ----
        n14 = 1.0e_5
        ----
        d1 = 1979-02-29
        ----
        d2 = 1979-13-01
        ----
        d3 = 1979-05-27T24:00:00
        ----
        d4 = 1979-05-27T07:60:00
        ----
        d5 = 1979-05-27T07:32:60
        ----
        d6 = 0000-01-01
        ----
        d7 = 1979-05-27T07:32
        ----
        d8 = 1979-05-27T07:32:00+24:00
        ----
        d9 = 1979-05-27 x
        ----
        d10 = 07:32:00.
        ----
        b1 = True
        ----
        b2 = truefalse
        ----
        a1 = [1 2]
        ----
        a2 = [1,,2]
        ----
        a3 = [,]
        ----
        a4 = [
        ----
        [ a ] ]
        ----
        [[ a ] ]
        ----
        [ [a]]
        ----
        [a.]
        ----
        [.a]
        ----
        [a..b]
        ----
        []
        ----
        k = "v" # comment with control char 
        ----
        k = 1 # fine ☃
        ----
        k.l .m = 1
        ----
        "k"."l" = 2
        'k'.m = 3
        ----
        """k""" = 1
        ----
        k = """
        a \
          b \t
        c"""
        ----
        k = """a \ b"""
        """#.components(separatedBy: "\n----\n")

    @Test func agreesWithTomllibOnDocumentsAndMutations() throws {
        let python = "/usr/bin/python3"
        let oracle = TestPaths.root.appendingPathComponent("Tests/oracle/tomllib-tagged.py").path
        let probe = try run(python, ["-c", "import tomllib"])
        try #require(probe.status == 0, "Python 3.11's tomllib is the oracle (make test installs python3): \(probe.stderr)")

        var docs: [[UInt8]] = Self.documents.map { Array($0.utf8) }
        docs.append(Array(try Data(contentsOf: TestPaths.root.appendingPathComponent("pushdiag.toml.example"))))
        docs.append(Array(try Data(contentsOf: TestPaths.fixtures.appendingPathComponent("config-header-not-a-key.toml"))))
        docs += docs.map { Array(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8) }
        // PUSHDIAG_TOML_SEED and PUSHDIAG_TOML_MUTANTS (per document) run a longer, different comparison.
        let env = ProcessInfo.processInfo.environment
        var rng = SplitMix(seed: env["PUSHDIAG_TOML_SEED"].flatMap { UInt64($0) } ?? 0x70D1)
        let mutants = env["PUSHDIAG_TOML_MUTANTS"].flatMap { Int($0) } ?? 120
        let tokens: [[UInt8]] = [
            "\"\"\"", "'''", "[[", "]]", "[", "]", "{", "}", "\"", "'", "=", ".", ",", "#", "\n", "\r", "\r\n", "\t", " ",
            "\\", "\\u00e9", "\\U0001F600", "\\u12", "é", "_", "-", "+", "e", "E", ":", "T", "Z", "z", "0", "1", "9", "0x",
            "0o7", "0b1", "inf", "nan", "true", "1979-05-27", "T07:32:00", "07:32:00", ".5", "a.b", "\u{0}", "\u{7F}", "\u{FEFF}",
        ]
        .map { Array($0.utf8) }
        let bases = docs
        for base in bases where !base.isEmpty {
            for _ in 0..<mutants {
                var d = base
                for _ in 0..<(1 + rng.below(3)) {
                    switch rng.below(4) {
                    case 0: d[rng.below(d.count)] = rng.below(8) == 0 ? UInt8(rng.below(256)) : tokens[rng.below(tokens.count)][0]
                    case 1:
                        let a = rng.below(d.count)
                        d.removeSubrange(a..<min(d.count, a + 1 + rng.below(6)))
                    case 2:
                        let a = rng.below(d.count)
                        let n = 1 + rng.below(24)
                        d.insert(contentsOf: d[a..<min(d.count, a + n)], at: rng.below(d.count))
                    default: d.insert(contentsOf: tokens[rng.below(tokens.count)], at: rng.below(d.count + 1))
                    }
                    if d.isEmpty { d = base }
                }
                docs.append(d)
            }
        }

        let dir = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var blob = Data()
        for d in docs {
            withUnsafeBytes(of: UInt32(d.count).littleEndian) { blob.append(contentsOf: $0) }
            blob.append(contentsOf: d)
        }
        let input = dir.appendingPathComponent("docs.bin")
        try blob.write(to: input)
        let r = try run(python, [oracle, input.path], timeout: 300)
        try #require(r.status == 0, "\(r.stderr)")
        let verdicts = r.stdout.split(separator: "\n")
        try #require(verdicts.count == docs.count)

        var agreed = (valid: 0, invalid: 0, bigint: 0, tooDeep: 0)
        var disagreements = 0
        for (d, line) in zip(docs, verdicts) {
            let verdict = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let mine: Result<TOMLTable, TOMLError> = Result { () throws(TOMLError) in try TOML.parse(d) }
            let shown = String(decoding: d, as: UTF8.self).debugDescription
            switch (mine, verdict["ok"] as? String, verdict["bigint"] != nil) {
            case (.success(let t), let expected?, _):
                let got = Canonical.json(t)
                if got == expected {
                    agreed.valid += 1
                } else {
                    disagreements += 1
                    if disagreements <= 10 { Issue.record("values differ for \(shown):\n pushdiag \(got)\n tomllib  \(expected)") }
                }
            case (.failure(let e), _, true) where e.message.contains("64 bits"):
                agreed.bigint += 1
            case (.failure(let e), nil, false):
                _ = e
                agreed.invalid += 1
            case (.failure(let e), _, _) where e.message.contains("nested more than"):
                agreed.tooDeep += 1
            case (.failure(let e), _, _):
                disagreements += 1
                if disagreements <= 10 { Issue.record("pushdiag refuses what tomllib accepts: \(shown): \(e)") }
            case (.success, _, _):
                disagreements += 1
                if disagreements <= 10 { Issue.record("pushdiag accepts what tomllib refuses (\(verdict["error"] ?? "64-bit")): \(shown)") }
            }
        }
        #expect(disagreements == 0, "\(disagreements) of \(docs.count) documents")
        // Both sides of the grammar are exercised, not only one.
        #expect(agreed.valid > docs.count / 20 && agreed.invalid > docs.count / 4, "\(agreed) of \(docs.count)")
        print(
            "TOML oracle: \(docs.count) documents, \(agreed.valid) valid and equal, \(agreed.invalid) refused by both, \(agreed.bigint) beyond 64 bits, \(agreed.tooDeep) too deep"
        )
    }
}

/// The tagged, canonical JSON of Tests/oracle/tomllib-tagged.py.
enum Canonical {
    static func json(_ t: TOMLTable) -> String {
        "{"
            + t.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) { $0.value < $1.value } }
            .map { string($0) + ":" + json(t[$0]!) }.joined(separator: ",") + "}"
    }

    static func json(_ v: TOMLValue) -> String {
        func tagged(_ type: String, _ value: String) -> String { "{\"type\":\"\(type)\",\"value\":\(string(value))}" }
        switch v {
        case .table(let t): return json(t)
        case .array(let a): return "[" + a.map(json).joined(separator: ",") + "]"
        case .boolean(let b): return tagged("bool", b ? "true" : "false")
        case .integer(let i): return tagged("integer", String(i))
        case .float(let d): return tagged("float", d.isNaN ? "nan" : String(d.bitPattern))
        case .string(let s): return tagged("string", s)
        case .dateTime(let dt):
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            var date = ""
            var time = ""
            var offset = ""
            if let d = dt.date { date = String(repeating: "0", count: max(0, 4 - String(d.year).count)) + "\(d.year)-\(two(d.month))-\(two(d.day))" }
            if let t = dt.time {
                time = "\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
                let micro = t.nanosecond / 1000
                if micro > 0 {
                    let m = String(micro)
                    time += "." + String(repeating: "0", count: 6 - m.count) + m
                }
            }
            if let o = dt.offsetMinutes { offset = (o < 0 ? "-" : "+") + two(abs(o) / 60) + ":" + two(abs(o) % 60) }
            switch (dt.date != nil, dt.time != nil, dt.offsetMinutes != nil) {
            case (true, true, true): return tagged("datetime", date + "T" + time + offset)
            case (true, true, false): return tagged("datetime-local", date + "T" + time)
            case (true, false, _): return tagged("date-local", date)
            default: return tagged("time-local", time)
            }
        }
    }

    /// Python's json.dumps(ensure_ascii=True) of a string.
    static func string(_ s: String) -> String {
        var out = "\""
        for u in s.utf16 {
            switch u {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(UInt8(u)))
            default:
                let h = String(u, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            }
        }
        return out + "\""
    }
}

/// A small deterministic generator, so a failure reproduces.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}
