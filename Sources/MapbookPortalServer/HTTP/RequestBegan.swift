import Hummingbird

/// Marks when each request began (`PortalReads.since`): the reads of a PostgreSQL portal's
/// kept copies during the request then share one catch-up with each other and with the
/// requests around it.
struct RequestBegan<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await PortalReads.$since.withValue(.now) { try await next(request, context) }
    }
}
