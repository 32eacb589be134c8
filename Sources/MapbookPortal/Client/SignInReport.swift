import MapbookLibrary
import MapbookSupport

/// What `mapbook portal signin` says it did: the sign-in, what an earlier sign-in's switch
/// removed, and the signing keys now trusted.
public struct SignInReport: Sendable {
    public var credential: Credential
    public var method: PortalClient.SignInMethod
    public var removed: LibraryCleanup
    /// The certificate file kept as the portal's trust root, if one was given.
    public var certificateFile: String?
    /// How many of the portal's signing keys the library now trusts; nil when the portal keeps none.
    public var trustedKeys: Int?

    public init(credential: Credential, method: PortalClient.SignInMethod, removed: LibraryCleanup, certificateFile: String?, trustedKeys: Int?) {
        self.credential = credential
        self.method = method
        self.removed = removed
        self.certificateFile = certificateFile
        self.trustedKeys = trustedKeys
    }

    public var jsonValue: JSONValue {
        .object([
            "portalUrl": .string(credential.portalUrl),
            "username": .string(credential.username),
            "method": .string(method.rawValue),
            "expires": .integer(credential.expires),
            "refreshTokenExpires": credential.refreshTokenExpires.map(JSONValue.integer) ?? .null,
            "removedPackages": .array(removed.removedPackages.map { .string($0.itemId ?? $0.name) }),
            "trustedKeys": trustedKeys.map { .integer(Int64($0)) } ?? .null,
        ])
    }

    public var lines: [String] {
        var out: [String] = []
        if let old = removed.removedCredential, old.username.lowercased() != credential.username.lowercased() || old.portalUrl != credential.portalUrl {
            out.append("Signed out \(old.username) of \(old.portalUrl).")
        }
        out += removed.removalLines
        let until = ISODate.formatMinutes(milliseconds: credential.expires)
        switch method {
        case .oauth:
            let renew = credential.refreshTokenExpires.map { "; renewed as needed until \(ISODate.formatMinutes(milliseconds: $0)) UTC" } ?? ""
            out.append("Signed in to \(credential.portalUrl) as \(credential.username) (OAuth; token valid until \(until) UTC\(renew)).")
        case .generateToken:
            out.append("Signed in to \(credential.portalUrl) as \(credential.username) (generateToken; token valid until \(until) UTC, then sign in again).")
        }
        if let certificateFile { out.append("Trusting the certificate in \(certificateFile) for this portal from now on.") }
        if let count = trustedKeys, count > 0 {
            out.append("Trusting the \(count) package signing key\(count == 1 ? "" : "s") of its publishers and itself ('mapbook library trust list').")
        }
        return out
    }
}

/// What `mapbook portal signout` says it did.
public struct SignOutReport: Sendable {
    public var portal: String?
    public var cleanup: LibraryCleanup
    /// Whether the portal confirmed revoking the tokens; nil when nobody was signed in.
    public var revoked: Bool?

    public init(portal: String?, cleanup: LibraryCleanup, revoked: Bool?) {
        self.portal = portal
        self.cleanup = cleanup
        self.revoked = revoked
    }

    public var jsonValue: JSONValue {
        .object([
            "signedOut": cleanup.removedCredential.map { .string($0.username) } ?? .null,
            "portalUrl": portal.map(JSONValue.string) ?? .null,
            "tokensRevoked": revoked.map(JSONValue.bool) ?? .null,
            "removedPackages": .array(cleanup.removedPackages.map(\.jsonValue)),
            "removedPartialDownloads": .array(cleanup.removedPartialDownloads.map(JSONValue.string)),
            "removedPortalCertificate": .bool(cleanup.removedPortalCertificate),
        ])
    }

    public var lines: [String] {
        var out: [String] = []
        if let removed = cleanup.removedCredential {
            out.append("Signed out \(removed.username) of \(removed.portalUrl)\(revoked == true ? " (tokens revoked)" : "").")
        } else {
            out.append("Nobody was signed in\(portal.map { " to \($0)" } ?? "").")
        }
        if cleanup.removedPackages.isEmpty { out.append("No downloaded packages to remove.") }
        out += cleanup.removalLines
        if cleanup.removedPortalCertificate { out.append("Removed the portal's kept certificate.") }
        return out
    }
}
