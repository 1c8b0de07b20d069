import PushdiagCore
import Synchronization

/// A counter's series: only goes up. Safe from any thread.
public final class Counter: Sendable {
    let count = Atomic<UInt64>(0)

    public func increment() { count.add(1, ordering: .relaxed) }
}

/// A gauge's series: the value last set. Safe from any thread.
public final class Gauge: Sendable {
    let bits = Atomic<UInt64>(0.0.bitPattern)

    public func set(_ value: Double) { bits.store(value.bitPattern, ordering: .relaxed) }
    var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }
}

/// A histogram's series: how many values fell at or under each bucket's bound, their sum and
/// count. Safe from any thread.
public final class ValueHistogram: Sendable {
    struct State {
        var buckets: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }
    let bounds: [Double]
    let state: Mutex<State>

    init(bounds: [Double]) {
        self.bounds = bounds
        state = Mutex(State(buckets: Array(repeating: 0, count: bounds.count)))
    }

    public func record(_ value: Double) {
        state.withLock { s in
            for (i, bound) in bounds.enumerated() where value <= bound { s.buckets[i] += 1 }
            s.sum += value
            s.count += 1
        }
    }
}

/// The exporter's series by family and labels, and the text Prometheus scrapes from them
/// (the text exposition format, version 0.0.4). A series asked for again under the same labels
/// is the one already there; a family with no series left is not written at all.
///
/// What swift-prometheus's registry did here before, with the same text: `le` bounds and values
/// as Swift prints a Double ("0.01", "1.0"; `le` is part of a bucket's identity in Prometheus 2),
/// counters as whole numbers. Families are written in name order and series in the order they
/// were made (swift-prometheus's order followed its dictionaries' hashing, so it changed from one
/// run to the next).
public final class MetricRegistry: Sendable {
    enum Series {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(ValueHistogram)

        var counter: Counter? { if case .counter(let c) = self { c } else { nil } }
        var gauge: Gauge? { if case .gauge(let g) = self { g } else { nil } }
        var histogram: ValueHistogram? { if case .histogram(let h) = self { h } else { nil } }

        /// The same series: the very object.
        func isSame(_ other: Series) -> Bool {
            switch (self, other) {
            case (.counter(let a), .counter(let b)): a === b
            case (.gauge(let a), .gauge(let b)): a === b
            case (.histogram(let a), .histogram(let b)): a === b
            default: false
            }
        }
    }
    struct Family {
        var help: String
        var kind: MetricFamily.Kind
        /// The labels as written between the braces (`a="x",b="y"`), in the order made.
        var series: [(labels: String, series: Series)] = []
    }
    let families = Mutex<[String: Family]>([:])
    /// Held by `exposition` for its whole text and by `together` around a set of changes, so that
    /// a scrape sees all of them or none: a value and its `pushdiag_wifi_value_unknown` are never
    /// both there, nor both gone. (Taken outside `families` and any `MetricSet`'s lock, never inside.)
    let changes = Mutex<Void>(())

    public init() {}

    /// Runs `body`, whose changes a scrape sees all at once or not at all.
    public func together(_ body: () -> Void) {
        changes.withLock { _ in body() }
    }

    /// The series of `f` under `labels`, made on first use by `make`.
    func series(_ f: MetricFamily, _ labels: [(String, String)], make: () -> Series) -> Series {
        let text = labels.map { "\($0.0)=\"\(PrometheusText.label($0.1))\"" }.joined(separator: ",")
        return families.withLock { all in
            var family = all[f.name] ?? Family(help: f.help, kind: f.kind)
            if let found = family.series.first(where: { $0.labels == text }) { return found.series }
            let made = make()
            family.series.append((text, made))
            all[f.name] = family
            return made
        }
    }

    func counter(_ f: MetricFamily, _ labels: [(String, String)]) -> Counter {
        guard case .counter(let c) = series(f, labels, make: { .counter(Counter()) }) else { preconditionFailure("\(f.name) is not a counter") }
        return c
    }

    func gauge(_ f: MetricFamily, _ labels: [(String, String)]) -> Gauge {
        guard case .gauge(let g) = series(f, labels, make: { .gauge(Gauge()) }) else { preconditionFailure("\(f.name) is not a gauge") }
        return g
    }

    func histogram(_ f: MetricFamily, _ labels: [(String, String)]) -> ValueHistogram {
        guard case .histogram(let bounds) = f.kind,
            case .histogram(let h) = series(f, labels, make: { .histogram(ValueHistogram(bounds: bounds)) })
        else { preconditionFailure("\(f.name) is not a histogram") }
        return h
    }

    /// Removes one series (the very object the registry handed out).
    func remove(_ s: Series) {
        families.withLock { all in
            for (name, var family) in all {
                guard let i = family.series.firstIndex(where: { $0.series.isSame(s) }) else { continue }
                family.series.remove(at: i)
                all[name] = family.series.isEmpty ? nil : family
                return
            }
        }
    }

    /// Every family with a series: `# HELP`, `# TYPE`, then the samples.
    public func exposition() -> [UInt8] {
        changes.withLock { _ in text() }
    }

    func text() -> [UInt8] {
        let all = families.withLock { $0 }
        var out = ""
        for name in all.keys.sorted() {
            let family = all[name]!
            let type: String
            switch family.kind {
            case .counter: type = "counter"
            case .gauge: type = "gauge"
            case .histogram: type = "histogram"
            }
            out += "# HELP \(name) \(PrometheusText.help(family.help))\n# TYPE \(name) \(type)\n"
            for (labels, series) in family.series {
                let braced = labels.isEmpty ? "" : "{\(labels)}"
                switch series {
                case .counter(let c): out += "\(name)\(braced) \(c.count.load(ordering: .relaxed))\n"
                case .gauge(let g): out += "\(name)\(braced) \(PrometheusText.value(g.value))\n"
                case .histogram(let h):
                    let s = h.state.withLock { $0 }
                    let prefix = labels.isEmpty ? "" : labels + ","
                    for (bound, n) in zip(h.bounds, s.buckets) { out += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(n)\n" }
                    out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(s.count)\n"
                    out += "\(name)_sum\(braced) \(PrometheusText.value(s.sum))\n\(name)_count\(braced) \(s.count)\n"
                }
            }
        }
        return Array(out.utf8)
    }
}
