import MapbookSupport

/// A failure to make, read or use a signing key, or to sign or verify a package.
public struct SignatureError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// A key file that is not a PEM Ed25519 key of the kind asked for.
        case invalidKey
        /// A private key file that others can read, or that is not a regular file.
        case keyPermissions
        /// The key file exists and replacing it was not asked for.
        case keyExists
        /// The package's signature entry is not JSON of the documented shape, or uses an
        /// algorithm or version this tool does not know.
        case malformed
        /// More than one signature entry.
        case duplicate
        /// The signature entry names or hashes another manifest than the package's.
        case otherManifest
        /// A signature that does not verify: the manifest or the signature was changed.
        case badSignature
        /// An entry differs from the size or SHA-256 the signed manifest records, is missing,
        /// or is not listed at all.
        case entryMismatch
        /// The package has no entry digests to sign (a package made by ArcGIS).
        case noDigests
        /// The package's layout stops a signature entry being added: the signature entry is
        /// not the last one.
        case layout
        /// No trusted key signed the package, where a trusted signature is required.
        case untrusted
        /// The operating system refused to read or write a file; `errno` says why.
        case io(errno: Int32)
    }

    public var kind: Kind
    /// The key file or package.
    public var path: String
    public var message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "'\(path)': \(message)" }
}
