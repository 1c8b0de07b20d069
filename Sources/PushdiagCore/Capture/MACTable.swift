/// A bounded table of per-address state: MAC (as an integer) → index into a value array.
///
/// Open addressing with linear probing and a multiplicative (Fibonacci) hash: a MAC address is
/// already well spread, so the per-frame lookup needs no SipHash. Consecutive frames usually
/// come from the same address, so the last hit is cached. Beyond `capacity` distinct keys new
/// addresses are refused (the caller counts them), so a capture of random addresses cannot grow
/// memory without bound.
public struct MACTable<Value> {
    public private(set) var values: [Value] = []
    public private(set) var keys: [MACAddress] = []
    /// Slots hold index + 1; 0 is empty.
    private var slots: [Int32]
    private var mask: Int
    private var lastKey: UInt64 = .max
    private var lastIndex: Int = -1
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
        slots = [Int32](repeating: 0, count: 64)
        mask = 63
    }

    public var count: Int { values.count }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// The slot for `key`, inserting `make()` when new; nil when the table is full.
    @inline(__always)
    public mutating func slot(_ key: MACAddress, make: () -> Value) -> Int? {
        let k = key.rawValue
        if k == lastKey { return lastIndex }
        var s = home(k)
        while true {
            let v = Int(slots[s])
            if v == 0 { break }
            if keys[v - 1].rawValue == k {
                lastKey = k
                lastIndex = v - 1
                return v - 1
            }
            s = (s + 1) & mask
        }
        guard values.count < capacity else { return nil }
        let i = values.count
        values.append(make())
        keys.append(key)
        slots[s] = Int32(i + 1)
        lastKey = k
        lastIndex = i
        if values.count * 2 > slots.count { grow() }
        return i
    }

    @inline(__always)
    public func find(_ key: MACAddress) -> Int? {
        let k = key.rawValue
        if k == lastKey { return lastIndex }
        var s = home(k)
        while true {
            let v = Int(slots[s])
            if v == 0 { return nil }
            if keys[v - 1].rawValue == k { return v - 1 }
            s = (s + 1) & mask
        }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        mask = slots.count - 1
        for (i, key) in keys.enumerated() {
            var s = home(key.rawValue)
            while slots[s] != 0 { s = (s + 1) & mask }
            slots[s] = Int32(i + 1)
        }
    }

    @inline(__always)
    public subscript(i: Int) -> Value {
        get { values[i] }
        _modify { yield &values[i] }
    }
}
