import AsyncHTTPClient
import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport

/// Keeping the sign-in alive: refreshing an access token that is about to expire.
extension PortalClient {
    /// Runs `body` with a client of `portal` signed in with `credential`, a refreshed one saved
    /// in `library` as it comes (see `with(portalURL:trust:credential:credentialChanged:_:)`),
    /// its requests naming the library's device (issue 34).
    public static func with<T>(
        portalURL portal: String, trust: PortalTrust, credential: Credential?, savingTo library: DeviceLibrary,
        _ body: (PortalClient) async throws -> T
    ) async throws -> T {
        try await with(portalURL: portal, trust: trust, credential: credential, credentialChanged: { try library.saveCredential($0) }) { client in
            // The library names itself unless told not to (`mapbook library report off`); a
            // library that cannot keep its id reports nothing rather than failing the work.
            client.report(asDevice: (try? library.reportingDeviceId()) ?? nil)
            return try await body(client)
        }
    }

    /// How long before its expiry an access token is refreshed (ms): a request that starts
    /// with less left could see the token die on the way.
    static let refreshMargin: Int64 = 60_000

    /// The credential to sign the next request with, refreshed first when its access token
    /// expires within a minute; nil when nobody is signed in.
    func currentCredential() async throws -> Credential? {
        guard let credential else { return nil }
        if credential.expires - Self.now() > Self.refreshMargin { return credential }
        return try await refresh(credential, reason: "the saved access token has expired")
    }

    /// Trades the refresh token for a new access token (OAuth 2 `grant_type=refresh_token`),
    /// keeps it and hands it to `credentialChanged`. Throws "sign in again" when there is no
    /// refresh token, it has expired, or the portal refuses it.
    @discardableResult
    func refresh(_ credential: Credential, reason: String) async throws -> Credential {
        guard let refreshToken = credential.refreshToken else {
            throw signInAgain(credential, because: reason)
        }
        if let until = credential.refreshTokenExpires, until <= Self.now() {
            throw signInAgain(credential, because: "\(reason), and so has the refresh token")
        }
        let answer: JSONObject
        do {
            answer = try await call(
                "oauth2/token", method: .POST,
                body: .form([("grant_type", "refresh_token"), ("client_id", credential.clientId ?? Self.clientId), ("refresh_token", refreshToken)]),
                authenticated: false)
        } catch let error as PortalError {
            throw signInAgain(credential, because: "\(reason), and the portal refused the refresh token (\(error.message))")
        }
        guard let token = answer.string("access_token"), !token.isEmpty else {
            throw signInAgain(credential, because: "\(reason), and the portal's token answer had no access_token")
        }
        var renewed = credential
        renewed.token = token
        renewed.expires = Self.now() + (answer.int64("expires_in") ?? 1800) * 1000
        // Some portals rotate refresh tokens; keep the newest.
        if let next = answer.string("refresh_token"), !next.isEmpty {
            renewed.refreshToken = next
            if let seconds = answer.int64("refresh_token_expires_in") { renewed.refreshTokenExpires = Self.now() + seconds * 1000 }
        }
        try credentialChanged?(renewed)
        let stored = renewed
        setCredential(stored)
        return stored
    }

    /// "Sign in again" for `credential`'s portal and user.
    func signInAgain(_ credential: Credential?, because reason: String) -> PortalClientError {
        let user = credential.map { " --user \($0.username)" } ?? " --user NAME"
        return PortalClientError(.signInRequired, url: portalURL, message: "\(reason); sign in again: `mapbook portal signin \(portalURL)\(user)`")
    }
}
