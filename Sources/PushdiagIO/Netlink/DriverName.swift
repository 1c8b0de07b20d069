#if canImport(Glibc)
    import Glibc
#endif

/// The kernel driver behind a network interface, as sysfs names it.
public enum DriverName {
    /// The basename of /sys/class/net/IF/device/driver ("iwlwifi", "rtw_8822ce",
    /// "mac80211_hwsim"); nil for a virtual interface without a device, or an unknown name.
    public static func of(interface: String, sysfs: String = "/sys/class/net") -> String? {
        guard !interface.isEmpty, !interface.contains("/") else { return nil }
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("\(sysfs)/\(interface)/device/driver", &buf, buf.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.split(separator: "/").last.map(String.init)
    }
}
