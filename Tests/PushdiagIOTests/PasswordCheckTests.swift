import PushdiagIO
import Testing

/// libxcrypt's bcrypt through crypt_r, on published test vectors (OpenBSD's and John the
/// Ripper's "U*U" at cost 5) and the prefixes the exporter-toolkit's users write.
@Suite struct PasswordCheckTests {
    @Test func bcryptVectorsMatchAndNothingElseDoes() {
        let body = "05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        for prefix in ["$2a$", "$2b$", "$2y$"] {
            #expect(PasswordCheck.matches(password: "U*U", hash: prefix + body), "\(prefix)")
            #expect(!PasswordCheck.matches(password: "U*V", hash: prefix + body), "\(prefix)")
            #expect(!PasswordCheck.matches(password: "", hash: prefix + body))
            #expect(!PasswordCheck.matches(password: "U*U\u{0}", hash: prefix + body), "NUL cannot reach C")
        }
        #expect(PasswordCheck.matches(password: "", hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy"))
        // A hash one character off, and settings crypt_r refuses, never match.
        #expect(!PasswordCheck.matches(password: "U*U", hash: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeX"))
        #expect(!PasswordCheck.matches(password: "*0", hash: "garbage"))
        #expect(!PasswordCheck.matches(password: "x", hash: ""))
    }
}
