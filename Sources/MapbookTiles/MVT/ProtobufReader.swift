import MapbookSupport

/// The protobuf wire types MVT can meet (https://protobuf.dev/programming-guides/encoding/).
/// Groups (3, 4) are deprecated and unused by MVT; 6 and 7 are undefined.
enum WireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case fixed32 = 5

    var name: String {
        switch self {
        case .varint: return "varint"
        case .fixed64: return "64-bit"
        case .lengthDelimited: return "length-delimited"
        case .fixed32: return "32-bit"
        }
    }
}

extension MVTError {
    /// Bytes that are not well-formed protobuf, at `offset` in the (inflated) tile. Carries no
    /// source or layer yet: the decoder places it.
    static func wire(_ offset: Int, _ message: String) -> MVTError {
        MVTError(kind: .invalidProtobuf, source: "", message: "not valid protobuf at byte \(offset): \(message)")
    }
}

/// A cursor over protobuf wire-format bytes: varints, keys, length-delimited fields, skipping.
///
/// Reads from memory it does not own: use it only inside the `withUnsafeBytes` scope that
/// produced its buffer. Every read is bounded by `end`, the end of the enclosing message, so a
/// length or count in the input can never make it read, or allocate, past what is there.
struct ProtobufReader {
    let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int
    let end: Int

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        self.offset = 0
        self.end = buffer.count
    }

    /// A reader over `range` of `buffer`, which must lie inside it.
    init(_ buffer: UnsafeRawBufferPointer, range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count)
        self.buffer = buffer
        self.offset = range.lowerBound
        self.end = range.upperBound
    }

    var isAtEnd: Bool { offset >= end }

    @inline(__always)
    mutating func readVarint() throws(MVTError) -> UInt64 {
        let start = offset
        do {
            return try Varint.read(buffer, at: &offset, end: end)
        } catch {
            switch error {
            case .truncated: throw MVTError.wire(start, "the data ends inside a varint")
            case .tooLong: throw MVTError.wire(start, "a varint is longer than 10 bytes")
            case .overflow: throw MVTError.wire(start, "a varint overflows 64 bits")
            }
        }
    }

    /// The next field's number and wire type.
    @inline(__always)
    mutating func readKey() throws(MVTError) -> (field: UInt32, wireType: WireType) {
        let start = offset
        let key = try readVarint()
        let field = key >> 3
        guard field >= 1, field <= 536_870_911 else {
            throw MVTError.wire(start, "field number \(field) is outside 1...536870911")
        }
        let raw = UInt8(key & 7)
        guard let wireType = WireType(rawValue: raw) else {
            let what = raw == 3 || raw == 4 ? "a deprecated group (wire type \(raw)), which MVT never uses" : "wire type \(raw), which protobuf does not define"
            throw MVTError.wire(start, "field \(field) is \(what)")
        }
        return (UInt32(field), wireType)
    }

    /// The byte range of a length-delimited field's contents, after its length.
    @inline(__always)
    mutating func readLengthDelimited() throws(MVTError) -> Range<Int> {
        let start = offset
        let length = try readVarint()
        guard length <= UInt64(end - offset) else {
            throw MVTError.wire(start, "a field claims \(length) bytes but only \(end - offset) remain")
        }
        let range = offset..<(offset + Int(length))
        offset = range.upperBound
        return range
    }

    mutating func readFixed32() throws(MVTError) -> UInt32 { try readFixed() }

    mutating func readFixed64() throws(MVTError) -> UInt64 { try readFixed() }

    /// A little-endian 32- or 64-bit field's value.
    private mutating func readFixed<T: FixedWidthInteger>() throws(MVTError) -> T {
        let size = MemoryLayout<T>.size
        guard end - offset >= size else {
            throw MVTError.wire(offset, "the data ends inside a \(T.bitWidth)-bit field")
        }
        let value = buffer.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += size
        return T(littleEndian: value)
    }

    /// Steps over a field's value: what a reader does with fields it does not know.
    mutating func skip(_ wireType: WireType) throws(MVTError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        }
    }

    /// A reader over a length-delimited field's contents.
    func reader(over range: Range<Int>) -> ProtobufReader {
        ProtobufReader(buffer, range: range)
    }

    /// The bytes of `range` as a string, and whether they were valid UTF-8 (invalid sequences
    /// become U+FFFD).
    func string(_ range: Range<Int>) -> (string: String, valid: Bool) {
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[range])
        if let valid = String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) {
            return (valid, true)
        }
        return (String(decoding: bytes, as: UTF8.self), false)
    }

    /// Decodes a packed repeated `uint32` field (MVT's tags and geometry) into `values`.
    ///
    /// Reserves exactly as many elements as the range holds varints (bytes without the
    /// continuation bit), so a corrupt length cannot make it over-allocate. Returns false when a
    /// value does not fit 32 bits; throws when the varints are malformed.
    func readPackedUInt32(_ range: Range<Int>, into values: inout [UInt32]) throws(MVTError) -> Bool {
        guard !range.isEmpty else { return true }
        let bytes = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var count = 0
        for i in range where bytes[i] < 0x80 { count += 1 }
        var failure: MVTError?
        var fits = true
        // Every varint ends in exactly one byte below 0x80, so there are at most `count`.
        let decoded = [UInt32](unsafeUninitializedCapacity: count) { out, initialized in
            var i = range.lowerBound, n = 0
            while i < range.upperBound && n < count {
                let byte = bytes[i]
                if byte < 0x80 {
                    out[n] = UInt32(byte)
                    n += 1
                    i += 1
                    continue
                }
                var inner = ProtobufReader(buffer, range: i..<range.upperBound)
                do throws(MVTError) {
                    let value = try inner.readVarint()
                    if value > UInt64(UInt32.max) { fits = false }
                    out[n] = UInt32(truncatingIfNeeded: value)
                    n += 1
                    i = inner.offset
                } catch {
                    failure = error
                    break
                }
            }
            if failure == nil && i < range.upperBound { failure = .wire(i, "the data ends inside a varint") }
            initialized = n
        }
        if let failure { throw failure }
        if values.isEmpty { values = decoded } else { values += decoded }
        return fits
    }
}

extension ProtobufReader {
    /// Zigzag decoding (`sint64`): 0, -1, 1, -2... from 0, 1, 2, 3...
    @inline(__always)
    static func zigzag(_ n: UInt64) -> Int64 {
        Int64(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
    }

    @inline(__always)
    static func zigzag(_ n: UInt32) -> Int32 {
        Int32(bitPattern: (n >> 1) ^ (0 &- (n & 1)))
    }
}

/// `bytes.withUnsafeBytes(body)` keeping `body`'s typed error, which `withUnsafeBytes`
/// (rethrows) widens to `any Error`.
func withRawBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(MVTError) -> R) throws(MVTError) -> R {
    var result: Result<R, MVTError>?
    bytes.withUnsafeBytes { raw in
        result = Result { () throws(MVTError) -> R in try body(raw) }
    }
    return try result!.get()
}
