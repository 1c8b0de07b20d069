/// A bounded table of per-address state: MAC (as an integer) → index into a value array.
/// Consecutive frames usually come from the same address, so the last hit is cached.
/// Beyond `capacity` distinct keys new addresses are refused (counted by the caller), so a
/// capture of random addresses cannot grow memory without bound.
public struct MACTable<Value> {
    public private(set) var values: [Value] = []
    public private(set) var keys: [MACAddress] = []
    private var index: [UInt64: Int32] = [:]
    private var lastKey: UInt64 = .max
    private var lastIndex: Int = -1
    public let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    public var count: Int { values.count }

    /// The slot for `key`, inserting `make()` when new; nil when the table is full.
    @inline(__always)
    public mutating func slot(_ key: MACAddress, make: () -> Value) -> Int? {
        if key.rawValue == lastKey { return lastIndex }
        if let i = index[key.rawValue] {
            lastKey = key.rawValue
            lastIndex = Int(i)
            return Int(i)
        }
        guard values.count < capacity else { return nil }
        let i = values.count
        values.append(make())
        keys.append(key)
        index[key.rawValue] = Int32(i)
        lastKey = key.rawValue
        lastIndex = i
        return i
    }

    @inline(__always)
    public func find(_ key: MACAddress) -> Int? {
        if key.rawValue == lastKey { return lastIndex }
        return index[key.rawValue].map(Int.init)
    }

    @inline(__always)
    public subscript(i: Int) -> Value {
        get { values[i] }
        _modify { yield &values[i] }
    }
}
