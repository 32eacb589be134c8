import MapbookPackage
import MapbookSupport

/// The signed-in user's credential: `credential.json`, readable by its owner only.
extension DeviceLibrary {
    /// The stored credential; nil when nobody is signed in.
    public func credential() throws -> Credential? {
        try withLock(creating: false) { try readCredential() }
    }

    /// Stores `credential`, replacing the one stored.
    ///
    /// The library must be in portal mode with the credential's portal (`setMode` first), so
    /// a credential never sits beside another portal's downloads. The file is created 0600
    /// and renamed into place: it is never readable by others, whatever the umask, even for a
    /// moment.
    public func saveCredential(_ credential: Credential) throws {
        let url = try Self.normalizedPortalURL(credential.portalUrl)
        guard !credential.token.isEmpty else {
            throw LibraryError(kind: .invalidCredential, path: credentialPath, message: "a credential needs a token; nothing was stored")
        }
        try withLock(creating: true) {
            let portal = try requirePortalMode()
            guard url == portal else {
                throw LibraryError(
                    kind: .wrongPortal, path: credentialPath,
                    message: "the credential is for \(url), but the library is in portal mode with \(portal); switch portals first (`mapbook library mode portal --portal \(url)`)")
            }
            var stored = credential
            stored.portalUrl = url
            let file = try AtomicFile(destination: credentialPath, permissions: 0o600)
            try file.write(JSONWriter.bytes(stored.jsonValue))
            try file.commit()
        }
    }

    /// Signs out: removes the credential and every downloaded package, as the Offline
    /// Mapbook app does. The library stays in portal mode; sideloaded packages are untouched.
    @discardableResult
    public func signOut() throws -> LibraryCleanup {
        try withLock(creating: false) { try removeDownloadsAndCredential() }
    }

    /// Keeps a sign-in the portal has accepted: another user's downloads from the same portal
    /// are removed first (they may be items this user cannot see), the library switches to
    /// portal mode with `portal` (a different portal's downloads removed), and the credential
    /// and the portal's CA certificate, if given, are kept. Returns what was removed.
    public func signedIn(_ credential: Credential, portal: String, certificate: [UInt8]?) throws -> LibraryCleanup {
        var removed = LibraryCleanup()
        if try portalURL() == portal, let current = try self.credential(), current.username.lowercased() != credential.username.lowercased() {
            removed = try signOut()
        }
        let switched = try setMode(.portal, portalURL: portal)
        removed.removedPackages += switched.removedPackages
        removed.removedPartialDownloads += switched.removedPartialDownloads
        if removed.removedCredential == nil { removed.removedCredential = switched.removedCredential }
        try saveCredential(credential)
        if let certificate { try savePortalCertificate(certificate) }
        return removed
    }

    func readCredential() throws(LibraryError) -> Credential? {
        guard let bytes = try LibraryFiles.read(credentialPath) else { return nil }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw LibraryError(kind: .json(error.kind), path: credentialPath, message: "the stored credential is not valid JSON (\(error)); sign in again")
        }
        return try Credential(json: value, path: credentialPath)
    }
}
