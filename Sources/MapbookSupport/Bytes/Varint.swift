/// Unsigned LEB128 varints as protobuf (MVT), PMTiles directories and the locator index write
/// them: seven bits a byte, the lowest first, the high bit set on every byte but the last
/// (https://protobuf.dev/programming-guides/encoding/#varints).
package enum Varint {
    /// Why the bytes at an offset are not a varint.
    package enum Failure: Error, Sendable, Equatable {
        /// The bytes end inside it.
        case truncated
        /// More than ten bytes.
        case tooLong
        /// A tenth byte above 1: more than 64 bits.
        case overflow
    }

    /// How many bytes `value` takes (1 to 10).
    @inlinable @inline(__always)
    package static func size(_ value: UInt64) -> Int {
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// Appends `value` to `bytes`.
    @inlinable @inline(__always)
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// The varint at `offset` in `bytes`, read no further than `end`; `offset` is moved past it.
    ///
    /// At most ten bytes are read, and the tenth may only hold bit 63, as protobuf requires.
    @inlinable @inline(__always)
    package static func read<Bytes: RandomAccessCollection>(
        _ bytes: Bytes, at offset: inout Int, end: Int
    ) throws(Failure) -> UInt64 where Bytes.Element == UInt8, Bytes.Index == Int {
        if offset < end {
            let first = bytes[offset]
            if first < 0x80 {
                offset += 1
                return UInt64(first)
            }
        }
        return try readMultibyte(bytes, at: &offset, end: end)
    }

    @inlinable
    static func readMultibyte<Bytes: RandomAccessCollection>(
        _ bytes: Bytes, at offset: inout Int, end: Int
    ) throws(Failure) -> UInt64 where Bytes.Element == UInt8, Bytes.Index == Int {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw .truncated }
            let byte = bytes[offset]
            offset += 1
            if shift == 63 {
                if byte & 0x80 != 0 { throw .tooLong }
                if byte > 1 { throw .overflow }
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }
}
