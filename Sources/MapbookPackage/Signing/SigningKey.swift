#if canImport(Glibc)
import Glibc
#endif
import Crypto
import MapbookSupport

/// An Ed25519 private key that signs packages (`mapbook keys create`), kept in a PEM
/// `PRIVATE KEY` file (PKCS #8, RFC 8410) that only its owner can read: `openssl pkey` reads
/// it too.
public struct SigningKey: Sendable {
    let key: Curve25519.Signing.PrivateKey

    /// PKCS #8 for Ed25519 (RFC 8410 section 7) without its 32-byte seed.
    static let pkcs8Prefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]

    /// A new random key.
    public init() {
        key = Curve25519.Signing.PrivateKey()
    }

    /// A key from its 32-byte seed (how a portal keeps its own key in its settings).
    package init?(seed: [UInt8]) {
        guard seed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { return nil }
        self.key = key
    }

    package var seed: [UInt8] { Array(key.rawRepresentation) }

    public var publicKey: PublicSigningKey {
        // Always 32 bytes from Crypto itself.
        try! PublicSigningKey(raw: Array(key.publicKey.rawRepresentation))
    }

    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try key.signature(for: message))
    }

    /// Reads `PRIVATE KEY` PEM text.
    public init(pem text: String, path: String) throws(SignatureError) {
        guard let der = PEM.decode(text, label: "PRIVATE KEY"), der.count == 48, Array(der.prefix(16)) == Self.pkcs8Prefix,
            let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: Array(der.suffix(32)))
        else {
            throw SignatureError(kind: .invalidKey, path: path, message: "not a PEM Ed25519 private key: expected '-----BEGIN PRIVATE KEY-----' holding an Ed25519 key (made by 'mapbook keys create')")
        }
        self.key = key
    }

    /// Reads a private key file, refusing one that others can read or write, as `ssh` does:
    /// a key others could copy proves nothing about who signed.
    public init(file path: String) throws(SignatureError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw SignatureError(kind: .io(errno: code), path: path, message: "cannot read the key: \(FileSystem.errorMessage(code))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SignatureError(kind: .keyPermissions, path: path, message: "is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw SignatureError(
                kind: .keyPermissions, path: path,
                message: "the private key is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))): run 'chmod 600 \(path)', and make a new key if others may have copied it")
        }
        try self.init(pem: try PEM.readFile(path), path: path)
    }

    var pem: String { PEM.encode(Self.pkcs8Prefix + Array(key.rawRepresentation), label: "PRIVATE KEY") }

    /// Writes the private key to `path` (mode 0600) and its public key to `path.pub`, each
    /// atomically; refuses to replace either unless `replacing`.
    public func write(to path: String, replacing: Bool = false) throws(SignatureError) {
        for file in [path, path + ".pub"] where !replacing && FileSystem.kind(file) != nil {
            throw SignatureError(kind: .keyExists, path: file, message: "already exists: choose another path, or remove it first (a key replaced is a key lost)")
        }
        do {
            let secret = try AtomicFile(destination: path, permissions: 0o600)
            try secret.write(Array(pem.utf8))
            try secret.commit()
            try AtomicFile.write(Array(publicKey.pem.utf8), to: path + ".pub")
        } catch {
            if case .io(let code) = error.kind { throw SignatureError(kind: .io(errno: code), path: error.path, message: error.message) }
            throw SignatureError(kind: .io(errno: 0), path: error.path, message: error.message)
        }
    }
}
