/// Little-endian integers read from and written to byte arrays (ZIP, Compact Cache bundles,
/// PMTiles).
extension Array where Element == UInt8 {
    @inline(__always) package func u16(_ at: Int) -> UInt16 {
        UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    @inline(__always) package func u32(_ at: Int) -> UInt32 {
        UInt32(self[at]) | UInt32(self[at + 1]) << 8 | UInt32(self[at + 2]) << 16 | UInt32(self[at + 3]) << 24
    }

    @inline(__always) package func u64(_ at: Int) -> UInt64 {
        UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` in little-endian byte order.
    @inline(__always) package mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var v = value.littleEndian
        Swift.withUnsafeBytes(of: &v) { append(contentsOf: $0) }
    }
}
