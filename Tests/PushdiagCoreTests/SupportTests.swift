import FixtureKit
import Foundation
import PushdiagCore
import Testing

struct SmallPartsTests {
    /// One spelling of the exposition format for /metrics, /probe and the textfiles: the
    /// exporter printed 1 as "1.0" and a ratio as 0.5489999999999999 where the textfiles printed
    /// "1" and 0.549 (and a Unix time's milliseconds rounded away), and the textfiles did not
    /// escape a HELP text.
    @Test func prometheusTextSpellsValuesLabelsAndHelpOneWay() {
        #expect(PrometheusText.value(1) == "1" && PrometheusText.value(54.9 / 100) == "0.549" && PrometheusText.value(-3) == "-3")
        #expect(PrometheusText.value(.nan) == "NaN" && PrometheusText.value(.infinity) == "+Inf" && PrometheusText.value(-.infinity) == "-Inf")
        #expect(PrometheusText.value(1e20) == "1e+20" && PrometheusText.value(0.000_012_5) == "1.25e-05")
        #expect(PrometheusText.value(1_732_712_345.125) == "1732712345.125" && PrometheusText.value(0.1 + 0.2) == "0.3")
        #expect(PrometheusText.label("a\"b\\c\nd") == #"a\"b\\c\nd"#)
        #expect(PrometheusText.help("x \\ \"y\"\nz") == #"x \\ "y"\nz"#)
    }

    /// Every channel of ChannelPlan falls in its band (IEEE 802.11-2020: 1 to 14 at 2.4 GHz, the
    /// 5 GHz channels from 5,000 to 5,900 MHz, the 6 GHz ones from 5,955 MHz), and the edges are
    /// where WiFiBand puts them.
    @Test func bandsFollowTheChannelPlan() {
        for mhz in 2400...7125 {
            guard let ch = ChannelPlan.channel(forFrequency: mhz) else { continue }
            let band: WiFiBand = mhz < 2500 ? .twoPointFourGHz : mhz < 5950 ? .fiveGHz : .sixGHz
            #expect(WiFiBand(frequencyMhz: mhz) == band, "channel \(ch), \(mhz) MHz")
        }
        #expect([2999, 3000, 4920, 5924, 5925].map { WiFiBand(frequencyMhz: $0) } == [.twoPointFourGHz, .fiveGHz, .fiveGHz, .fiveGHz, .sixGHz])
        #expect(WiFiBand(frequencyMhz: nil as Int?) == nil && "\(WiFiBand.twoPointFourGHz)" == "2.4 GHz")
    }

    /// A count and its noun: singular for one only (zero takes the plural, as in "0 roams").
    @Test func countsNameTheirNoun() {
        #expect([0, 1, 2].map { NumberText.count($0, "cycle") } == ["0 cycles", "1 cycle", "2 cycles"])
        #expect(NumberText.count(UInt64(1), "frame") == "1 frame" && NumberText.count(3, "query", plural: "queries") == "3 queries")
        #expect(NumberText.count(1, "query", plural: "queries") == "1 query")
    }

    @Test func crc32() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        // Slicing-by-8 equals the bitwise definition on lengths around the 8-byte blocks.
        for n in [0, 1, 7, 8, 9, 63, 100] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var crc: UInt32 = 0xFFFF_FFFF
            for b in bytes {
                crc ^= UInt32(b)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            #expect(CRC32.checksum(bytes) == crc ^ 0xFFFF_FFFF, "length \(n)")
        }
    }

    @Test func timestamps() {
        #expect(Timestamp.rfc3339(nanoseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(Timestamp.rfc3339(nanoseconds: 1_767_225_600_123_456_789) == "2026-01-01T00:00:00.123456Z")
        #expect(Timestamp.rfc3339(nanoseconds: 951_782_400 * 1_000_000_000) == "2000-02-29T00:00:00.000000Z")
        #expect(Timestamp.rfc3339(nanoseconds: -1000) == "1969-12-31T23:59:59.999999Z")
        // Beyond four-digit years (a certificate's seconds): written as they are, not cut.
        #expect(Timestamp.rfc3339(seconds: 253_402_300_800) == "10000-01-01T00:00:00.000000Z")
        #expect(Timestamp.rfc3339(seconds: 253_402_300_799, microseconds: 999_999) == "9999-12-31T23:59:59.999999Z")
        // Int64's ends: written, not trapped (a push log's "time_ns" is anyone's number).
        #expect(Timestamp.rfc3339(nanoseconds: .min) == "1677-09-21T00:12:43.145224Z")
        #expect(Timestamp.rfc3339(nanoseconds: .max) == "2262-04-11T23:47:16.854775Z")
        // Read back: nanoseconds hold 1677 to 2262; a stamp beyond is none (a stored run's
        // `started` of 9999 stopped `report html`, 2026-11-29), and the ends that fit are read.
        #expect(Timestamp.nanoseconds(rfc3339: "9999-12-31T23:59:59Z") == nil)
        #expect(Timestamp.nanoseconds(rfc3339: "2263-01-01T00:00:00Z") == nil)
        #expect(Timestamp.nanoseconds(rfc3339: "1600-01-01T00:00:00Z") == nil)
        #expect(Timestamp.nanoseconds(rfc3339: "2262-04-11T23:47:16.854775807Z") == .max)
        #expect(Timestamp.nanoseconds(rfc3339: "2262-04-11T23:47:16.854775808Z") == nil)
        #expect(Timestamp.nanoseconds(rfc3339: "1677-09-21T00:12:44Z") == -9_223_372_036_000_000_000)
    }

    /// An HTTP `Date` field (RFC 9110 §5.6.7): the RFC's own example, and Foundation's formatter
    /// agrees over 2,000 seconds from 1900 to 2200 (weekdays before the epoch included).
    @Test func httpDates() {
        #expect(Timestamp.httpDate(seconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(Timestamp.httpDate(seconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        // Four digits of year below 1000 (proleptic Gregorian, as Python's datetime has it).
        #expect(Timestamp.httpDate(seconds: -30_610_224_001) == "Tue, 31 Dec 0999 23:59:59 GMT")
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var state: UInt64 = 0x2545_F491
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let secs = Int64(state >> 11) % 9_467_280_000 - 2_208_988_800
            #expect(Timestamp.httpDate(seconds: secs) == f.string(from: Date(timeIntervalSince1970: Double(secs))), "\(secs)")
        }
    }

    /// Reading a timestamp back: the writer's own output round-trips (to the microsecond it
    /// shows), Foundation's ISO 8601 parser agrees, and anything but UTC RFC 3339 is refused.
    @Test func timestampsReadBack() {
        var state: UInt64 = 0x9E37_79B9
        let iso = ISO8601DateFormatter()
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let ns = Int64(state >> 4) % 4_000_000_000_000_000_000 - 1_000_000_000_000_000_000
            let text = Timestamp.rfc3339(nanoseconds: ns)
            let micro = ns >= 0 ? ns / 1000 * 1000 : (ns - 999) / 1000 * 1000
            #expect(Timestamp.nanoseconds(rfc3339: text) == micro, "\(text)")
            let whole = String(text.prefix(19)) + "Z"
            if let d = iso.date(from: whole), let back = Timestamp.nanoseconds(rfc3339: whole) {
                #expect(Int64(d.timeIntervalSince1970) * 1_000_000_000 == back, "\(whole)")
            }
        }
        #expect(Timestamp.nanoseconds(rfc3339: "2026-11-23T04:04:24Z") == 1_795_406_664_000_000_000)
        #expect(Timestamp.nanoseconds(rfc3339: "2026-11-23T04:04:24.5Z") == 1_795_406_664_500_000_000)
        for bad in [
            "", "2026-11-23", "2026-11-23T04:04:24+01:00", "2026-13-23T04:04:24Z", "2026-11-23T24:00:00Z", "2026-11-23T04:04:24.Z",
            "2026-11-23T04:04:24.1234567890Z", "2026-1a-23T04:04:24Z",
        ] {
            #expect(Timestamp.nanoseconds(rfc3339: bad) == nil, "\(bad)")
        }
    }

    @Test func macTableFindsEveryKeyAndStopsAtCapacity() {
        var t = MACTable<Int>(capacity: 5000)
        var state: UInt64 = 12345
        var keys: [MACAddress] = []
        for i in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let k = MACAddress(rawValue: state >> 16)
            guard !keys.contains(k) else { continue }
            keys.append(k)
            #expect(t.slot(k, make: { i }) != nil)
        }
        for (i, k) in keys.enumerated() { #expect(t.find(k) == i) }
        #expect(t.slot(MACAddress(rawValue: 0xFFFF_0000_0001), make: { 0 }) == nil || keys.count < 5000)
        #expect(t.find(MACAddress(rawValue: 0x1234)) == nil || keys.contains(MACAddress(rawValue: 0x1234)))
    }

    @Test func ssidText() {
        #expect(SSIDText.render(Array("ward-3".utf8)) == "ward-3")
        #expect(SSIDText.render([0x61, 0x00, 0xFF]) == "a\\x00\\xff")
        #expect(SSIDText.render(Array("病棟".utf8)) == "病棟")
    }

    /// Text from a recording or the kernel cannot move the terminal: its control characters are
    /// written \xNN, where it is first read (a netlink name, a place mark, a join log's header).
    @Test func textFromOutsideIsPrintable() throws {
        let red = "\u{1B}[31mward\u{7F}"
        #expect(PrintableText.escape(red) == "\\x1b[31mward\\x7f" && PrintableText.escape("病棟 3") == "病棟 3")
        #expect(WalkPlaceMark(timeNs: 0, name: red).name == PrintableText.escape(red))
        let name: [UInt8] = Array("wlan\u{1B}[2J".utf8) + [0, 0x41]
        #expect(name.withUnsafeBytes { $0.nlString } == "wlan\\x1b[2J")
        let header =
            #"{"header":{"interface":"w\u001b[31m","ifindex":1,"server":"s\u0007:1","mode":"link\u001b","resolves_name":false,"tls":false,"hello":false,"notes":[]}}"#
        let (h, _, _) = try JoinLog.decode(header + "\n", file: "j").get()
        #expect(h.interface == "w\\x1b[31m" && h.server == "s\\x07:1" && h.mode == "link\\x1b", "\(h)")
    }

    @Test func channelPlan() {
        #expect(ChannelPlan.channel(forFrequency: 2437) == 6)
        #expect(ChannelPlan.channel(forFrequency: 2484) == 14)
        #expect(ChannelPlan.channel(forFrequency: 5180) == 36)
        #expect(ChannelPlan.frequency(forChannel: 11) == 2462)
        #expect(ChannelPlan.frequency(forChannel: 149) == 5745)
    }
}
