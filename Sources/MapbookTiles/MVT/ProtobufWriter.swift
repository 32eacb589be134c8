import MapbookSupport

/// Appends protobuf wire-format fields to a byte array
/// (https://protobuf.dev/programming-guides/encoding/).
///
/// Nested messages are written in place: one byte is kept for the length, and only a message
/// of 128 bytes or more moves its contents to make room for a longer length.
struct ProtobufWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        Varint.append(value, to: &bytes)
    }

    @inline(__always)
    mutating func appendKey(_ field: UInt32, _ wireType: WireType) {
        appendVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    mutating func appendVarintField(_ field: UInt32, _ value: UInt64) {
        appendKey(field, .varint)
        appendVarint(value)
    }

    mutating func appendFixed32Field(_ field: UInt32, _ value: UInt32) {
        appendKey(field, .fixed32)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func appendFixed64Field(_ field: UInt32, _ value: UInt64) {
        appendKey(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func appendStringField(_ field: UInt32, _ string: String) {
        appendKey(field, .lengthDelimited)
        var s = string
        s.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `bytes` field.
    mutating func appendBytesField(_ field: UInt32, _ value: [UInt8]) {
        appendKey(field, .lengthDelimited)
        appendVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A packed repeated `uint32` field; nothing when `values` is empty, as protobuf does.
    mutating func appendPackedField(_ field: UInt32, _ values: [UInt32]) {
        guard !values.isEmpty else { return }
        appendKey(field, .lengthDelimited)
        var length = 0
        for v in values { length += Varint.size(UInt64(v)) }
        appendVarint(UInt64(length))
        for v in values { appendVarint(UInt64(v)) }
    }

    /// A length-delimited field whose contents `body` appends.
    mutating func appendMessageField(_ field: UInt32, _ body: (inout ProtobufWriter) -> Void) {
        appendKey(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        if length < 0x80 {
            bytes[lengthAt] = UInt8(length)
            return
        }
        var encoded: [UInt8] = []
        Varint.append(UInt64(length), to: &encoded)
        bytes.replaceSubrange(lengthAt..<lengthAt + 1, with: encoded)
    }


    /// Zigzag encoding (`sint64`): 0, -1, 1, -2... to 0, 1, 2, 3...
    @inline(__always)
    static func zigzag(_ n: Int64) -> UInt64 {
        UInt64(bitPattern: (n << 1) ^ (n >> 63))
    }

    @inline(__always)
    static func zigzag(_ n: Int32) -> UInt32 {
        UInt32(bitPattern: (n << 1) ^ (n >> 31))
    }
}
