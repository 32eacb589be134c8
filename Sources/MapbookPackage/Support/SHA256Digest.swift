import Crypto

/// A running SHA-256 whose result is lowercase hex, as `.info` records it.
public struct SHA256Digest: Sendable {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    }

    public func finalizeHex() -> String {
        Self.hex(finalizeBytes())
    }

    public func finalizeBytes() -> [UInt8] {
        Array(hasher.finalize())
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hex(of bytes: [UInt8]) -> String {
        var digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalizeHex()
    }

    /// Whether `text` is a SHA-256 written as `finalizeHex` writes it: 64 lowercase hex digits.
    /// Names built from digests (attachments, patches, downloads) are checked by this before
    /// they touch a path.
    public static func isHex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
