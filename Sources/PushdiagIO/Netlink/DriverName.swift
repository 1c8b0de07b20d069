private import CNetlink

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel driver behind a network interface, as sysfs names it.
public enum DriverName {
    /// The basename of /sys/class/net/IF/device/driver ("iwlwifi", "rtw_8822ce",
    /// "mac80211_hwsim"); for a virtual interface without a device (virt_wifi), the driver
    /// ethtool names (`ethtool -i`); nil when neither says.
    public static func of(interface: String, sysfs: String = "/sys/class/net") -> String? {
        guard !interface.isEmpty, !interface.contains("/") else { return nil }
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("\(sysfs)/\(interface)/device/driver", &buf, buf.count - 1)
        guard n > 0 else { return sysfs == "/sys/class/net" ? ethtool(interface) : nil }
        let target = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.split(separator: "/").last.map(String.init)
    }

    /// The driver name of `ethtool -i IF`; nil when the interface does not answer or names none.
    static func ethtool(_ interface: String) -> String? {
        ethtoolInfo(interface).flatMap { $0.driver.isEmpty ? nil : $0.driver }
    }

    /// `ethtool -i IF` (SIOCETHTOOL, ETHTOOL_GDRVINFO): driver, version, firmware, bus; nil
    /// when the ioctl fails.
    static func ethtoolInfo(_ interface: String) -> (driver: String, version: String, firmware: String, bus: String)? {
        var d = [CChar](repeating: 0, count: 32)
        var v = d
        var f = d
        var b = d
        guard CNetlink_drvinfo(interface, &d, &v, &f, &b) == 0 else { return nil }
        func s(_ a: [CChar]) -> String { String(decoding: a.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return (s(d), s(v), s(f), s(b))
    }
}
