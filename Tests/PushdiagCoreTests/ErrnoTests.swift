import PushdiagCore
import Testing

struct ErrnoTests {
    /// The C library's text and the C name, as people read them inside a sentence.
    @Test func textAndCName() {
        #expect(Errno(111).description == "connection refused (ECONNREFUSED)")
        #expect(Errno(24).name == "EMFILE" && Errno(24).text == "too many open files")
        #expect(Errno.describe(113) == "no route to host (EHOSTUNREACH)")
        #expect(Errno(4) == .interrupted && Errno(11) == .wouldBlock)
        #expect(Errno(4095).name == "errno 4095", "a code without a name says its number")
    }
}
