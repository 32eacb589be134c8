#if canImport(Glibc)
import Glibc
#endif

/// The toolkit's one JSON reader: it reads text held in memory (`JSONParser.parse`) and files
/// of any size in chunks, value by value, for the streaming GeoJSON importer; both build
/// `JSONValue`s under the same rules.
///
/// Rules, one for each case (RFC 8259; where the RFC leaves a choice, what GDAL and the
/// JavaScript readers that wrote most GeoJSON and web maps do):
/// - Text is UTF-8. One leading byte order mark is skipped (RFC 8259 section 8.1 allows it;
///   Windows tools write one). Bytes that are not UTF-8 read as U+FFFD.
/// - `\u` escapes: a UTF-16 pair makes one scalar; an unpaired surrogate reads as U+FFFD,
///   as json-c (GDAL) does and as invalid UTF-8 does, rather than refusing a whole web map
///   for one truncated emoji (section 8.2 leaves it open). Escapes outside section 7 are refused.
/// - Control characters U+0000 to U+001F inside a string are refused (section 7); DEL is not
///   a control character here.
/// - Numbers follow section 6 to the letter: no leading zeros (`01`), no `+1`, `.5`, `1.` or
///   `1e`. An integer literal that fits in 64 bits reads as `.integer` (so `-0` is the integer
///   0: an integer has no negative zero, and a column of integers stays one); a larger one,
///   or one with a fraction or exponent, as the nearest `Double`, as JavaScript and GDAL read
///   it. So a number beyond a `Double`'s range (`1e400`) reads as infinity, as it does in
///   JavaScript, Python and GDAL, rather than losing the whole document (section 6 lets a
///   reader limit the range; `JSONWriter` writes infinity as `null`, and the GeoJSON importer
///   refuses it as a coordinate); one too small (`1e-400`) reads as 0.
/// - Whitespace is space, tab, line feed and carriage return. After the document's value only
///   whitespace may follow.
/// - Arrays and objects nest at most `maximumDepth` (256) levels: real documents need fewer
///   than 32, and every level costs stack here and in the code that walks the value.
/// - A key repeated in one object keeps its first position and its last value, as most
///   readers do (section 4); the key is added to `duplicateKeys` so that a caller that must
///   report it (the GeoJSON importer) can.
///
/// Errors are `JSONError`s with a kind, the file and the line and column. Newlines only occur
/// in whitespace (a string cannot hold a raw one), so lines are counted as whitespace is
/// skipped and columns from the last line start, even when that lies in an earlier chunk.
///
/// Not copyable: a lexer over a file owns its buffer. Not Sendable: one reader.
package struct JSONLexer: ~Copyable {
    /// The deepest nesting of arrays and objects that is read.
    package static let maximumDepth = 256

    /// The file read in chunks, or nil when the whole text is in `base`.
    private let source: ChunkSource?
    private var base: UnsafePointer<UInt8>
    private var count: Int
    private var index = 0
    /// Bytes of the text before `base[0]`.
    private var consumed: Int64 = 0
    /// The file named in errors, if any.
    package let path: String?
    /// 1-based line of the next byte.
    package private(set) var line = 1
    /// Offset of the first byte of the current line.
    private var lineStart: Int64 = 0
    /// Scalars of the current line in chunks already let go.
    private var lineCarry = 0
    private var scratch: [UInt8] = []
    /// The containers opened with `beginObject` and `beginArray`: true until their first member.
    private var open: [Bool] = []
    /// Keys found twice in one object since the caller last emptied this list.
    package var duplicateKeys: [String] = []

    /// A lexer over text in memory, which must outlive it (use it inside `withUnsafeBufferPointer`).
    package init(borrowing text: UnsafeBufferPointer<UInt8>, path: String? = nil) {
        source = nil
        base = text.baseAddress ?? UnsafePointer(emptyText)
        count = text.count
        self.path = path
    }

    /// A lexer over the file at `path`, read `chunkSize` bytes at a time.
    package init(contentsOf path: String, chunkSize: Int = 1 << 20) throws(JSONError) {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw JSONError(kind: .unreadable, path: path, line: 1, column: 1, message: "cannot open: \(FileSystem.errorMessage())")
        }
        guard FileSystem.isRegularFile(descriptor) else {
            Glibc.close(descriptor)
            throw JSONError(kind: .unreadable, path: path, line: 1, column: 1, message: "cannot open: not a regular file")
        }
        let source = ChunkSource(descriptor: descriptor, length: FileSystem.size(of: descriptor), chunkSize: max(chunkSize, 1))
        self.source = source
        base = UnsafePointer(source.buffer)
        count = 0
        self.path = path
    }

    /// Goes back to the start of the text, forgetting open containers (`duplicateKeys` is the
    /// caller's to empty).
    package mutating func rewind() {
        index = 0
        if source != nil {
            count = 0
            consumed = 0
        }
        line = 1
        lineStart = 0
        lineCarry = 0
        open.removeAll()
    }

    // MARK: - Documents and streamed containers

    /// Reads a whole document: its value and nothing after it but whitespace.
    package mutating func document() throws(JSONError) -> JSONValue {
        try startDocument()
        let value = try self.value()
        try finishDocument()
        return value
    }

    /// Skips a leading byte order mark.
    package mutating func startDocument() throws(JSONError) {
        guard position == 0, try peekByte() == 0xEF else { return }
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard try nextByte() == expected else {
                throw error(.unexpectedCharacter, "the text starts with a broken byte order mark", at: 0)
            }
        }
        lineStart = 3
    }

    /// Throws unless only whitespace is left.
    package mutating func finishDocument() throws(JSONError) {
        try skipWhitespace()
        if let b = try peekByte() {
            throw error(.trailingContent, "unexpected '\(Self.printable(b))' after the JSON value")
        }
    }

    /// The next byte that is not whitespace, not consumed; nil at the end of the text.
    package mutating func peek() throws(JSONError) -> UInt8? {
        try skipWhitespace()
        return try peekByte()
    }

    /// Reads the next value whole, nested inside the containers opened so far.
    package mutating func value() throws(JSONError) -> JSONValue {
        try skipWhitespace()
        return try parseValue(depth: open.count)
    }

    /// Consumes the `{` of an object whose members the caller reads with `nextKey`.
    package mutating func beginObject() throws(JSONError) {
        try begin(UInt8(ascii: "{"), "an object")
    }

    /// Consumes the `[` of an array whose elements the caller reads with `nextElement`.
    package mutating func beginArray() throws(JSONError) {
        try begin(UInt8(ascii: "["), "an array")
    }

    private mutating func begin(_ bracket: UInt8, _ what: String) throws(JSONError) {
        guard let b = try peek() else { throw error(.unexpectedEnd, "the text ends where \(what) was expected") }
        guard b == bracket else { throw error(.unexpectedCharacter, "expected \(what), found '\(Self.printable(b))'") }
        guard open.count < Self.maximumDepth else { throw tooDeep() }
        index += 1
        open.append(true)
    }

    /// The next member name of the object opened last, with its `:` consumed, or nil when
    /// the object's `}` has been consumed. Read the member's value next.
    package mutating func nextKey() throws(JSONError) -> String? {
        guard try nextMember(closing: UInt8(ascii: "}"), in: "an object") else { return nil }
        guard let q = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside an object") }
        guard q == UInt8(ascii: "\"") else {
            throw error(.unexpectedCharacter, "expected a member name in double quotes, found '\(Self.printable(q))'")
        }
        let key = try parseString()
        try expectColon(after: key)
        return key
    }

    /// True when the array opened last has another element, to be read next; false when its
    /// `]` has been consumed.
    package mutating func nextElement() throws(JSONError) -> Bool {
        try nextMember(closing: UInt8(ascii: "]"), in: "an array")
    }

    private mutating func nextMember(closing: UInt8, in what: String) throws(JSONError) -> Bool {
        guard let first = open.last else { preconditionFailure("no container was begun") }
        guard let b = try peek() else { throw error(.unexpectedEnd, "the text ends inside \(what)") }
        if b == closing {
            index += 1
            open.removeLast()
            return false
        }
        if first {
            open[open.count - 1] = false
        } else {
            guard b == UInt8(ascii: ",") else {
                throw error(.unexpectedCharacter, "expected ',' or '\(Self.printable(closing))' in \(what), found '\(Self.printable(b))'")
            }
            index += 1
            try skipWhitespace()
        }
        return true
    }

    // MARK: - Values

    /// A value starting at the next byte (whitespace already skipped), inside `depth` containers.
    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard let b = try peekByte() else { throw error(.unexpectedEnd, "the text ends where a value was expected") }
        switch b {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error(.unexpectedCharacter, "expected a value, found '\(Self.printable(b))'")
        }
    }

    private func tooDeep() -> JSONError {
        error(.tooDeep, "arrays and objects nested deeper than \(Self.maximumDepth) levels")
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw tooDeep() }
        index += 1
        try skipWhitespace()
        if try peekByte() == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        var members: [(key: String, value: JSONValue)] = []
        while true {
            guard let q = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside an object") }
            guard q == UInt8(ascii: "\"") else {
                throw error(.unexpectedCharacter, "expected a member name in double quotes, found '\(Self.printable(q))'")
            }
            let key = try parseString()
            try expectColon(after: key)
            try skipWhitespace()
            members.append((key, try parseValue(depth: depth)))
            try skipWhitespace()
            guard let c = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside an object") }
            if c == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(parsed: members, duplicates: &duplicateKeys))
            }
            guard c == UInt8(ascii: ",") else {
                throw error(.unexpectedCharacter, "expected ',' or '}' in an object, found '\(Self.printable(c))'")
            }
            index += 1
            try skipWhitespace()
        }
    }

    private mutating func expectColon(after key: String) throws(JSONError) {
        try skipWhitespace()
        guard let c = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside an object") }
        guard c == UInt8(ascii: ":") else {
            throw error(.unexpectedCharacter, "expected ':' after the member name \"\(key)\", found '\(Self.printable(c))'")
        }
        index += 1
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw tooDeep() }
        index += 1
        try skipWhitespace()
        var items: [JSONValue] = []
        if try peekByte() == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            items.append(try parseValue(depth: depth))
            try skipWhitespace()
            guard let c = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside an array") }
            if c == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            guard c == UInt8(ascii: ",") else {
                throw error(.unexpectedCharacter, "expected ',' or ']' in an array, found '\(Self.printable(c))'")
            }
            index += 1
            try skipWhitespace()
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let start = position
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            guard try nextByte() == expected else { throw error(.invalidLiteral, "expected '\(word)'", at: start) }
        }
    }

    // MARK: - Strings

    /// A string starting at the `"` under the cursor.
    private mutating func parseString() throws(JSONError) -> String {
        let start = position
        index += 1
        // Fast path: no escape before the closing quote within this chunk, so the string is a
        // slice of the text.
        var i = index
        while i < count {
            let b = base[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(start: base + index, count: i - index), as: UTF8.self)
                index = i + 1
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            i += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base + index, count: i - index))
        index = i
        // A high surrogate waiting for its low half.
        var high: UInt32?
        while true {
            guard let b = try peekByte() else { throw error(.unexpectedEnd, "the text ends inside a string", at: start) }
            if b < 0x20 { throw error(.controlCharacterInString, "a control character (0x\(String(b, radix: 16))) inside a string") }
            index += 1
            if b != UInt8(ascii: "\\") {
                if high != nil {
                    Self.appendUTF8(0xFFFD, to: &scratch)
                    high = nil
                }
                if b == UInt8(ascii: "\"") { return String(decoding: scratch, as: UTF8.self) }
                scratch.append(b)
                continue
            }
            let escapeStart = position - 1
            guard let e = try nextByte() else { throw error(.unexpectedEnd, "the text ends inside a string", at: start) }
            if e != UInt8(ascii: "u"), high != nil {
                Self.appendUTF8(0xFFFD, to: &scratch)
                high = nil
            }
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                let unit = try hex4(escapeStart: escapeStart)
                if let h = high {
                    high = nil
                    if (0xDC00..<0xE000).contains(unit) {
                        Self.appendUTF8(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00), to: &scratch)
                        continue
                    }
                    Self.appendUTF8(0xFFFD, to: &scratch)
                }
                switch unit {
                case 0xD800..<0xDC00: high = unit
                case 0xDC00..<0xE000: Self.appendUTF8(0xFFFD, to: &scratch)
                default: Self.appendUTF8(unit, to: &scratch)
                }
            default:
                throw error(.invalidEscape, "an invalid escape '\\\(Self.printable(e))' in a string", at: escapeStart)
            }
        }
    }

    private mutating func hex4(escapeStart: Int64) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let h = try nextByte() else { throw error(.unexpectedEnd, "the text ends inside a string") }
            let digit: UInt32
            switch h {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(h - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(h - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(h - UInt8(ascii: "A") + 10)
            default: throw error(.invalidEscape, "a \\u escape needs four hex digits", at: escapeStart)
            }
            value = value << 4 | digit
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: - Numbers

    /// A number starting under the cursor: the longest run of number characters, checked
    /// against the grammar of RFC 8259 section 6.
    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = position
        var end = index
        while end < count, Self.isNumberByte(base[end]) { end += 1 }
        let scan: NumberScan
        if end < count || source == nil {
            scan = Self.number(UnsafeBufferPointer(start: base + index, count: end - index))
            index = end
        } else {
            // The number runs to the end of this chunk: gather it across chunks.
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + index, count: end - index))
            index = end
            while let b = try peekByte(), Self.isNumberByte(b) {
                scratch.append(b)
                index += 1
            }
            scan = scratch.withUnsafeBufferPointer { Self.number($0) }
        }
        switch scan {
        case .value(let value): return value
        case .fault(let offset, let kind, let message): throw error(kind, message, at: start + Int64(offset))
        }
    }

    private enum NumberScan {
        case value(JSONValue)
        /// What is wrong, and at which byte of the number.
        case fault(Int, JSONError.Kind, String)
    }

    private static func isNumberByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private static func number(_ t: UnsafeBufferPointer<UInt8>) -> NumberScan {
        let n = t.count
        var j = 0
        let negative = t[0] == UInt8(ascii: "-")
        if negative { j = 1 }
        guard j < n, isDigit(t[j]) else { return .fault(j, .invalidNumber, "a number needs a digit here") }
        // Integers accumulate negatively so that Int64.min fits.
        var integer: Int64 = 0
        var fits = true
        if t[j] == UInt8(ascii: "0") {
            j += 1
            if j < n, isDigit(t[j]) { return .fault(j, .invalidNumber, "a number cannot start with a leading zero") }
        } else {
            while j < n, isDigit(t[j]) {
                if fits {
                    let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, o2) = times10.subtractingReportingOverflow(Int64(t[j] - UInt8(ascii: "0")))
                    integer = next
                    fits = !o1 && !o2
                }
                j += 1
            }
        }
        var isInteger = true
        if j < n, t[j] == UInt8(ascii: ".") {
            isInteger = false
            j += 1
            guard j < n, isDigit(t[j]) else { return .fault(j, .invalidNumber, "a number needs a digit after '.'") }
            while j < n, isDigit(t[j]) { j += 1 }
        }
        if j < n, t[j] == UInt8(ascii: "e") || t[j] == UInt8(ascii: "E") {
            isInteger = false
            j += 1
            if j < n, t[j] == UInt8(ascii: "+") || t[j] == UInt8(ascii: "-") { j += 1 }
            guard j < n, isDigit(t[j]) else { return .fault(j, .invalidNumber, "a number needs a digit in its exponent") }
            while j < n, isDigit(t[j]) { j += 1 }
        }
        if j < n { return .fault(j, .invalidNumber, "unexpected '\(printable(t[j]))' in a number") }
        if isInteger, fits {
            if negative { return .value(.integer(integer)) }
            if integer != .min { return .value(.integer(-integer)) }
        }
        let text = String(decoding: t, as: UTF8.self)
        guard let d = Double(text) else { return .fault(0, .invalidNumber, "the number \(text) cannot be read") }
        return .value(.number(d))
    }

    // MARK: - Bytes

    /// Offset in the text of the next byte.
    private var position: Int64 { consumed + Int64(index) }

    @inline(__always) private mutating func peekByte() throws(JSONError) -> UInt8? {
        if index < count { return base[index] }
        return try refill() ? base[index] : nil
    }

    @inline(__always) private mutating func nextByte() throws(JSONError) -> UInt8? {
        guard let b = try peekByte() else { return nil }
        index += 1
        return b
    }

    @inline(__always) private mutating func skipWhitespace() throws(JSONError) {
        while true {
            while index < count {
                let b = base[index]
                if b == 0x20 || b == 0x09 || b == 0x0D {
                    index += 1
                } else if b == 0x0A {
                    index += 1
                    line += 1
                    lineStart = position
                } else {
                    return
                }
            }
            guard try refill() else { return }
        }
    }

    /// Reads the next chunk of a file; false at its end, keeping the last chunk for the
    /// columns of errors (and always false for text in memory).
    private mutating func refill() throws(JSONError) -> Bool {
        guard let source, index >= count, consumed + Int64(count) < source.length else { return false }
        // Carry the current line's scalars over, for columns.
        let lineFrom = lineStart - consumed
        lineCarry = (lineFrom >= 0 ? 0 : lineCarry) + Self.scalars(base, from: max(Int(clamping: lineFrom), 0), to: count)
        consumed += Int64(count)
        index = 0
        count = 0
        let read = source.read(at: consumed)
        guard read.error == 0 else {
            throw self.error(.unreadable, "cannot read: \(FileSystem.errorMessage(read.error))")
        }
        count = read.count
        return count > 0
    }

    private static func scalars(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var n = 0
        var i = from
        while i < to {
            if base[i] & 0xC0 != 0x80 { n += 1 }
            i += 1
        }
        return n
    }

    /// An error at `offset` in the text (the next byte by default).
    private func error(_ kind: JSONError.Kind, _ message: String, at offset: Int64? = nil) -> JSONError {
        // A fault in a chunk already let go is placed where the reader stands.
        var p = offset ?? position
        if p < consumed || p > consumed + Int64(count) { p = position }
        let inBuffer = Int(p - consumed)
        let lineFrom = lineStart - consumed
        let column = lineFrom >= 0
            ? Self.scalars(base, from: Int(lineFrom), to: max(inBuffer, Int(lineFrom))) + 1
            : lineCarry + Self.scalars(base, from: 0, to: inBuffer) + 1
        return JSONError(kind: kind, path: path, line: line, column: column, message: message)
    }

    static func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}

/// A file read into one buffer a chunk at a time.
private final class ChunkSource {
    let descriptor: Int32
    let length: Int64
    let buffer: UnsafeMutablePointer<UInt8>
    let capacity: Int

    init(descriptor: Int32, length: Int64, chunkSize: Int) {
        self.descriptor = descriptor
        self.length = length
        capacity = chunkSize
        buffer = .allocate(capacity: chunkSize)
    }

    deinit {
        buffer.deallocate()
        Glibc.close(descriptor)
    }

    /// Fills the buffer from `position` in the file: the number of bytes read (0 at the end)
    /// and 0, or the errno of a failure.
    func read(at position: Int64) -> (count: Int, error: Int32) {
        let n = Int(min(Int64(capacity), length - position))
        guard n > 0 else { return (0, 0) }
        return FileSystem.readAll(into: UnsafeMutableRawBufferPointer(start: buffer, count: n), from: descriptor, at: position)
    }
}

/// Where an empty text points, so that `base` is never nil.
nonisolated(unsafe) private let emptyText = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
