import Crypto
import MapbookSupport

/// An Ed25519 public key that checks package signatures, as written to `KEY.pub`: a PEM
/// `PUBLIC KEY` (X.509 SubjectPublicKeyInfo, RFC 8410), which `openssl pkey -pubin` reads too.
public struct PublicSigningKey: Sendable, Hashable {
    /// The 32 bytes of the key.
    public let raw: [UInt8]

    /// SubjectPublicKeyInfo for Ed25519 (RFC 8410 section 4) without its 32 key bytes.
    static let spkiPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    public init(raw: [UInt8]) throws(SignatureError) {
        guard raw.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else {
            throw SignatureError(kind: .invalidKey, path: "", message: "an Ed25519 public key is 32 bytes, not \(raw.count)")
        }
        self.raw = raw
    }

    /// The key's SubjectPublicKeyInfo in DER, as the signature entry records it.
    public var der: [UInt8] { Self.spkiPrefix + raw }

    /// Reads a key from DER SubjectPublicKeyInfo bytes.
    public init(der: [UInt8], path: String) throws(SignatureError) {
        guard der.count == 44, Array(der.prefix(12)) == Self.spkiPrefix else {
            throw SignatureError(kind: .invalidKey, path: path, message: "not an Ed25519 public key (SubjectPublicKeyInfo, RFC 8410)")
        }
        do {
            try self.init(raw: Array(der.suffix(32)))
        } catch {
            throw SignatureError(kind: .invalidKey, path: path, message: error.message)
        }
    }

    /// `SHA256:` and the unpadded base64 of the SHA-256 of the DER key, as `ssh-keygen -l`
    /// shows its keys: short enough to read out over a telephone line, and what
    /// `mapbook library trust list` and `validate` show.
    public var fingerprint: String {
        "SHA256:" + String(Base64.encode(Array(SHA256.hash(data: der))).filter { $0 != "=" })
    }

    /// The PEM text of the key.
    public var pem: String { PEM.encode(der, label: "PUBLIC KEY") }

    /// Reads `KEY.pub` text (PEM).
    public init(pem text: String, path: String) throws(SignatureError) {
        guard let der = PEM.decode(text, label: "PUBLIC KEY") else {
            throw SignatureError(kind: .invalidKey, path: path, message: "not a PEM public key: expected '-----BEGIN PUBLIC KEY-----' (made by 'mapbook keys create')")
        }
        try self.init(der: der, path: path)
    }

    /// Reads a public key file; a private key file gives its public half.
    public init(file path: String) throws(SignatureError) {
        let text = try PEM.readFile(path)
        if text.contains("-----BEGIN PRIVATE KEY-----") {
            self = try SigningKey(pem: text, path: path).publicKey
        } else {
            try self.init(pem: text, path: path)
        }
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// PEM armour (RFC 7468): base64 between `-----BEGIN label-----` and `-----END label-----`.
enum PEM {
    static func encode(_ der: [UInt8], label: String) -> String {
        let body = Base64.encode(der)
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }

    static func decode(_ text: String, label: String) -> [UInt8]? {
        let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
        guard let start = text.firstRange(of: begin), let stop = text[start.upperBound...].firstRange(of: end) else { return nil }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        return Base64.decode(String(body))
    }

    /// A key file's text; key files are small, so anything past 64 KiB is not one.
    static func readFile(_ path: String) throws(SignatureError) -> String {
        let bytes: [UInt8]
        do {
            let file = try RandomAccessFile(path: path)
            guard file.size <= 65_536 else {
                throw SignatureError(kind: .invalidKey, path: path, message: "is \(file.size) bytes: too large for a key file")
            }
            bytes = try file.read(at: 0, count: Int(file.size))
        } catch let error as SignatureError {
            throw error
        } catch let error as ArchiveError {
            if case .io(let code) = error.kind { throw SignatureError(kind: .io(errno: code), path: path, message: error.message) }
            throw SignatureError(kind: .invalidKey, path: path, message: error.message)
        } catch {
            throw SignatureError(kind: .invalidKey, path: path, message: "\(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SignatureError(kind: .invalidKey, path: path, message: "is not text: not a PEM key file")
        }
        return text
    }
}
