import MapbookSupport

/// A package's signature entry, `<Name>.info.sig` (docs/FORMAT.md "Signature"): Ed25519
/// signatures of the exact bytes of the manifest `<Name>.info`, which records the size and
/// SHA-256 of every other entry, so one signature covers the whole package.
///
/// It may hold several signatures: while a publisher moves to a new key, packages carry the
/// old key's signature and the new one's, and a device that trusts either accepts them.
public struct PackageSignature: Sendable {
    public struct Signer: Sendable {
        public var key: PublicSigningKey
        public var signature: [UInt8]
    }

    /// The manifest entry signed.
    public var manifest: String
    /// Its SHA-256, lowercase hex: says which manifest was signed when it is not this one.
    public var manifestSHA256: String
    public var signers: [Signer]

    public static let format = "mapbook-signature"
    public static let version = 1
    public static let algorithm = "Ed25519"
    /// Every entry at the root whose name ends so is a signature entry.
    public static let entrySuffix = ".info.sig"
    /// A signature entry is small; a larger one is not read.
    static let maximumSize: Int64 = 1 << 20

    public static func entryName(manifest: String) -> String { manifest + ".sig" }

    /// Whether `entry` is a signature entry: at the root, named `*.info.sig`.
    public static func isSignatureEntry(_ name: String) -> Bool {
        name.hasSuffix(entrySuffix) && !name.contains("/")
    }

    /// Signs the manifest's bytes with every key, in order.
    public init(manifest: String, manifestBytes: [UInt8], keys: [SigningKey]) throws {
        self.manifest = manifest
        self.manifestSHA256 = SHA256Digest.hex(of: manifestBytes)
        self.signers = try keys.map { Signer(key: $0.publicKey, signature: try $0.sign(manifestBytes)) }
    }

    /// The entry's bytes.
    public var bytes: [UInt8] {
        let list: [JSONValue] = signers.map {
            .object([
                "algorithm": .string(Self.algorithm),
                "publicKey": .string(Base64.encode($0.key.der)),
                "fingerprint": .string($0.key.fingerprint),
                "signature": .string(Base64.encode($0.signature)),
            ])
        }
        return JSONWriter.bytes(
            .object([
                "format": .string(Self.format), "version": .int(Self.version), "manifest": .string(manifest),
                "manifestSha256": .string(manifestSHA256), "signatures": .array(list),
            ]))
    }

    /// Reads a signature entry's bytes; anything but the documented shape is `malformed`.
    public init(parsing bytes: [UInt8], path: String) throws(SignatureError) {
        func malformed(_ why: String) -> SignatureError {
            SignatureError(kind: .malformed, path: path, message: "the signature entry is malformed: \(why)")
        }
        guard let object = try? JSONParser.parseObject(bytes, path: path) else { throw malformed("not a JSON object (truncated?)") }
        guard object["format"]?.stringValue == Self.format else { throw malformed("'format' is not '\(Self.format)'") }
        guard let version = object["version"]?.int64Value else { throw malformed("no 'version'") }
        guard version <= Self.version else {
            throw SignatureError(kind: .malformed, path: path, message: "signature version \(version) is newer than this tool's \(Self.version): update mapbook")
        }
        guard let manifest = object["manifest"]?.stringValue, let hash = object["manifestSha256"]?.stringValue else {
            throw malformed("no 'manifest' or 'manifestSha256'")
        }
        guard let list = object["signatures"]?.arrayValue, !list.isEmpty else { throw malformed("no 'signatures'") }
        var signers: [Signer] = []
        for (i, value) in list.enumerated() {
            guard let item = value.objectValue else { throw malformed("signature \(i + 1) is not an object") }
            guard item["algorithm"]?.stringValue == Self.algorithm else {
                throw malformed("signature \(i + 1) uses '\(item["algorithm"]?.stringValue ?? "no algorithm")', not \(Self.algorithm)")
            }
            guard let der = item["publicKey"]?.stringValue.flatMap(Base64.decode), let key = try? PublicSigningKey(der: der, path: path) else {
                throw malformed("signature \(i + 1) has no valid Ed25519 'publicKey'")
            }
            guard let signature = item["signature"]?.stringValue.flatMap(Base64.decode), signature.count == 64 else {
                throw malformed("signature \(i + 1) is not 64 base64 bytes")
            }
            if let printed = item["fingerprint"]?.stringValue, printed != key.fingerprint {
                throw malformed("signature \(i + 1)'s fingerprint \(printed) is not its key's (\(key.fingerprint))")
            }
            signers.append(Signer(key: key, signature: signature))
        }
        self.manifest = manifest
        self.manifestSHA256 = hash.lowercased()
        self.signers = signers
    }

    /// Checks that this signs `manifestBytes` (the manifest entry `manifestName`) with every
    /// key it lists.
    public func verify(manifestName: String, manifestBytes: [UInt8], path: String) throws(SignatureError) {
        guard manifest == manifestName, manifestSHA256 == SHA256Digest.hex(of: manifestBytes) else {
            throw SignatureError(
                kind: .otherManifest, path: path,
                message: manifest == manifestName
                    ? "the signature is of another version of '\(manifest)': the manifest was changed after signing"
                    : "the signature is of the manifest '\(manifest)', not of this package's '\(manifestName)'")
        }
        for signer in signers where !signer.key.verifies(signer.signature, of: manifestBytes) {
            throw SignatureError(kind: .badSignature, path: path, message: "the signature by \(signer.key.fingerprint) does not verify: the manifest or the signature was changed after signing")
        }
    }
}

/// What a package's signature entry says, once checked against its manifest.
public enum SignatureState: Sendable {
    /// No signature entry.
    case unsigned
    /// Signed, every signature verifying; the keys in the entry's order.
    case signed([PublicSigningKey])
    /// A signature entry that is malformed, doubled, of another manifest or does not verify.
    case invalid(SignatureError)

    /// Reads and checks the signature entries of `archive` against its manifest.
    public static func of(_ archive: ZipArchive, manifestEntry: ZipEntry, manifestBytes: [UInt8]) -> SignatureState {
        let entries = archive.entries.filter { PackageSignature.isSignatureEntry($0.name) }
        guard let entry = entries.first else { return .unsigned }
        let path = "\(archive.displayPath)[\(entry.name)]"
        guard entries.count == 1 else {
            return .invalid(SignatureError(kind: .duplicate, path: archive.displayPath, message: "has \(entries.count) signature entries (\(entries.map(\.name).joined(separator: ", "))): a package has one"))
        }
        guard entry.uncompressedSize <= PackageSignature.maximumSize, let bytes = try? archive.read(entry, limit: PackageSignature.maximumSize) else {
            return .invalid(SignatureError(kind: .malformed, path: path, message: "the signature entry cannot be read or is larger than 1 MiB"))
        }
        do throws(SignatureError) {
            let signature = try PackageSignature(parsing: bytes, path: path)
            try signature.verify(manifestName: manifestEntry.name, manifestBytes: manifestBytes, path: path)
            return .signed(signature.signers.map(\.key))
        } catch {
            return .invalid(error)
        }
    }

    public var isSigned: Bool {
        if case .signed = self { return true }
        return false
    }
}
