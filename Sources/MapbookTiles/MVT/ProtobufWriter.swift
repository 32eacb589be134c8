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
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
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

    /// A packed repeated `uint32` field; nothing when `values` is empty, as protobuf does.
    mutating func appendPackedField(_ field: UInt32, _ values: [UInt32]) {
        guard !values.isEmpty else { return }
        appendKey(field, .lengthDelimited)
        var length = 0
        for v in values { length += Self.varintSize(UInt64(v)) }
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
        let size = Self.varintSize(UInt64(length))
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: lengthAt + 1)
        var v = UInt64(length)
        for i in 0..<size {
            bytes[lengthAt + i] = UInt8(truncatingIfNeeded: v) | (i < size - 1 ? 0x80 : 0)
            v >>= 7
        }
    }

    /// How many bytes `value` takes as a varint (1 to 10).
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
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
