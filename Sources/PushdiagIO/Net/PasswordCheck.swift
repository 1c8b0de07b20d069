private import CCrypt
import PushdiagCore

#if canImport(Glibc)
    import Glibc
#endif

/// A password against its hash through libxcrypt's crypt_r(3) (bcrypt for the exporter's
/// basic_auth_users: `$2a$`, `$2b$`, `$2y$`), not a bcrypt of pushdiag's own.
public enum PasswordCheck {
    /// crypt_r of `password` with `hash` as its setting equals `hash`, compared in time that
    /// does not depend on where they differ. A password holding NUL (which C cannot pass) fails.
    public static func matches(password: String, hash: String) -> Bool {
        guard !password.utf8.contains(0), !hash.utf8.contains(0) else { return false }
        let data = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<crypt_data>.size, alignment: MemoryLayout<crypt_data>.alignment)
        defer {
            memset(data, 0, MemoryLayout<crypt_data>.size)  // no password left in freed memory
            data.deallocate()
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        let typed = data.bindMemory(to: crypt_data.self, capacity: 1)
        // libxcrypt answers a string starting with '*' (never a valid hash) when it fails.
        guard let out = crypt_r(password, hash, typed) else { return false }
        let got = Array(String(cString: out).utf8)
        let want = Array(hash.utf8)
        guard got.count == want.count, got.first != UInt8(ascii: "*") else { return false }
        var diff: UInt8 = 0
        for i in 0..<got.count { diff |= got[i] ^ want[i] }
        return diff == 0
    }
}
