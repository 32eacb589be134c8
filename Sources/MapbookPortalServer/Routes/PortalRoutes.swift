#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import Logging
import MapbookPortalAPI
import MapbookSupport

/// A sharing API request as routes see it: parameters read, caller known.
struct PortalRequest: Sendable {
    var request: Request
    var parameters: RequestParameters
    var user: UserRecord?
    /// The token the caller presented (to revoke on sign-out).
    var token: String?
    /// `f=pjson` asks for indented JSON.
    var pretty: Bool { parameters["f"]?.lowercased() == "pjson" }
    /// The portal's own address as the client reached it, for URLs in responses.
    var baseURL: String
    /// The client's address: the socket's, or from a trusted proxy its `X-Forwarded-For`.
    var clientAddress: String?
    /// For a request that brings files: whether its client closed the connection after
    /// sending, before it had the answer.
    var clientLeft: ClientLeft?

    subscript(_ key: String) -> String? { parameters[key] }

    func requireUser() throws -> UserRecord {
        guard let user else { throw PortalError.tokenRequired }
        return user
    }
}

/// Builds the router: every sharing API endpoint the portal answers (DESIGN.md section 7).
public enum PortalRoutes {
    public static let prefix = "/sharing/rest"

    /// `secure`: the portal answers over TLS (its cookies are then Secure, and HSTS is sent).
    public static func router(_ portal: Portal, secure: Bool) throws -> Router<PortalContext> {
        let pages = try PortalPages()
        // Every GET answers HEAD too, with the same headers and no body.
        let router = Router(context: PortalContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeaders(secure: secure))
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: RequestBegan())
        info(router, portal)
        auth(router, portal, pages)
        self.pages(router, portal, pages, secure: secure)
        search(router, portal)
        items(router, portal)
        publish(router, portal)
        groups(router, portal)
        sync(router, portal)
        publishSync(router, portal)
        services(router, portal)
        offlineAreas(router, portal)
        signingKeys(router, portal)
        return router
    }

    /// Registers a sharing API endpoint for GET and POST: reads the parameters, finds the
    /// caller from the token, and turns every failure into the API's error JSON.
    static func endpoint(
        _ router: Router<PortalContext>, _ path: String, _ portal: Portal, methods: [HTTPRequest.Method] = [.get, .post],
        authenticates: Bool = true, _ body: @escaping @Sendable (PortalRequest, PortalContext) async throws -> Response
    ) {
        let handler: @Sendable (Request, PortalContext) async throws -> Response = { request, context in
            let isUpload = request.method == .post && (request.headers[.contentType] ?? "").lowercased().hasPrefix("multipart/")
            let handle: @Sendable (Request, ClientLeft?) async -> Response = { request, clientLeft in
                await answer(context) {
                    // Files are only for signed-in users: a multipart body without a token in
                    // the headers or the query must bring one as a field before its first file
                    // (as the arcgis client sends it), or it is refused before a byte of a file
                    // is stored. A refused body is still read to its end (and dropped): a client
                    // that sends all of it before reading the answer would otherwise wait on a
                    // full connection for good.
                    var gate: RequestParameters.FileGate?
                    if authenticates, isUpload, try await authenticate(request, RequestParameters(query: request.uri.query), portal).0 == nil {
                        gate = { fields in
                            var given = RequestParameters(query: request.uri.query)
                            given.values.merge(fields) { _, field in field }
                            guard try await authenticate(request, given, portal).0 != nil else { throw PortalError.tokenRequired }
                        }
                    }
                    let parameters = try await RequestParameters.read(
                        request, limits: portal.configuration.limits, staging: portal.files.stagingFile, beforeFile: gate)
                    defer { for file in parameters.files.values { unlink(file.path) } }
                    // Sign-in endpoints take tokens as data (`token` to revoke), not as who is calling.
                    let (user, token) = authenticates ? try await authenticate(request, parameters, portal) : (nil, nil)
                    let call = PortalRequest(
                        request: request, parameters: parameters, user: user, token: token, baseURL: baseURL(request),
                        clientAddress: clientAddress(request, socket: context.remoteAddress, trusted: portal.configuration.trustedProxies),
                        clientLeft: clientLeft)
                    return try await body(call, context)
                }
            }
            guard isUpload else { return await handle(request, nil) }
            // An upload is watched to its answer: a client killed after its last byte would
            // otherwise get an item it never learns of, and publish a second one when run
            // again. The connection closes after the answer, which says so, or the client
            // would send its next request down a closed connection.
            let clientLeft = ClientLeft()
            return try await request.body.consumeWithInboundCloseHandler { body in
                var request = request
                request.body = body
                var response = await handle(request, clientLeft)
                response.headers[.connection] = "close"
                return response
            } onInboundClosed: {
                clientLeft.set()
            }
        }
        for method in methods {
            router.on(RouterPath(path), method: method, use: handler)
        }
    }

    /// The response of `work`, or its failure as the API's error JSON.
    static func answer(_ context: PortalContext, _ work: () async throws -> Response) async -> Response {
        do {
            return try await work()
        } catch let error as PortalError {
            return PortalResponse.error(error)
        } catch let throttled as SignInThrottled {
            var response = PortalResponse.error(throttled.portalError)
            response.headers[.retryAfter] = String(throttled.retryAfter)
            return response
        } catch let error as PortalStoreError where error.kind == .database {
            // The database is down or unreachable: a clear, retryable answer; the pool
            // reconnects by itself when it is back.
            context.logger.error("store: \(error.description)")
            return PortalResponse.error(PortalError(code: 503, message: "The portal's database cannot be reached; try again shortly.", details: [error.message]))
        } catch let error as PortalStoreError where error.kind == .objectStore(.unreachable) {
            context.logger.error("files: \(error.description)")
            return PortalResponse.error(PortalError(code: 503, message: "The portal's file store cannot be reached; try again shortly.", details: [error.message]))
        } catch let error as PortalStoreError {
            context.logger.error("store: \(error.description)")
            return PortalResponse.error(PortalError(code: 500, message: "The portal could not complete the request.", details: [error.message]))
        } catch {
            context.logger.error("request failed: \(error)")
            return PortalResponse.error(PortalError(code: 500, message: "The portal could not complete the request.", details: ["\(error)"]))
        }
    }

    /// Who is asking: the socket's address, unless it is a trusted proxy, whose
    /// `X-Forwarded-For` is read from the right (the proxy's own addition) past every other
    /// trusted proxy; what a client wrote further left is never believed.
    static func clientAddress(_ request: Request, socket: String?, trusted: Set<String>) -> String? {
        guard let socket, trusted.contains(socket), let field = HTTPField.Name("X-Forwarded-For") else { return socket }
        let hops = request.headers[values: field].flatMap { $0.split(separator: ",") }.map { String($0).trimming(" \t") }.filter { !$0.isEmpty }
        return hops.reversed().first { !trusted.contains($0) } ?? socket
    }

    /// The caller: a token as the `token` parameter, or `X-Esri-Authorization: Bearer` or
    /// `Authorization: Bearer`, or else a browser session's cookie with its CSRF token
    /// (`BrowserSession.apiCaller`). A token that is presented but not valid is an error (498),
    /// never silently anonymous.
    static func authenticate(_ request: Request, _ parameters: RequestParameters, _ portal: Portal) async throws -> (UserRecord?, String?) {
        var token = parameters["token"]
        if token == nil {
            for name in ["X-Esri-Authorization", "Authorization"] {
                guard let field = HTTPField.Name(name), let value = request.headers[field] else { continue }
                let parts = value.split(separator: " ", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == "bearer" {
                    token = String(parts[1]).trimming(" \t")
                    break
                }
            }
        }
        guard let token else { return (try await BrowserSession.apiCaller(request, parameters, portal, baseURL: baseURL(request)), nil) }
        guard let (_, user) = try await portal.tokens.checkUser(token) else {
            throw PortalError.invalidToken
        }
        return (user, token)
    }

    static func baseURL(_ request: Request) -> String {
        let host = request.head.authority ?? "127.0.0.1"
        return "https://\(host)"
    }

    static func json(_ call: PortalRequest, _ value: JSONValue) -> Response {
        PortalResponse.json(value, pretty: call.pretty)
    }
}
