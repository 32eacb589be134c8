import MapbookLibrary
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

/// Publishers' signing keys on a Mapbook portal (docs/PORTAL.md "Signed packages"). A portal
/// that does not keep them (ArcGIS Online) answers with an error, which sign-in ignores.
extension PortalClient {
    /// Every key the portal's users registered, with the user (none for the portal's own key,
    /// which signs the packages it makes); and whether the portal refuses unsigned packages.
    public func organizationSigningKeys() async throws -> (keys: [(key: PublicSigningKey, name: String)], required: Bool) {
        let object = try await call("portals/self/signingKeys")
        let keys: [(key: PublicSigningKey, name: String)] = (object.array("keys") ?? []).compactMap { value in
            guard let item = value.objectValue, let pem = item.string("publicKey"), let key = try? PublicSigningKey(pem: pem, path: "") else { return nil }
            return (key, item.string("username") ?? "")
        }
        return (keys, object["requirePackageSignatures"]?.boolValue ?? false)
    }

    /// Refreshes the library's keys from this portal: those it lists now, and no others of it
    /// (a key rotated out stops being trusted). Returns how many it lists; nil when the portal
    /// keeps no signing keys.
    @discardableResult
    public func refreshTrustedKeys(in library: DeviceLibrary) async throws -> Int? {
        let listed: [(key: PublicSigningKey, name: String)]
        do {
            listed = try await organizationSigningKeys().keys
        } catch let error as PortalError where error.code == 400 || error.code == 404 {
            return nil
        }
        try library.replacePortalKeys(listed.map { ($0.key, $0.name.isEmpty ? "the portal itself" : $0.name) }, portal: portalURL)
        return listed.count
    }

    /// The keys `username` registered.
    public func signingKeys(of username: String) async throws -> [PublicSigningKey] {
        let object = try await call("community/users/\(FormEncoding.percentEncode(username))/signingKeys")
        return (object.array("keys") ?? []).compactMap { $0.objectValue?.string("publicKey").flatMap { try? PublicSigningKey(pem: $0, path: "") } }
    }

    /// Registers `key` as one `username` signs packages with.
    public func registerSigningKey(_ key: PublicSigningKey, for username: String) async throws {
        _ = try await call("community/users/\(FormEncoding.percentEncode(username))/signingKeys/add", method: .POST, [("publicKey", key.pem)])
    }

    /// Withdraws the key with `fingerprint` from `username`'s.
    public func removeSigningKey(_ fingerprint: String, for username: String) async throws {
        _ = try await call("community/users/\(FormEncoding.percentEncode(username))/signingKeys/remove", method: .POST, [("fingerprint", fingerprint)])
    }
}
