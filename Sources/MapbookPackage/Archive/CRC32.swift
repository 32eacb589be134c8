import CZlib

/// A running CRC-32 (ISO-HDLC, as ZIP uses), computed by zlib.
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// Adds `bytes` to the checksum.
    ///
    /// The corresponding C function is `crc32_z`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = UInt32(crc32_z(uLong(value), base.assumingMemoryBound(to: Bytef.self), z_size_t(bytes.count)))
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
