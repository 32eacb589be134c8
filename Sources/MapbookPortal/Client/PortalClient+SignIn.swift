import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import MapbookLibrary
import MapbookPortalAPI

/// Signing in and out: OAuth 2 authorization code with PKCE, as the portal's own pages offer
/// it, with `generateToken` for portals that have no such pages (or do not know this app, as
/// ArcGIS Online does not), and revoking the tokens.
extension PortalClient {
    /// The out-of-band redirect: the portal shows the code on a page instead of sending the
    /// browser somewhere, which is what a command-line client needs.
    static let outOfBand = "urn:ietf:wg:oauth:2.0:oob"

    /// How a sign-in got its token.
    public enum SignInMethod: String, Sendable {
        /// OAuth 2 authorization code with PKCE: an access token and a refresh token.
        case oauth
        /// `generateToken`: one token, bound to the portal as referer; no refresh.
        case generateToken
    }

    /// Signs `username` in with `password` and returns the credential (the password is not
    /// in it). Nothing is stored here; the client's own credential becomes the new one.
    ///
    /// A wrong password is a `PortalError` with the portal's reason; a portal whose OAuth
    /// pages are missing or refuse this app is asked through `generateToken` instead.
    /// With `method` `.generateToken`, OAuth is not tried.
    public func signIn(username: String, password: String, method wanted: SignInMethod = .oauth) async throws -> (credential: Credential, method: SignInMethod) {
        let credential: Credential
        let method: SignInMethod
        if wanted == .oauth, let oauth = try await signInWithOAuth(username: username, password: password) {
            (credential, method) = (oauth, .oauth)
        } else {
            (credential, method) = (try await signInWithGenerateToken(username: username, password: password), .generateToken)
        }
        setCredential(credential)
        return (credential, method)
    }

    /// The authorization code flow with PKCE (RFC 7636, S256); nil when the portal offers no
    /// usable authorize page, so that the caller can try `generateToken`.
    func signInWithOAuth(username: String, password: String) async throws -> Credential? {
        let pkce = PKCE()
        let state = Base64URL.random(bytes: 16)
        let authorize = "\(restURL)/oauth2/authorize?" + FormEncoding.encode([
            ("client_id", Self.clientId), ("response_type", "code"), ("redirect_uri", Self.outOfBand),
            ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"), ("state", state),
        ])
        let (status, form) = try await page(authorize, fields: nil)
        guard status == 200, let oauthState = form.oauthState else { return nil }

        let (_, result) = try await page(
            "\(portalURL)/sharing/oauth2/signin", fields: [("oauth_state", oauthState), ("username", username), ("password", password)])
        guard let code = result.successCode else {
            let reasons = result.messages
            if !reasons.isEmpty {
                throw PortalError(code: 400, messageCode: "OAUTH_0002", message: reasons.joined(separator: " "))
            }
            throw PortalClientError(
                .badResponse, url: "\(portalURL)/sharing/oauth2/signin",
                message: "the sign-in page gave neither an authorization code nor a reason; try again, or check the portal URL")
        }
        let answer = try await call(
            "oauth2/token", method: .POST,
            body: .form([
                ("grant_type", "authorization_code"), ("client_id", Self.clientId), ("code", code), ("redirect_uri", Self.outOfBand),
                ("code_verifier", pkce.verifier),
            ]), authenticated: false)
        guard let token = answer.string("access_token"), !token.isEmpty else {
            throw PortalClientError(.badResponse, url: "\(restURL)/oauth2/token", message: "the token answer has no access_token")
        }
        let now = Self.now()
        return Credential(
            portalUrl: portalURL, username: answer.string("username") ?? username, token: token,
            expires: now + (answer.int64("expires_in") ?? 1800) * 1000, referer: nil, refreshToken: answer.string("refresh_token"),
            refreshTokenExpires: answer.int64("refresh_token_expires_in").map { now + $0 * 1000 }, clientId: Self.clientId)
    }

    /// `generateToken` with the portal as referer, for two weeks (the longest ArcGIS Online
    /// grants; portals cap it at their own limit and say when it ends).
    func signInWithGenerateToken(username: String, password: String) async throws -> Credential {
        let answer = try await call(
            "generateToken", method: .POST,
            body: .form([
                ("username", username), ("password", password), ("client", "referer"), ("referer", portalURL), ("expiration", "20160"),
            ]), authenticated: false)
        guard let token = answer.string("token"), !token.isEmpty else {
            throw PortalClientError(.badResponse, url: "\(restURL)/generateToken", message: "the answer has no token")
        }
        var credential = Credential(
            portalUrl: portalURL, username: username, token: token, expires: answer.int64("expires") ?? (Self.now() + 3_600_000),
            referer: portalURL)
        // The portal's spelling of the name (sign-in ignores case; owner searches may not).
        setCredential(credential)
        if let me = try? await call("community/self"), let name = me.string("username"), !name.isEmpty {
            credential.username = name
        }
        return credential
    }

    /// Revokes the credential's tokens (`oauth2/revokeToken`), so that a copy of them is
    /// worth nothing. Returns whether the portal confirmed it.
    ///
    /// As the OAuth 2 revocation endpoint of ArcGIS takes them: `token` is the one to revoke
    /// (the refresh token, which outlives the access token; else the access token) and
    /// `auth_token` the access token; the Mapbook portal revokes both. Only reaching the portal
    /// can fail: then the tokens simply expire.
    @discardableResult
    public func revokeTokens() async throws -> Bool {
        guard let credential else { return false }
        let fields: [(String, String)] = [
            ("client_id", credential.clientId ?? Self.clientId), ("token", credential.refreshToken ?? credential.token),
            ("auth_token", credential.token), ("token_type_hint", credential.refreshToken == nil ? "access_token" : "refresh_token"),
        ]
        do {
            let answer = try await call("oauth2/revokeToken", method: .POST, body: .form(fields), authenticated: false)
            return answer["success"]?.boolValue ?? true
        } catch is PortalError {
            return false
        }
    }

    /// An HTML page (GET, or POST of a form), following redirects; never with a token.
    func page(_ url: String, fields: [(String, String)]?) async throws -> (status: UInt, page: OAuthPage) {
        var request = HTTPClientRequest(url: url)
        if let fields {
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        }
        let response = try await send(request, credential: nil)
        let bytes = try await Self.collect(response, url: url, limit: 4 << 20)
        return (response.status.code, OAuthPage(html: String(decoding: bytes, as: UTF8.self)))
    }
}
