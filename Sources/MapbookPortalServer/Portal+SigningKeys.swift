import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

/// Publishers' signing keys (issue 35, docs/PORTAL.md "Signed packages"): each user registers
/// the Ed25519 public keys they sign packages with; devices fetch every registered key when
/// they sign in and trust them; and an administrator can make the portal refuse a package not
/// signed by a key its owner registered.
///
/// Kept as settings (`signingKeys:<user>`, `requirePackageSignatures`), which every store
/// already keeps and every process of a cluster already follows.
extension Portal {
    static let requireSignaturesSetting = "requirePackageSignatures"
    static func signingKeysSetting(_ username: String) -> String { "signingKeys:" + username.lowercased() }
    /// How the portal's own key is named where keys are listed with their users: no user.
    static let portalKeyName = ""

    /// The keys `username` registered, in the order registered.
    func signingKeys(of username: String) async throws -> [PublicSigningKey] {
        guard let text = try await store.setting(Self.signingKeysSetting(username)) else { return [] }
        return Self.decodeKeys(text)
    }

    static func decodeKeys(_ text: String) -> [PublicSigningKey] {
        (try? JSONParser.parse(Array(text.utf8)))?.arrayValue?.compactMap { value in
            value.stringValue.flatMap(Base64.decode).flatMap { try? PublicSigningKey(der: $0, path: "") }
        } ?? []
    }

    func saveSigningKeys(_ keys: [PublicSigningKey], of username: String) async throws {
        let list = JSONValue.array(keys.map { .string(Base64.encode($0.der)) })
        try await store.setSetting(Self.signingKeysSetting(username), JSONWriter.string(list, style: .compact))
    }

    /// Every key of every user who may sign in, as devices trust them.
    func organizationSigningKeys() async throws -> [(username: String, key: PublicSigningKey)] {
        let settings = try await store.settings()
        // The portal's own key first: it signs what the portal makes.
        var out: [(String, PublicSigningKey)] = [(Self.portalKeyName, try await portalSigningKey().publicKey)]
        for user in try await store.users().sorted(by: { $0.username < $1.username }) where !user.disabled {
            for key in Self.decodeKeys(settings[Self.signingKeysSetting(user.username)] ?? "") { out.append((user.username, key)) }
        }
        return out
    }

    /// The portal's own key, which signs the packages the portal makes (a new version from
    /// synchronised edits, a map area taken offline): made at the first use and kept as a
    /// setting, as the OAuth secret is.
    func portalSigningKey() async throws -> SigningKey {
        if let hex = try await store.setting("portalSigningKey"), let seed = PasswordHash.bytes(hex: hex), let key = SigningKey(seed: seed) { return key }
        let key = SigningKey()
        try await store.setSetting("portalSigningKey", SHA256Digest.hex(key.seed))
        return key
    }

    func requiresSignatures() async throws -> Bool {
        try await store.setting(Self.requireSignaturesSetting) == "true"
    }

    /// Refuses a package that is not signed by a key its owner registered, when the portal
    /// requires signatures. A bad signature is refused always, by the validator's errors.
    func checkSignature(_ path: String, owner: String, fileName: String) async throws {
        guard try await requiresSignatures() else { return }
        // The portal's own key signs what the portal makes from an owner's package.
        let registered = try await signingKeys(of: owner) + [try await portalSigningKey().publicKey]
        let signature = try await NIOThreadPool.singleton.runIfActive { (try? MobileMapPackage(path: path))?.signature }
        guard case .signed(let keys)? = signature else {
            throw PortalError(
                code: 400, messageCode: "MAPBOOK_UNSIGNED",
                message: "This portal accepts only signed packages, and '\(fileName)' is not signed (or its signature is bad): sign it with 'mapbook sign' using a key registered to \(owner).")
        }
        guard keys.contains(where: registered.contains) else {
            throw PortalError(
                code: 400, messageCode: "MAPBOOK_UNREGISTERED_KEY",
                message: "'\(fileName)' is signed by \(keys.map(\.fingerprint).joined(separator: ", ")), which \(owner) has not registered with this portal ('mapbook portal keys add KEY.pub' registers a key).")
        }
    }
}
