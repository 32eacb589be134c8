/// Parses JSON text held in memory into `JSONValue`, keeping object key order.
///
/// The rules (numbers, escapes, nesting, duplicate keys) are `JSONLexer`'s, shared with the
/// streaming GeoJSON importer.
public enum JSONParser {
    /// The deepest nesting of arrays and objects that is read.
    public static var maximumDepth: Int { JSONLexer.maximumDepth }

    /// Parses a whole document; errors name `path` when one is given.
    public static func parse(_ bytes: some Collection<UInt8>, path: String? = nil) throws(JSONError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONError) in
            var lexer = JSONLexer(borrowing: buffer, path: path)
            return try lexer.document()
        }
    }

    public static func parse(_ text: String, path: String? = nil) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), path: path)
    }

    /// Parses the file at `path`, reading it `chunkSize` bytes at a time as the streaming
    /// importer does.
    package static func parse(contentsOf path: String, chunkSize: Int = 1 << 20) throws(JSONError) -> JSONValue {
        var lexer = try JSONLexer(contentsOf: path, chunkSize: chunkSize)
        return try lexer.document()
    }
}
