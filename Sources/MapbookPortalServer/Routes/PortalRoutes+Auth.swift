import Crypto
import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Signing in: `generateToken`, the OAuth 2 authorize page and sign-in form (implicit
    /// grant, as the `arcgis` Python client scrapes it, and authorization code with PKCE),
    /// the token endpoint (code and refresh grants) and revocation.
    static func auth(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        endpoint(router, "\(prefix)/generateToken", portal, methods: [.post], authenticates: false) { call, _ in
            guard let username = call["username"], let password = call["password"] else {
                throw PortalError.badRequest("Unable to generate token.", details: ["'username' and 'password' are required."])
            }
            guard let user = try await portal.signIn(username, password, from: call.clientAddress) else {
                throw PortalError.badRequest("Unable to generate token.", details: ["Invalid username or password."])
            }
            let minutes = min(max(1, Int64(call["expiration"] ?? "") ?? portal.configuration.defaultTokenMinutes), portal.configuration.maximumTokenMinutes)
            // Clients renew five minutes after the announced expiry (arcgis' EsriGenTokenAuth
            // sends one more request first), so the token lives that much longer than it says.
            let issued = try await portal.tokens.issue(.access, for: user.username, seconds: minutes * 60 + 300, clientId: call["client"], referer: call["referer"])
            return json(call, .object(["token": .string(issued.token), "expires": .integer(issued.record.expires - 300_000), "ssl": .bool(true)]))
        }

        for base in ["\(prefix)/oauth2", "/sharing/oauth2"] {
            endpoint(router, "\(base)/authorize", portal, methods: [.get], authenticates: false) { call, _ in
                try await authorizePage(call, portal, pages)
            }
            endpoint(router, "\(base)/signin", portal, methods: [.post], authenticates: false) { call, _ in
                try await signInForm(call, portal, pages)
            }
            endpoint(router, "\(base)/token", portal, methods: [.post], authenticates: false) { call, _ in
                try await tokenGrant(call, portal)
            }
            endpoint(router, "\(base)/revokeToken", portal, methods: [.post], authenticates: false) { call, _ in
                for key in ["token", "auth_token"] {
                    if let token = call[key] {
                        try await portal.tokens.revoke(token)
                    }
                }
                return json(call, .object(["success": .bool(true)]))
            }
        }
    }

    /// Redirect URIs a sign-in may return to: the out-of-band page, this portal's own origin,
    /// and loopback addresses (native apps, RFC 8252).
    static func allowedRedirect(_ uri: String, _ call: PortalRequest) -> Bool {
        if uri == "urn:ietf:wg:oauth:2.0:oob" { return true }
        if uri == call.baseURL || uri.hasPrefix(call.baseURL + "/") || uri.hasPrefix(call.baseURL + "#") { return true }
        for loopback in ["http://127.0.0.1", "http://localhost", "http://[::1]", "https://127.0.0.1", "https://localhost"] {
            if uri == loopback || uri.hasPrefix(loopback + ":") || uri.hasPrefix(loopback + "/") { return true }
        }
        return false
    }

    static func authorizePage(_ call: PortalRequest, _ portal: Portal, _ pages: PortalPages) async throws -> Response {
        let clientId = call["client_id"] ?? ""
        let responseType = call["response_type"] ?? "code"
        let redirect = call["redirect_uri"] ?? ""
        guard !clientId.isEmpty, clientId.utf8.count <= 128 else { return await signInPage(pages, portal, nil, error: "Error: Invalid client_id") }
        guard responseType == "token" || responseType == "code" else { return await signInPage(pages, portal, nil, error: "Error: Invalid response_type") }
        guard allowedRedirect(redirect, call) else { return await signInPage(pages, portal, nil, error: "Error: Invalid redirect_uri") }
        var challenge: String?
        if let c = call["code_challenge"] {
            guard (call["code_challenge_method"] ?? "S256") == "S256", c.utf8.count >= 43, c.utf8.count <= 128 else {
                return await signInPage(pages, portal, nil, error: "Error: Invalid code_challenge (use code_challenge_method=S256)")
            }
            challenge = c
        }
        let state = OAuthState(
            clientId: clientId, responseType: responseType, redirectURI: redirect, state: call["state"], expiration: call["expiration"].flatMap { Int64($0) },
            codeChallenge: challenge, expires: TokenService.now() + OAuthState.lifetimeMillis)
        return await signInPage(pages, portal, state.encode(secret: try await portal.oauthSecret()), clientId: clientId, responseType: responseType, redirect: redirect)
    }

    static func signInForm(_ call: PortalRequest, _ portal: Portal, _ pages: PortalPages) async throws -> Response {
        // The redirect is checked again against the host this form was posted to: a state
        // made for another Host header is not sent on with a token.
        guard let text = call["oauth_state"], let state = OAuthState.decode(text, secret: try await portal.oauthSecret(), now: TokenService.now()),
            allowedRedirect(state.redirectURI, call)
        else {
            return await signInPage(pages, portal, nil, error: "The sign-in page has expired or is not genuine. Start the sign-in again.")
        }
        var signedIn: UserRecord?
        if let username = call["username"], let password = call["password"] {
            do {
                signedIn = try await portal.signIn(username, password, from: call.clientAddress)
            } catch let throttled as SignInThrottled {
                var page = await signInPage(pages, portal, text, clientId: state.clientId, responseType: state.responseType, redirect: state.redirectURI, messages: [throttled.portalError.message])
                page.headers[.retryAfter] = String(throttled.retryAfter)
                return page
            }
        }
        guard let user = signedIn else {
            return await signInPage(pages, portal, text, clientId: state.clientId, responseType: state.responseType, redirect: state.redirectURI, messages: ["Invalid username or password."])
        }
        let minutes = min(max(1, call["expiration"].flatMap { Int64($0) } ?? state.expiration ?? 120), portal.configuration.maximumTokenMinutes)
        if state.responseType == "token" {
            // Clients sign in again five minutes before expiry: short lifetimes mean a sign-in
            // per request, so the implicit grant gives at least two hours.
            let seconds = max(minutes * 60, 7200)
            let issued = try await portal.tokens.issue(.access, for: user.username, seconds: seconds, clientId: state.clientId)
            var fragment = "access_token=\(issued.token)&expires_in=\(seconds)&username=\(FormEncoding.percentEncode(user.username))&ssl=true&persist=false"
            if let s = state.state { fragment += "&state=\(FormEncoding.percentEncode(s))" }
            return PortalResponse.redirect("\(state.redirectURI)#\(fragment)")
        }
        let code = try await portal.tokens.issue(.code, for: user.username, seconds: 300, clientId: state.clientId, codeChallenge: state.codeChallenge, redirectURI: state.redirectURI)
        if state.redirectURI == "urn:ietf:wg:oauth:2.0:oob" {
            return codePage(pages, code: code.token, username: user.username)
        }
        var location = "\(state.redirectURI)\(state.redirectURI.contains("?") ? "&" : "?")code=\(code.token)"
        if let s = state.state { location += "&state=\(FormEncoding.percentEncode(s))" }
        return PortalResponse.redirect(location)
    }

    static func tokenGrant(_ call: PortalRequest, _ portal: Portal) async throws -> Response {
        func oauthError(_ code: String, _ description: String) -> PortalError {
            PortalError(code: 400, messageCode: code, message: description, details: [])
        }
        let clientId = call["client_id"] ?? ""
        // The pages' codes become a browser session (`/home/session`), never API tokens.
        guard clientId != BrowserSession.clientId else { throw oauthError("invalid_client", "This client signs in to the portal's pages only.") }
        let record: TokenRecord
        switch call["grant_type"] ?? "" {
        case "authorization_code":
            guard let code = call["code"], let found = try await portal.tokens.redeemCode(code) else {
                throw oauthError("invalid_grant", "The authorization code is invalid, expired or already used.")
            }
            guard found.clientId == clientId else { throw oauthError("invalid_client", "The code was issued to another client_id.") }
            if let redirect = call["redirect_uri"], redirect != found.redirectURI {
                throw oauthError("invalid_grant", "redirect_uri does not match the one the code was issued for.")
            }
            if let challenge = found.codeChallenge {
                guard let verifier = call["code_verifier"], Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8)))) == challenge else {
                    throw oauthError("invalid_grant", "The PKCE code_verifier does not match the code_challenge.")
                }
            }
            record = found
        case "refresh_token":
            guard let token = call["refresh_token"], let found = try await portal.tokens.check(token, kind: .refresh) else {
                throw PortalError.invalidToken
            }
            guard found.clientId == clientId else { throw oauthError("invalid_client", "The refresh token was issued to another client_id.") }
            record = found
        default:
            throw oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.")
        }
        guard try await portal.store.user(record.username) != nil else { throw PortalError.invalidToken }
        let seconds = portal.configuration.oauthAccessSeconds
        let access = try await portal.tokens.issue(.access, for: record.username, seconds: seconds, clientId: clientId)
        var body: JSONObject = ["access_token": .string(access.token), "expires_in": .integer(seconds), "username": .string(record.username), "ssl": .bool(true)]
        if record.kind == .code {
            let refreshSeconds = portal.configuration.oauthRefreshSeconds
            let refresh = try await portal.tokens.issue(.refresh, for: record.username, seconds: refreshSeconds, clientId: clientId)
            body["refresh_token"] = .string(refresh.token)
            body["refresh_token_expires_in"] = .integer(refreshSeconds)
        }
        return json(call, .object(body))
    }

    /// The sign-in page. The `arcgis` client reads `oauth_state` with `\{.*\}` on one line,
    /// so the page's first brace opens the one-line, flat `oAuthInfo` object (the layout has
    /// none before it), and error pages carry `messages` in the same object. The object is the
    /// page's one inline script, allowed by its hash in the page's own policy.
    static func signInPage(
        _ pages: PortalPages, _ portal: Portal, _ state: String?, clientId: String = "", responseType: String = "", redirect: String = "", messages: [String] = [],
        error: String? = nil
    ) async -> Response {
        var info: JSONObject = [:]
        if let state {
            info["oauth_state"] = .string(state)
            info["client_id"] = .string(clientId)
            info["response_type"] = .string(responseType)
            info["redirect_uri"] = .string(redirect)
        }
        if !messages.isEmpty { info["messages"] = .array(messages.map { .string($0) }) }
        if let error { info["error"] = .string(error) }
        let script = "var oAuthInfo = \(scriptJSON(.object(info)));"
        var values: [String: Any] = ["script": script, "notes": [error].compactMap { $0 } + messages]
        if let state { values["state"] = state }
        let frame = PageFrame(portalName: await portal.organizationName(), session: nil, path: "/home", current: nil)
        return withScript(PortalResponse.html(pages.render("signin", values, frame: frame)), script)
    }

    /// The out-of-band code page, which clients read the code from (its title, or `oAuthInfo`).
    static func codePage(_ pages: PortalPages, code: String, username: String) -> Response {
        let script = "var oAuthInfo = \(scriptJSON(.object(["code": .string(code), "username": .string(username)])));"
        return withScript(PortalResponse.html(pages.templates.render(["code": code, "script": script], withTemplate: "oauth-code") ?? ""), script)
    }

    /// JSON to write inside a script element: every `<` escaped, so nothing in a value can end
    /// the element or open a comment in it.
    static func scriptJSON(_ value: JSONValue) -> String {
        JSONWriter.string(value, style: .compact).replacingAll("<", with: "\\u003c")
    }

    /// The page's policy, allowing its one inline `script` by hash (CSP level 2).
    static func withScript(_ response: Response, _ script: String) -> Response {
        var response = response
        let hash = Base64.encode(Array(SHA256.hash(data: Array(script.utf8))))
        response.headers[.contentSecurityPolicy] = SecurityHeaders<PortalContext>.policy(scripts: "'self' 'sha256-\(hash)'", formAction: false)
        return response
    }
}
