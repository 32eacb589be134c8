import Crypto

/// Proof Key for Code Exchange (RFC 7636) with the S256 method: the verifier stays here, the
/// portal sees its hash first and the verifier only when the code is traded for tokens, so a
/// code caught on the way is worth nothing.
struct PKCE: Sendable {
    /// 32 random bytes in base64url: 43 characters, the shortest RFC 7636 allows.
    let verifier: String
    /// base64url(SHA-256(verifier)).
    let challenge: String

    init() {
        self.init(verifier: Self.randomString(bytes: 32))
    }

    init(verifier: String) {
        self.verifier = verifier
        self.challenge = Self.base64URL(Array(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// Random bytes from the system's generator (getrandom on Linux), in base64url.
    static func randomString(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Base64 with the URL-safe alphabet and no padding (RFC 4648 section 5).
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
