import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import Mustache
import Testing

@testable import MapbookPortalServer

/// The portal's web pages through its router (issue 34): security headers on every answer,
/// signing in through the OAuth page into a cookie session, CSRF, who sees which item, and
/// text that stays text. tools/web/portal_check.py drives the same pages in Chromium.
@Suite struct PortalPagesTests {
    /// A browser's session: its cookie header and the CSRF token its pages carry.
    struct Browser {
        var cookie: String
        var csrf: String
        /// The portal's origin as the router test client reaches it.
        var origin: String

        var headers: HTTPFields {
            var headers = HTTPFields()
            headers[.cookie] = cookie
            return headers
        }

        /// A form post from the portal's own page.
        func form(_ fields: [String: String], origin: String? = nil) -> (HTTPFields, ByteBuffer) {
            var headers = self.headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            headers[HTTPField.Name("Origin")!] = origin ?? self.origin
            return (headers, PortalFixture.form(fields))
        }
    }

    /// The `Set-Cookie` value for cookie `name`, as `name=value`.
    static func cookie(_ name: String, in response: TestResponse) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }.map { String($0.split(separator: ";")[0]) }
    }

    static func location(_ response: TestResponse) -> String { response.headers[.location] ?? "" }

    /// Path and query of an absolute or relative URL.
    static func pathAndQuery(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    /// Signs `user` in as a browser does: the pages' sign-in link, the OAuth page and its form,
    /// back to the pages with a code.
    static func signIn(_ client: any TestClientProtocol, _ user: String, next: String = "/home/content.html") async throws -> Browser {
        let start = try await client.execute(uri: "/home/signin.html?next=\(PortalFixture.escape(next))", method: .get)
        #expect(start.status == .found)
        let pending = try #require(cookie(BrowserSession.signInCookieName, in: start))
        let authorize = try await client.execute(uri: pathAndQuery(location(start)), method: .get)
        let page = text(authorize)
        let stateStart = try #require(page.range(of: "name=\"oauth_state\" value=\""))
        let state = String(page[stateStart.upperBound...].prefix { $0 != "\"" })
        var headers = HTTPFields()
        headers[.contentType] = "application/x-www-form-urlencoded"
        let posted = try await client.execute(
            uri: "/sharing/oauth2/signin", method: .post, headers: headers,
            body: PortalFixture.form(["oauth_state": state.replacingOccurrences(of: "&amp;", with: "&"), "username": user, "password": "\(user)-password"]))
        #expect(posted.status == .found, "\(text(posted))")
        var back = HTTPFields()
        back[.cookie] = pending
        let callback = try await client.execute(uri: pathAndQuery(location(posted)), method: .get, headers: back)
        #expect(callback.status == .found, "\(text(callback))")
        #expect(location(callback) == next)
        let setCookie = try #require(callback.headers[values: .setCookie].first { $0.hasPrefix(BrowserSession.cookieName + "=") })
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
        #expect(setCookie.contains("Secure") == BrowserSession.onTLS)
        let session = try #require(cookie(BrowserSession.cookieName, in: callback))
        let home = try await client.execute(uri: "/home", method: .get, headers: [.cookie: session])
        let body = text(home)
        let csrfStart = try #require(body.range(of: "<meta name=\"csrf-token\" content=\""))
        let callbackURL = try #require(URLComponents(string: location(posted)))
        let origin = "\(callbackURL.scheme ?? "https")://\(callbackURL.host ?? "")" + (callbackURL.port.map { ":\($0)" } ?? "")
        return Browser(cookie: session, csrf: String(body[csrfStart.upperBound...].prefix { $0 != "\"" }), origin: origin)
    }

    /// The pages' escaping gives what swift-mustache's own HTML escaping gives, for text with
    /// and without markup, quotes, entities and other scripts.
    @Test func thePagesEscapeAsMustacheDoes() throws {
        _ = try PortalPages()
        let ours = try MustacheTemplate(string: "{{% CONTENT_TYPE: \(PageEscaping.name) }}[{{v}}]")
        let theirs = try MustacheTemplate(string: "[{{v}}]")
        for text in ["", "plain", "<script>alert(1)</script>", "a & b < c > d \" e ' f", "&amp;&lt;", "é 水 🚰 <b>", "'\"'\"<<>>&&", String(repeating: "x<", count: 500)] {
            #expect(ours.render(["v": text]) == theirs.render(["v": text]), "\(text)")
            #expect(!ours.render(["v": text]).contains("<s"))
        }
    }

    /// On TLS the session cookie has the `__Host-` prefix (and Secure): a cookie of the plain
    /// name, which a page over HTTP or a neighbouring subdomain could plant, signs nobody in.
    @Test func onTLSTheSessionCookieIsHostPrefixedAndThePlainNameIsIgnored() async throws {
        let fixture = try await PortalFixture()
        let app = Application(router: try PortalRoutes.router(fixture.portal, secure: true))
        try await app.test(.router) { client in
            let alice = try await BrowserSession.$onTLS.withValue(true) { try await Self.signIn(client, "alice") }
            #expect(alice.cookie.hasPrefix("__Host-mapbook_session="))
            #expect(try await client.execute(uri: "/home/content.html", method: .get, headers: alice.headers).status == .ok)
            let planted = String(alice.cookie.dropFirst("__Host-".count))
            #expect(try await client.execute(uri: "/home/content.html", method: .get, headers: [.cookie: planted]).status == .found)
        }
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            for (path, method) in [("/home", HTTPRequest.Method.get), ("/home", .head), ("/home/search.html?q=x", .get), ("/sharing/rest/info?f=json", .get), ("/no/such/page", .get)] {
                let r = try await client.execute(uri: path, method: method)
                let policy = r.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"), "\(path): \(policy)")
                #expect(policy.contains("frame-ancestors 'none'"), "\(path)")
                #expect(r.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
                #expect(r.headers[.xContentTypeOptions] == "nosniff", "\(path)")
                if method == .head {
                    #expect(r.status == .ok)
                    #expect(r.body.readableBytes == 0)
                }
            }
        }
    }

    @Test func theOAuthPageAllowsItsOneScriptByHash() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            let r = try await client.execute(uri: "/sharing/oauth2/authorize?client_id=app&response_type=token&redirect_uri=urn:ietf:wg:oauth:2.0:oob", method: .get)
            let page = Self.text(r)
            let open = try #require(page.range(of: "<script>")), close = try #require(page.range(of: "</script>", range: open.upperBound..<page.endIndex))
            let script = String(page[open.upperBound..<close.lowerBound])
            // The arcgis client's contract: the page's first brace opens oAuthInfo, on one line.
            #expect(script.hasPrefix("var oAuthInfo = {\"") && !script.contains("\n"))
            let brace = try #require(page.range(of: "var oAuthInfo = {")).upperBound
            #expect(page.firstIndex(of: "{") == page.index(before: brace))
            let hash = Base64.encode(Array(SHA256.hash(data: Array(script.utf8))))
            #expect((r.headers[.contentSecurityPolicy] ?? "").contains("'sha256-\(hash)'"))
            #expect(!(r.headers[.contentSecurityPolicy] ?? "").contains("unsafe-inline"))
        }
    }

    @Test func aBrowserSignsInAndSeesItsOwnPrivateItems() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Alice's Private Valves"])
            // Signed out: content asks for a sign-in, home has a sign-in link and no private item.
            let content = try await client.execute(uri: "/home/content.html", method: .get)
            #expect(content.status == .found && Self.location(content).hasPrefix("/home/signin.html?next="))
            let home = Self.text(try await client.execute(uri: "/home", method: .get))
            #expect(home.contains("Sign in") && !home.contains("Private Valves"))

            let alice = try await Self.signIn(client, "alice")
            let mine = Self.text(try await client.execute(uri: "/home/content.html", method: .get, headers: alice.headers))
            #expect(mine.contains("Alice&#39;s Private Valves") || mine.contains("Alice's Private Valves"), "\(mine)")
            #expect(mine.contains("/home/item.html?id=\(id)") && mine.contains("Sign out"))
            let item = try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers)
            #expect(item.status == .ok)
            #expect(Self.text(item).contains("The owner only"))
        }
    }

    @Test func aPrivateItemLeavesNoTraceForOthers() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Secret Valves"])
            let bob = try await Self.signIn(client, "bob")
            for headers in [bob.headers, HTTPFields()] {
                for path in ["/home", "/home/search.html?q=Secret", "/home/search.html?q=id:\(id)", "/home/content.html"] {
                    let body = Self.text(try await client.execute(uri: path, method: .get, headers: headers))
                    #expect(!body.contains("Secret") || body.contains("value=\"Secret\""), "\(path)")
                    #expect(!body.contains(id) || path.contains(id), "\(path)")
                }
                // The item, its thumbnail, its file and its maps answer as for an item that does not exist.
                let missing = String(repeating: "0", count: 32)
                for path in ["/home/item.html?id=%@", "/home/items/%@/thumbnail", "/home/items/%@/data", "/home/items/%@/maps/1/thumbnail"] {
                    let hidden = try await client.execute(uri: path.replacingOccurrences(of: "%@", with: id), method: .get, headers: headers)
                    let absent = try await client.execute(uri: path.replacingOccurrences(of: "%@", with: missing), method: .get, headers: headers)
                    #expect(hidden.status == .notFound, "\(path)")
                    #expect(Self.text(hidden).replacingOccurrences(of: id, with: missing) == Self.text(absent), "\(path)")
                }
            }
            // The owner's session does reach them.
            let alice = try await Self.signIn(client, "alice")
            #expect(try await client.execute(uri: "/home/items/\(id)/data", method: .get, headers: alice.headers).status == .ok)
        }
    }

    @Test func titlesAndDescriptionsShowAsText() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(
                client, as: "alice", file: file,
                fields: ["title": "<script>alert(1)</script>", "description": "<p>First</p><img src=x onerror=alert(2)><b>bold</b>", "tags": "<i>tag</i>", "snippet": "\"><svg onload=alert(3)>"])
            let alice = try await Self.signIn(client, "alice")
            for path in ["/home/content.html", "/home/item.html?id=\(id)", "/home/search.html?q=%3Cscript%3E"] {
                let body = Self.text(try await client.execute(uri: path, method: .get, headers: alice.headers))
                #expect(!body.contains("<script>alert") && !body.contains("<img src=x") && !body.contains("<svg") && !body.contains("<i>tag"), "\(path): \(body)")
                if !path.hasPrefix("/home/search") { #expect(body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path)") }
            }
            let item = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            #expect(item.contains("<p>First</p>") && item.contains("bold"))
        }
    }

    @Test func aSessionChangesNothingWithoutItsCSRFToken() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let alice = try await Self.signIn(client, "alice")
            // Sign-out without the token, with a wrong one, or from another site: refused, still signed in.
            for (fields, origin) in [([String: String](), alice.origin), (["csrf": "forged"], alice.origin), (["csrf": alice.csrf], "https://evil.example")] {
                let (headers, body) = alice.form(fields, origin: origin)
                let r = try await client.execute(uri: "/home/signout", method: .post, headers: headers, body: body)
                #expect(r.status == .forbidden, "\(fields) \(origin)")
                #expect(try await client.execute(uri: "/home/content.html", method: .get, headers: alice.headers).status == .ok)
            }
            // The API: the cookie alone reads as anyone, and changes nothing.
            let read = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice.headers)
            #expect(PortalFixture.errorCode(read) == 499)
            let (headers, body) = alice.form(["f": "json"])
            let delete = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/delete", method: .post, headers: headers, body: body)
            #expect(PortalFixture.errorCode(delete) == 403)
            var forged = headers
            forged[BrowserSession.csrfHeader] = alice.csrf
            forged[HTTPField.Name("Origin")!] = "https://evil.example"
            #expect(PortalFixture.errorCode(try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/delete", method: .post, headers: forged, body: PortalFixture.form(["f": "json"]))) == 403)
            #expect(try await fixture.portal.store.item(id) != nil)
            // With its token, from its own page, the session reads and acts as alice.
            var own = alice.headers
            own[BrowserSession.csrfHeader] = alice.csrf
            #expect(try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: own))["id"]?.stringValue == id)
            // Signing out with the token ends the session for pages and the API alike.
            let (outHeaders, outBody) = alice.form(["csrf": alice.csrf])
            let out = try await client.execute(uri: "/home/signout", method: .post, headers: outHeaders, body: outBody)
            #expect(out.status == .found)
            #expect(try await client.execute(uri: "/home/content.html", method: .get, headers: alice.headers).status == .found)
            #expect(PortalFixture.errorCode(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: own)) == 499)
        }
    }

    @Test func aSignInStartedElsewhereIsNotFinishedHere() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            // An attacker's own code, sent to a victim's browser (login CSRF): no sign-in cookie, refused.
            let start = try await client.execute(uri: "/home/signin.html", method: .get)
            let authorize = Self.text(try await client.execute(uri: Self.pathAndQuery(Self.location(start)), method: .get))
            let stateStart = try #require(authorize.range(of: "name=\"oauth_state\" value=\""))
            let state = String(authorize[stateStart.upperBound...].prefix { $0 != "\"" })
            var headers = HTTPFields()
            headers[.contentType] = "application/x-www-form-urlencoded"
            let posted = try await client.execute(
                uri: "/sharing/oauth2/signin", method: .post, headers: headers, body: PortalFixture.form(["oauth_state": state, "username": "bob", "password": "bob-password"]))
            let victim = try await client.execute(uri: Self.pathAndQuery(Self.location(posted)), method: .get)
            #expect(victim.status == .badRequest)
            #expect(Self.cookie(BrowserSession.cookieName, in: victim) == nil)
            // An open redirect through `next` goes home instead.
            #expect(PortalRoutes.safeNext("//evil.example/x") == "/home")
            #expect(PortalRoutes.safeNext("https://evil.example") == "/home")
            #expect(PortalRoutes.safeNext("/home/item.html?id=1") == "/home/item.html?id=1")
        }
    }

    @Test func listsPageOnTheServer() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            for i in 1...23 {
                _ = try await fixture.publish(client, as: "alice", file: file, fields: ["title": String(format: "Hydrants %02d", i)])
            }
            let alice = try await Self.signIn(client, "alice")
            let first = Self.text(try await client.execute(uri: "/home/content.html?q=hydrants&sortField=title&sortOrder=asc", method: .get, headers: alice.headers))
            #expect(first.contains("1 to 20 of 23 items"))
            #expect(first.contains("Hydrants 01") && first.contains("Hydrants 20") && !first.contains("Hydrants 21"))
            #expect(first.contains("start=21") && !first.contains("rel=\"prev\""))
            let second = Self.text(try await client.execute(uri: "/home/content.html?q=hydrants&sortField=title&sortOrder=asc&start=21", method: .get, headers: alice.headers))
            #expect(second.contains("21 to 23 of 23 items") && second.contains("Hydrants 23") && !second.contains("Hydrants 20"))
            #expect(second.contains("rel=\"prev\"") && !second.contains("rel=\"next\""))
            // A query the grammar refuses is said, not a crash.
            let bad = try await client.execute(uri: "/home/search.html?q=title%3A%28", method: .get, headers: alice.headers)
            #expect(bad.status == .ok && Self.text(bad).contains("role=\"alert\""))
        }
    }

    @Test func aPackagePageShowsItsMapsLayersAndBookmarks() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Town"])
            let alice = try await Self.signIn(client, "alice")
            let page = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            let package = try MobileMapPackage(path: file)
            #expect(!package.mapEntries.isEmpty)
            for entry in package.mapEntries {
                let map = try package.map(entry)
                #expect(page.contains(map.item.title ?? map.displayName), "\(map.displayName)")
                for layer in map.map.operationalLayers ?? [] { #expect(page.contains(layer.title ?? "Untitled layer")) }
                for bookmark in map.map.bookmarks ?? [] { #expect(page.contains(bookmark.name ?? "Untitled bookmark")) }
            }
        }
    }

    @Test func theItemPageSaysWhoHoldsWhichVersionAndAVersionCanBeRequired() async throws {
        let fixture = try await PortalFixture()
        let first = try fixture.package("Water.mmpk")
        let second = try fixture.package("Water v2.mmpk", timestamp: 1_800_000_000)
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: first, fields: ["title": "Water"])
            // bob may see it: alice shares it with everyone.
            var share = PortalFixture.headers(token: fixture.tokens["alice"])
            share[.contentType] = "application/x-www-form-urlencoded"
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/share", method: .post, headers: share, body: PortalFixture.form(["everyone": "true", "f": "json"]))
            // Two devices download version 1 (a download reports the version it brings).
            for (user, device) in [("alice", "device-aaaa-1111"), ("bob", "device-bbbb-2222")] {
                var headers = PortalFixture.headers(token: fixture.tokens[user])
                headers[Portal.deviceHeader] = device
                #expect(try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: headers).status == .ok)
            }
            // A download without a device id (a browser, curl) is history, not a device.
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: PortalFixture.headers(token: fixture.tokens["bob"]))
            let alice = try await Self.signIn(client, "alice")
            var page = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            #expect(page.contains("2 devices hold this item; all hold the current version."), "\(page)")
            #expect(page.contains("device-a") && page.contains("device-b"))

            // Version 2: both are out of date until one checks in with it.
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: second)))
            let (multipart, body) = PortalFixture.multipart(["f": "json"], files: [("file", "Water v2.mmpk", bytes)])
            var h = PortalFixture.headers(token: fixture.tokens["alice"])
            for field in multipart { h.append(field) }
            _ = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/update", method: .post, headers: h, body: body)
            page = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            #expect(page.contains("2 devices hold this item; 2 are out of date."), "\(page)")
            let modified = try #require(try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: PortalFixture.headers(token: fixture.tokens["alice"])))["modified"]?.int64Value)
            var check = PortalFixture.headers(token: fixture.tokens["bob"])
            check[Portal.deviceHeader] = "device-bbbb-2222"
            check[Portal.holdsHeader] = String(modified)
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: check)
            page = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: alice.headers))
            #expect(page.contains("2 devices hold this item; 1 is out of date."), "\(page)")
            #expect(page.contains("Downloaded the version of"))

            // Requiring the current version: the API's item says so, the audit log keeps it.
            let (formHeaders, formBody) = alice.form(["csrf": alice.csrf, "modified": String(modified)])
            let required = try await client.execute(uri: "/home/items/\(id)/require", method: .post, headers: formHeaders, body: formBody)
            #expect(required.status == .found)
            let item = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: check))
            #expect(item["mapbookRequiredModified"]?.int64Value == modified)
            let audit = try await fixture.portal.store.auditEntries(before: nil, limit: 10)
            #expect(audit.first?.action == "required a version" && audit.first?.username == "alice")
            // Without the token: refused, nothing changes.
            let (forged, forgedBody) = alice.form(["modified": "none"])
            #expect(try await client.execute(uri: "/home/items/\(id)/require", method: .post, headers: forged, body: forgedBody).status == .forbidden)
            #expect(try await fixture.portal.requiredVersion(id) == modified)
            // bob sees the item but not who holds it.
            let bob = try await Self.signIn(client, "bob")
            let bobPage = Self.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: bob.headers))
            #expect(!bobPage.contains("Devices and versions") && !bobPage.contains("device-a"))
        }
    }

    @Test func hostileRequestsToThePagesAreRefusedCalmly() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            var share = PortalFixture.headers(token: fixture.tokens["alice"])
            share[.contentType] = "application/x-www-form-urlencoded"
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/share", method: .post, headers: share, body: PortalFixture.form(["everyone": "true", "f": "json"]))
            // A map number at the edge of Int: not found, not a crash.
            for n in ["-9223372036854775808", "0", "99", "x"] {
                #expect(try await client.execute(uri: "/home/items/\(id)/maps/\(n)/thumbnail", method: .get).status == .notFound, "\(n)")
            }
            // A file posted to a page is refused before it is stored.
            let (headers, body) = PortalFixture.multipart(["csrf": "x"], files: [("file", "big.bin", Array(repeating: 7, count: 4096))])
            #expect(try await client.execute(uri: "/home/signout", method: .post, headers: headers, body: body).status == .unsupportedMediaType)
            // Another site's post reaches the sign-out without the Strict cookie: nobody is signed out.
            var form = HTTPFields()
            form[.contentType] = "application/x-www-form-urlencoded"
            let out = try await client.execute(uri: "/home/signout", method: .post, headers: form, body: PortalFixture.form([:]))
            #expect(out.status == .found && Self.cookie(BrowserSession.cookieName, in: out) == nil)
            // The pages' client cannot trade a code for API tokens.
            let grant = try await client.execute(
                uri: "/sharing/oauth2/token", method: .post, headers: form,
                body: PortalFixture.form(["grant_type": "authorization_code", "client_id": BrowserSession.clientId, "code": "anything"]))
            #expect((try PortalFixture.json(grant))["error"]?.objectValue?["messageCode"]?.stringValue == "invalid_client")
        }
    }
}

