/// The IEEE 802.3 CRC-32 that 802.11 uses as its FCS (reflected polynomial 0xEDB88320),
/// slicing-by-8 so checking every frame stays cheap.
public enum CRC32 {
    static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for i in 0..<256 {
            var c = UInt32(i)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[0][i] = c
        }
        for i in 0..<256 {
            for k in 1..<8 { t[k][i] = (t[k - 1][i] >> 8) ^ t[0][Int(t[k - 1][i] & 0xFF)] }
        }
        return t
    }()

    public static func checksum(_ b: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        var i = 0
        let n = b.count
        tables.withUnsafeBufferPointer { t in
            let t0 = t[0]
            let t1 = t[1]
            let t2 = t[2]
            let t3 = t[3]
            let t4 = t[4]
            let t5 = t[5]
            let t6 = t[6]
            let t7 = t[7]
            while n - i >= 8 {
                let lo = UInt32(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt32.self)) ^ crc
                let hi = UInt32(littleEndian: b.loadUnaligned(fromByteOffset: i + 4, as: UInt32.self))
                crc =
                    t7[Int(lo & 0xFF)] ^ t6[Int((lo >> 8) & 0xFF)] ^ t5[Int((lo >> 16) & 0xFF)]
                    ^ t4[Int(lo >> 24)] ^ t3[Int(hi & 0xFF)] ^ t2[Int((hi >> 8) & 0xFF)]
                    ^ t1[Int((hi >> 16) & 0xFF)] ^ t0[Int(hi >> 24)]
                i += 8
            }
            while i < n {
                crc = t0[Int((crc ^ UInt32(b[i])) & 0xFF)] ^ (crc >> 8)
                i += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
