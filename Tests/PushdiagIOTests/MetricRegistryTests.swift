import Foundation
import PushdiagCore
import TestSupport
import Testing

@testable import PushdiagExporter

/// The exporter's own registry: the text a scrape gets, as promtool reads it, and what the
/// exporter relies on (one series per family and labels, a family gone with its last series).
@Suite struct MetricRegistryTests {
    static let hits = MetricFamily(name: "t_hits_total", help: "Hits \\ with a backslash.", kind: .counter)
    static let level = MetricFamily(name: "t_level", help: "A level.", kind: .gauge)
    static let wait = MetricFamily(name: "t_wait_seconds", help: "Waits.", kind: .histogram([0.01, 0.1, 1]))

    func text(_ r: MetricRegistry) -> String { String(decoding: r.exposition(), as: UTF8.self) }

    @Test func countersGaugesAndHistogramsAsTheFormatWantsThem() throws {
        let r = MetricRegistry()
        let m = MetricSet(registry: r, labels: [("target", "a\"b\\c\nd")])
        for _ in 0..<3 { m.counter(Self.hits).increment() }
        m.gauge(Self.level).set(0.25)
        let waits: [Double] = [0.005, 0.01, 0.5, 2, 7]
        for v in waits { m.histogram(Self.wait).record(v) }
        // Summed once, typed: the literals' sum inside the string below took the type checker 10 s.
        let sum = waits.reduce(0, +)
        let t = text(r)
        let label = #"target="a\"b\\c\nd""#
        // Families in name order, each HELP (backslash escaped) then TYPE then its samples.
        #expect(
            t == """
                # HELP t_hits_total Hits \\\\ with a backslash.
                # TYPE t_hits_total counter
                t_hits_total{\(label)} 3
                # HELP t_level A level.
                # TYPE t_level gauge
                t_level{\(label)} 0.25
                # HELP t_wait_seconds Waits.
                # TYPE t_wait_seconds histogram
                t_wait_seconds_bucket{\(label),le="0.01"} 2
                t_wait_seconds_bucket{\(label),le="0.1"} 2
                t_wait_seconds_bucket{\(label),le="1.0"} 3
                t_wait_seconds_bucket{\(label),le="+Inf"} 5
                t_wait_seconds_sum{\(label)} \(PrometheusText.value(sum))
                t_wait_seconds_count{\(label)} 5

                """, "\(t)")
        #expect(Exposition.value(t, "t_wait_seconds_bucket", ["le": "1.0"]) == 3)
        if let promtool = TestPaths.which("promtool") {
            let file = try TestPaths.temporaryDirectory().appendingPathComponent("m.prom")
            try t.write(to: file, atomically: true, encoding: .utf8)
            let check = try run("/bin/sh", ["-c", "\(promtool) check metrics < \(file.path)"])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func oneSeriesPerLabelsAndAFamilyGoesWithItsLastSeries() {
        let r = MetricRegistry()
        let a = MetricSet(registry: r, labels: [("interface", "wlan0")])
        let b = MetricSet(registry: r, labels: [("interface", "wlan1")])
        a.counter(Self.hits).increment()
        a.counter(Self.hits).increment()
        b.counter(Self.hits).increment()
        #expect(Exposition.value(text(r), "t_hits_total", ["interface": "wlan0"]) == 2)
        #expect(Exposition.value(text(r), "t_hits_total", ["interface": "wlan1"]) == 1)
        // A gauge that changes its source replaces its series; nil removes it.
        a.only(Self.level, [("source", "survey")], 1)
        a.only(Self.level, [("source", "bss_load")], 2, scope: [])
        #expect(Exposition.series(text(r), "t_level").map(\.labels) == [#"{interface="wlan0",source="bss_load"}"#])
        a.only(Self.level, [("source", "bss_load")], nil)
        #expect(!text(r).contains("t_level"), "no HELP or TYPE for a family without series")
        a.removeAll()
        #expect(Exposition.value(text(r), "t_hits_total", ["interface": "wlan0"]) == nil)
        #expect(Exposition.value(text(r), "t_hits_total", ["interface": "wlan1"]) == 1)
        b.removeAll()
        #expect(text(r).isEmpty)
    }

    @Test func valuesTheFormatSpellsItsOwnWay() {
        let r = MetricRegistry()
        let m = MetricSet(registry: r, labels: [])
        for (name, v) in [("nan", Double.nan), ("pos", .infinity), ("neg", -.infinity), ("big", 1_732_712_345.125)] {
            m.gauge(MetricFamily(name: "t_\(name)", help: "x", kind: .gauge)).set(v)
        }
        let t = text(r)
        for line in ["t_nan NaN", "t_pos +Inf", "t_neg -Inf", "t_big 1732712345.125"] { #expect(t.contains(line + "\n"), "\(t)") }
    }
}
