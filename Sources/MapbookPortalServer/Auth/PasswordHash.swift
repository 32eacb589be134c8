import Crypto
import FoundationEssentials
import MapbookPackage
import _CryptoExtras

/// Passwords as PBKDF2-HMAC-SHA256 hashes: `pbkdf2-sha256$<rounds>$<salt hex>$<hash hex>`.
///
/// 600,000 rounds (OWASP's figure for PBKDF2-SHA256, 2023) take about a fifth of a second
/// here, once per sign-in; the round count is stored with each hash so it can grow later.
public enum PasswordHash {
    public static let rounds = 600_000

    public static func make(_ password: String, rounds: Int = PasswordHash.rounds) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &generator) }
        let hash = try derive(password, salt: salt, rounds: rounds)
        return "pbkdf2-sha256$\(rounds)$\(SHA256Digest.hex(salt))$\(SHA256Digest.hex(hash))"
    }

    /// Whether `password` matches `stored`; false for anything malformed.
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds >= 1, rounds <= 10_000_000,
            let salt = bytes(hex: parts[2]), let expected = bytes(hex: parts[3]), !expected.isEmpty,
            let actual = try? derive(password, salt: salt, rounds: rounds, length: expected.count)
        else { return false }
        // Constant time: every byte is compared whatever the first difference.
        var difference: UInt8 = 0
        for (a, b) in zip(actual, expected) { difference |= a ^ b }
        return difference == 0 && actual.count == expected.count
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int, length: Int = 32) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: length, unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Array($0) }
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var i = 0
        while i < digits.count {
            guard let hi = value(digits[i]), let lo = value(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
