import Foundation
import PushdiagCore

/// Any report model → JSON with snake_case keys, sorted, and explicit nulls (`@Nullable`).
public enum JSONRenderer {
    /// One line per value, for JSON Lines output.
    public static func line<T: Encodable>(_ value: T) throws -> String { try render(value, pretty: false) }

    /// pushdiag's own writer (JSONWriter): the bytes of `foundation(_:pretty:)` in a fraction of
    /// its time. What the writer leaves to Foundation (no report has it) goes there.
    public static func render<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        do {
            return String(decoding: try JSONWriter(pretty: pretty).encode(value), as: UTF8.self)
        } catch is JSONWriter.Fallback {
            return try foundation(value, pretty: pretty)
        }
    }

    /// Foundation's JSONEncoder with the options the JSON contract is written in: the reference
    /// JSONWriter is tested against (JSONWriterTests).
    public static func foundation<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        // Sorted keys: the same report always prints the same bytes, whatever the platform's
        // dictionary order.
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
