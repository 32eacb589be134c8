import HTTPTypes
import Hummingbird
import MapbookSupport

/// What every response passes through: the security headers (a Content-Security-Policy with
/// no inline script and no eval, frames denied, no type sniffing, no referrer), the secret a
/// server on a network address asks for, and errors turned into JSON with their kind (or a
/// short page, for a browser asking for one).
///
/// The secret comes once in the address the server prints (`?key=...`); the first page that
/// brings it sets it as an HttpOnly, SameSite=Strict cookie, which every later request of
/// the page (scripts, tiles, the service worker) carries without the secret in its URL.
struct WebGuard<Context: RequestContext>: RouterMiddleware {
    let secret: String?
    let secure: Bool
    let pages: WebPages

    static var contentSecurityPolicy: String {
        // MapLibre makes its workers from blob: URLs; styles set inline by MapLibre's DOM code
        // need 'unsafe-inline' for style only. No script is inline, none is evaluated.
        "default-src 'self'; script-src 'self'; worker-src 'self' blob:; child-src blob:; img-src 'self' data: blob:; "
            + "style-src 'self' 'unsafe-inline'; connect-src 'self'; font-src 'self'; manifest-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
    }

    static var headers: HTTPFields {
        [
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
            HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
            HTTPField.Name("Permissions-Policy")!: "geolocation=(self), camera=(self)",
        ]
    }

    static var cookieName: String { "mapbook_key" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        var setCookie = false
        if let secret, !authorised(request, secret: secret, setCookie: &setCookie) {
            response = errorResponse(
                WebError(status: .unauthorized, kind: "secretRequired", message: "open the address `mapbook serve` printed: it carries the key this server asks for"),
                request: request)
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPResponseError where !(error is WebError) {
                response = errorResponse(WebError(status: error.status, kind: error.status == .notFound ? "notFound" : "invalidRequest", message: "\(error.status.reasonPhrase)"), request: request)
            } catch {
                response = errorResponse(WebError.from(error), request: request)
            }
            if setCookie, let secret {
                response.headers.append(HTTPField(name: .setCookie, value: "\(Self.cookieName)=\(secret); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")))
            }
        }
        for field in Self.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }

    /// The request carries the secret: in its cookie, or in `?key=` (which then sets the cookie).
    private func authorised(_ request: Request, secret: String, setCookie: inout Bool) -> Bool {
        for cookie in request.headers[values: .cookie].flatMap({ $0.split(separator: ";") }) {
            let pair = cookie.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingWhitespace() == Self.cookieName, Self.equal(String(pair[1]).trimmingWhitespace(), secret) { return true }
        }
        if let key = request.uri.queryParameters.get("key"), Self.equal(key, secret) {
            setCookie = true
            return true
        }
        return false
    }

    /// Compares in time that does not depend on where the texts first differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// JSON for scripts and the API; a page for a browser that asked for one.
    func errorResponse(_ error: WebError, request: Request) -> Response {
        let wantsPage = !request.uri.path.hasPrefix("/api/") && (request.headers[.accept] ?? "").contains("text/html")
        if wantsPage {
            return WebResponses.page(pages.errorPage(error), status: error.status)
        }
        return WebResponses.json(error.json, status: error.status)
    }
}

extension WebError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        WebResponses.json(json, status: status)
    }
}
