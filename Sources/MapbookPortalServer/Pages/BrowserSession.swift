import Crypto
import HTTPTypes
import Hummingbird
import MapbookPortalAPI
import MapbookSupport

/// A browser signed in to the portal's pages (issue 34, docs/PORTAL.md "Web pages").
///
/// The session is a token of kind `session` (only its hash is stored, as for every token) in
/// an HttpOnly, SameSite=Strict cookie, Secure on TLS. Its CSRF token is an HMAC of the
/// session token under the portal's OAuth secret, so it needs no row of its own and dies with
/// the session. Pages put it in every form; their scripts send it as `X-CSRF-Token`.
struct BrowserSession: Sendable {
    let user: UserRecord
    let token: String
    let csrf: String

    /// Whether the request being answered came over TLS: set for every request by
    /// `SecurityHeaders`, which knows how the portal listens.
    @TaskLocal static var onTLS = false

    /// The session cookie's name: on TLS with the `__Host-` prefix, which browsers accept only
    /// from a secure page, for the whole host and no other (RFC 6265bis 4.1.3.2), so neither
    /// a page over plain HTTP nor a neighbouring subdomain can plant a session of its own;
    /// only that name is read there.
    static var cookieName: String { onTLS ? "__Host-mapbook_session" : "mapbook_session" }
    /// Holds the `state` of a sign-in under way, so that only the browser that started it
    /// can finish it (a sign-in forced on someone else's browser is refused).
    static var signInCookieName: String { onTLS ? "__Host-mapbook_signin" : "mapbook_signin" }
    /// The client id the pages sign in with through the portal's own OAuth page.
    static let clientId = "mapbook-portal-pages"
    /// Where the OAuth page sends the browser back to, with its code.
    static let callbackPath = "/home/session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let csrfParameter = "csrf"

    /// The CSRF token of the session whose token is `token`.
    static func csrfToken(for token: String, secret: [UInt8]) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("csrf:\(TokenService.hash(token))".utf8), using: SymmetricKey(data: secret))
        return Base64URL.encode(Array(mac))
    }

    /// The session the request's cookie names, if it is live and its user exists.
    static func find(_ request: Request, _ portal: Portal) async throws -> BrowserSession? {
        guard let token = request.cookies[cookieName]?.value, !token.isEmpty,
            let (_, user) = try await portal.tokens.checkUser(token, kind: .session)
        else { return nil }
        return BrowserSession(user: user, token: token, csrf: csrfToken(for: token, secret: try await portal.oauthSecret()))
    }

    /// Starts a session for `user`: its token, stored, and the cookie that carries it.
    static func start(_ user: UserRecord, _ portal: Portal, secure: Bool) async throws -> Cookie {
        let issued = try await portal.tokens.issue(.session, for: user.username, seconds: portal.configuration.browserSessionSeconds, clientId: clientId)
        return cookie(cookieName, issued.token, maxAge: Int(portal.configuration.browserSessionSeconds), secure: secure)
    }

    /// A cookie as the pages set every one: HttpOnly, SameSite=Strict, for the whole portal.
    static func cookie(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// A cookie that removes the one named `name`.
    static func cleared(_ name: String, secure: Bool) -> Cookie {
        cookie(name, "", maxAge: 0, secure: secure)
    }

    /// Whether the browser says the request comes from one of the portal's own pages: the
    /// `Origin` (sent with every POST by current browsers) is the portal's, and the fetch
    /// metadata, when present, does not call it cross-site. A request with neither header
    /// passes here; the CSRF token still has to match.
    static func fromOwnPage(_ request: Request, baseURL: String) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
        // The scheme is the client's own business behind a proxy that ends TLS; host and port must match.
        return origin.lowercased() == baseURL.lowercased() || origin.lowercased() == "http://" + baseURL.dropFirst("https://".count).lowercased()
    }

    /// Whether `presented` is this session's CSRF token; compared in constant time.
    func accepts(_ presented: String?) -> Bool {
        guard let presented else { return false }
        let a = Array(presented.utf8), b = Array(csrf.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The caller of a sharing API request that presented no token, from the session cookie.
    ///
    /// The cookie counts only with the session's CSRF token (header or parameter) from the
    /// portal's own pages; without a token a GET is answered as for anyone, and anything else
    /// is refused, so another site can neither read nor change through a visitor's session.
    static func apiCaller(_ request: Request, _ parameters: RequestParameters, _ portal: Portal, baseURL: String) async throws -> UserRecord? {
        guard let session = try await find(request, portal) else { return nil }
        let presented = request.headers[csrfHeader] ?? parameters[csrfParameter]
        let reads = request.method == .get || request.method == .head
        if presented == nil, reads { return nil }
        guard session.accepts(presented), fromOwnPage(request, baseURL: baseURL) else { throw PortalError.csrfRefused }
        return session.user
    }
}

extension PortalError {
    /// A request with the browser session's cookie but not its CSRF token, or from another site.
    static let csrfRefused = PortalError(
        code: 403, messageCode: "GWM_0003", message: "The request did not come from the portal's own pages (CSRF token missing or wrong); reload the page and try again.")
}
