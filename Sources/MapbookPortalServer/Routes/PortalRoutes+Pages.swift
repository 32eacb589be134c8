#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import NIOPosix

/// A page request as the page routes see it: its parameters, the browser's session, and the
/// frame every page is drawn in.
struct PageRequest: Sendable {
    var request: Request
    var parameters: RequestParameters
    var session: BrowserSession?
    var frame: PageFrame
    var baseURL: String
    var clientAddress: String?

    subscript(_ key: String) -> String? { parameters[key] }
    var user: UserRecord? { session?.user }
}

/// A page that cannot be shown, with what the visitor is told; `kind` sets the status.
struct PageError: Error {
    enum Kind { case notFound, forbidden, badRequest, unsupportedMediaType }
    var kind: Kind
    var heading: String
    var message: String

    var status: HTTPResponse.Status {
        switch kind {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .badRequest: .badRequest
        case .unsupportedMediaType: .unsupportedMediaType
        }
    }

    /// An item that does not exist and one the visitor may not see look the same.
    static let itemNotFound = PageError(kind: .notFound, heading: "Item not found", message: "This item does not exist, or you do not have access to it. Signing in may help.")
    static let csrf = PageError(
        kind: .forbidden, heading: "Request refused", message: "The form did not come from this portal's own page (its security token was missing or wrong). Go back, reload the page and try again.")
}

extension PortalRoutes {
    /// The portal's web pages under `/home` (issue 34): home, search, content, item pages,
    /// signing in and out through the portal's OAuth page, and the pages' own files.
    static func pages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages, secure: Bool) {
        for path in ["/home", "/home/index.html"] {
            page(router, path, portal, pages) { call in
                // What anyone may see, newest first, whoever is signed in.
                let anyone = ItemViewer(username: nil, isAdmin: false, groups: [])
                let intro = try await portal.store.setting("organizationDescription")
                return try await itemList(call, portal, pages, viewer: anyone, scope: nil, heading: "Public items", action: "/home/search.html", intro: intro)
            }
        }
        page(router, "/home/search.html", portal, pages, current: "Search") { call in
            let viewer = portal.viewer(call.user, groups: try await portal.memberGroups(call.user))
            return try await itemList(call, portal, pages, viewer: viewer, scope: nil, heading: "Search", action: "/home/search.html")
        }
        page(router, "/home/content.html", portal, pages, current: "Content") { call in
            guard let user = call.user else { return signInFirst(call) }
            let viewer = portal.viewer(user, groups: try await portal.memberGroups(user))
            return try await itemList(call, portal, pages, viewer: viewer, scope: user.username, heading: "My content", action: "/home/content.html")
        }
        page(router, "/home/upload.html", portal, pages, current: "Content") { call in
            try await uploadPage(call, portal, pages)
        }
        page(router, "/home/item.html", portal, pages) { call in
            try await itemPage(call, portal, pages)
        }
        page(router, "/home/items/:id/thumbnail", portal, pages) { call, context in
            let record = try await pageItem(try context.parameters.require("id"), call, portal)
            guard let path = record.item.thumbnail, PortalPaths.isInfoPath(path), let file = try await portal.files.infoFile(itemId: record.item.id, path: path) else {
                throw PageError(kind: .notFound, heading: "No thumbnail", message: "This item has no thumbnail.")
            }
            return FileResponse.send(file, from: portal.files, request: call.request, etag: nil, modified: record.item.modified, contentType: contentType(file.name), attachment: false)
        }
        page(router, "/home/items/:id/maps/:n/thumbnail", portal, pages) { call, context in
            let record = try await pageItem(try context.parameters.require("id"), call, portal)
            guard let number = Int(try context.parameters.require("n")), number >= 1, let summary = try await packageSummary(record, portal),
                number <= summary.maps.count, let image = summary.maps[number - 1].thumbnail
            else {
                throw PageError(kind: .notFound, heading: "No thumbnail", message: "This map has no thumbnail.")
            }
            return PortalResponse.bytes(image, contentType: ImageKind(image)?.mimeType ?? "application/octet-stream", name: "map\(number).png")
        }
        page(router, "/home/items/:id/data", portal, pages) { call, context in
            let record = try await pageItem(try context.parameters.require("id"), call, portal)
            guard let name = record.item.name, let file = try await portal.files.dataFile(itemId: record.item.id, version: record.dataVersion, fileName: name, size: record.item.size) else {
                throw PageError(kind: .notFound, heading: "No file", message: "This item has no file to download.")
            }
            return FileResponse.send(file, from: portal.files, request: call.request, etag: record.sha256, modified: record.item.modified, contentType: contentType(file.name), attachment: true)
        }
        page(router, "/home/items/:id/require", portal, pages, methods: [.post]) { call, context in
            try await requireVersion(call, try context.parameters.require("id"), portal)
        }
        page(router, "/home/static/:name", portal, pages) { _, context in
            guard let file = pages.files[try context.parameters.require("name")] else {
                throw PageError(kind: .notFound, heading: "Not found", message: "There is no such file.")
            }
            var headers = HTTPFields()
            headers[.contentType] = file.type
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
        }
        signInPages(router, portal, pages, secure: secure)
        adminPages(router, portal, pages)
        mapPreview(router, portal, pages)
        webMapPages(router, portal, pages)
    }

    /// Signing in (through the portal's own OAuth page, as the code grant) and out.
    static func signInPages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages, secure: Bool) {
        page(router, "/home/signin.html", portal, pages) { call in
            let next = safeNext(call["next"])
            if call.session != nil { return PortalResponse.redirect(next) }
            let state = Base64URL.random(bytes: 24)
            var query = "client_id=\(BrowserSession.clientId)&response_type=code&state=\(state)"
            query += "&redirect_uri=\(FormEncoding.percentEncode(call.baseURL + BrowserSession.callbackPath))"
            var response = PortalResponse.redirect("/sharing/oauth2/authorize?\(query)")
            // The state and where to go after, for this browser alone, for ten minutes.
            response.setCookie(BrowserSession.cookie(BrowserSession.signInCookieName, state + "." + FormEncoding.percentEncode(next), maxAge: 600, secure: secure))
            return response
        }
        page(router, BrowserSession.callbackPath, portal, pages) { call in
            let pending = call.request.cookies[BrowserSession.signInCookieName]?.value.split(separator: ".", maxSplits: 1).map(String.init) ?? []
            guard pending.count == 2, let state = call["state"], state == pending[0], let code = call["code"],
                let record = try await portal.tokens.redeemCode(code), record.clientId == BrowserSession.clientId,
                record.redirectURI == call.baseURL + BrowserSession.callbackPath, let user = try await portal.store.user(record.username)
            else {
                throw PageError(kind: .badRequest, heading: "Sign-in not completed", message: "This sign-in was not started in this browser, or it has expired. Sign in again.")
            }
            var response = PortalResponse.redirect(safeNext(FormEncoding.percentDecode(pending[1].utf8)))
            response.setCookie(try await BrowserSession.start(user, portal, secure: secure))
            response.setCookie(BrowserSession.cleared(BrowserSession.signInCookieName, secure: secure))
            return response
        }
        page(router, "/home/signout", portal, pages, methods: [.post]) { call in
            if let session = call.session {
                try requireOwnForm(call)
                try await portal.tokens.revoke(session.token)
            }
            var response = PortalResponse.redirect("/home")
            // Only a browser that sent its session clears it: another site's post, which
            // SameSite=Strict sends without the cookie, signs nobody out.
            if call.session != nil { response.setCookie(BrowserSession.cleared(BrowserSession.cookieName, secure: secure)) }
            return response
        }
    }

    /// A path on this portal's pages to go to after signing in: anything else goes home.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/home"), !next.contains("\\"), !next.contains("//"), next.utf8.count <= 2048,
            next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return "/home" }
        return next
    }

    /// A form the pages posted: with the session's CSRF token, from the portal's own page.
    static func requireOwnForm(_ call: PageRequest) throws {
        guard let session = call.session, session.accepts(call[BrowserSession.csrfParameter]), BrowserSession.fromOwnPage(call.request, baseURL: call.baseURL) else {
            throw PageError.csrf
        }
    }

    /// To the sign-in page, and back here after.
    static func signInFirst(_ call: PageRequest) -> Response {
        PortalResponse.redirect("/home/signin.html?next=\(FormEncoding.percentEncode(call.frame.path))")
    }

    /// The item for a page: not found, in the same words, when it does not exist or the
    /// visitor may not see it.
    static func pageItem(_ id: String, _ call: PageRequest, _ portal: Portal) async throws -> ItemRecord {
        // The visitor's groups are read first, so a missing item and a forbidden one take the same work.
        let groups = try await portal.memberGroups(call.user)
        guard PortalPaths.isItemId(id), let record = try await portal.store.item(id), portal.canRead(record, call.user, groups: groups) else {
            throw PageError.itemNotFound
        }
        return record
    }

    /// Registers a page for GET (HEAD follows) or `methods`: reads the parameters, finds the
    /// session, and turns a failure into an error page with its status.
    static func page(
        _ router: Router<PortalContext>, _ path: String, _ portal: Portal, _ pages: PortalPages, methods: [HTTPRequest.Method] = [.get], current: String? = nil,
        _ body: @escaping @Sendable (PageRequest, PortalContext) async throws -> Response
    ) {
        let handler: @Sendable (Request, PortalContext) async throws -> Response = { request, context in
            var frame = PageFrame(portalName: await portal.organizationName(), session: nil, path: request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""), current: current)
            do {
                // Pages take no files (uploads go to the API in parts): a multipart body is
                // refused before a byte of it is stored.
                if (request.headers[.contentType] ?? "").lowercased().hasPrefix("multipart/") {
                    throw PageError(kind: .unsupportedMediaType, heading: "Not accepted", message: "Pages take forms, not files: upload from the Upload page.")
                }
                let parameters = try await RequestParameters.read(request, limits: portal.configuration.limits, staging: portal.files.stagingFile)
                defer { for file in parameters.files.values { unlink(file.path) } }
                frame.session = try await BrowserSession.find(request, portal)
                let call = PageRequest(
                    request: request, parameters: parameters, session: frame.session, frame: frame, baseURL: baseURL(request),
                    clientAddress: clientAddress(request, socket: context.remoteAddress, trusted: portal.configuration.trustedProxies))
                return try await body(call, context)
            } catch let error as PageError {
                return errorPage(error, pages, frame)
            } catch let error as PortalError {
                return errorPage(PageError(kind: error.code == 403 ? .forbidden : .badRequest, heading: "Request refused", message: error.message), pages, frame)
            } catch let error as PortalStoreError where error.kind == .database || error.kind == .objectStore(.unreachable) {
                context.logger.error("page \(path): \(error.description)")
                var page = PortalResponse.html(pages.render("error", ["heading": "Try again shortly", "message": "The portal's storage cannot be reached just now."], frame: frame))
                page.status = .serviceUnavailable
                return page
            } catch {
                context.logger.error("page \(path) failed: \(error)")
                var page = PortalResponse.html(pages.render("error", ["heading": "Something went wrong", "message": "The portal could not show this page; try again shortly."], frame: frame))
                page.status = .internalServerError
                return page
            }
        }
        for method in methods {
            router.on(RouterPath(path), method: method, use: handler)
        }
    }

    static func page(
        _ router: Router<PortalContext>, _ path: String, _ portal: Portal, _ pages: PortalPages, methods: [HTTPRequest.Method] = [.get], current: String? = nil,
        _ body: @escaping @Sendable (PageRequest) async throws -> Response
    ) {
        page(router, path, portal, pages, methods: methods, current: current) { call, _ in try await body(call) }
    }

    static func errorPage(_ error: PageError, _ pages: PortalPages, _ frame: PageFrame) -> Response {
        PortalResponse.html(pages.render("error", ["heading": error.heading, "message": error.message], frame: frame), status: error.status)
    }
}
