/// Little-endian integers read from byte arrays (ZIP, Compact Cache bundles).
extension Array where Element == UInt8 {
    @inline(__always) func u16(_ at: Int) -> UInt16 {
        UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    @inline(__always) func u32(_ at: Int) -> UInt32 {
        UInt32(self[at]) | UInt32(self[at + 1]) << 8 | UInt32(self[at + 2]) << 16 | UInt32(self[at + 3]) << 24
    }

    @inline(__always) func u64(_ at: Int) -> UInt64 {
        UInt64(u32(at)) | UInt64(u32(at + 4)) << 32
    }
}
