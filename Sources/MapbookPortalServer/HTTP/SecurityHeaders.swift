import HTTPTypes
import Hummingbird

/// The headers every portal response carries (issue 34): a Content-Security-Policy with no
/// inline script (a page that needs one, the OAuth sign-in page, sets its own policy with the
/// script's hash), no framing, no type sniffing, no referrer to other hosts, and HSTS on TLS.
///
/// Errors the router throws (an unknown path) are answered here too, so a 404 carries them.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    /// Whether the portal answers over TLS (HSTS and the cookies' Secure flag).
    let secure: Bool

    /// The policy of every page: scripts, styles, fonts and data from the portal alone;
    /// images also as `data:` (thumbnails in item JSON) and `blob:` (MapLibre's sprites);
    /// workers as `blob:` (MapLibre starts its tile workers so).
    static var policy: String {
        policy(scripts: "'self'")
    }

    /// The policy with `scripts` as its script sources.
    static func policy(scripts: String, formAction: Bool = true) -> String {
        var directives = [
            "default-src 'self'", "script-src \(scripts)", "style-src 'self'", "img-src 'self' data: blob:", "font-src 'self'",
            "connect-src 'self'", "worker-src 'self' blob:", "child-src blob:", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'",
        ]
        // The OAuth page posts to the portal and is then sent on to the application's
        // redirect URI (a loopback address for a native client), which `form-action` would block.
        if formAction { directives.append("form-action 'self'") }
        return directives.joined(separator: "; ")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await BrowserSession.$onTLS.withValue(secure) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Anything else a handler let through is a 500, with the headers like any answer.
            context.logger.error("request failed: \(error)")
            response = Response(status: .internalServerError)
        }
        add(to: &response.headers)
        return response
    }

    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    static var openerPolicy: HTTPField.Name { HTTPField.Name("Cross-Origin-Opener-Policy")! }

    func add(to headers: inout HTTPFields) {
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = Self.policy }
        headers[Self.frameOptions] = "DENY"
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "same-origin"
        headers[Self.openerPolicy] = "same-origin"
        if secure { headers[.strictTransportSecurity] = "max-age=31536000" }
    }
}
