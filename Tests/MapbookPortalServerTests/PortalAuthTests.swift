import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPortalAPI
import MapbookSupport
import Synchronization
import Testing

@testable import MapbookPortalServer

/// Signing in: generateToken, the sign-in page the `arcgis` client scrapes (implicit grant),
/// and the authorization code grant with PKCE and refresh tokens.
@Suite struct PortalAuthTests {
    static let origin = "https://127.0.0.1:8443"

    static func form(_ token: String? = nil) -> HTTPFields {
        var h = PortalFixture.headers(token: token)
        h[.contentType] = "application/x-www-form-urlencoded"
        return h
    }

    /// The `oauth_state` as the arcgis client reads it: the first `{...}` on one line.
    static func oauthInfo(_ page: String) throws -> JSONObject {
        let line = try #require(page.split(separator: "\n").first { $0.contains("{") })
        let start = try #require(line.firstIndex(of: "{")), end = try #require(line.lastIndex(of: "}"))
        return try #require(try JSONParser.parse(String(line[start...end])).objectValue)
    }

    @Test func generateTokenGivesATokenThatWorks() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            let r = try await client.execute(
                uri: "/sharing/rest/generateToken", method: .post, headers: Self.form(),
                body: PortalFixture.form(["username": "alice", "password": "alice-password", "referer": "http", "expiration": "60", "f": "json"]))
            let o = try PortalFixture.json(r)
            let token = try #require(o["token"]?.stringValue)
            #expect((o["expires"]?.int64Value ?? 0) > TokenService.now() + 50 * 60_000)
            let me = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/community/self?f=json", method: .get, headers: PortalFixture.headers(token: token)))
            #expect(me["username"]?.stringValue == "alice")
            let wrong = try await client.execute(
                uri: "/sharing/rest/generateToken", method: .post, headers: Self.form(), body: PortalFixture.form(["username": "alice", "password": "nope", "f": "json"]))
            #expect(PortalFixture.errorCode(wrong) == 400)
            let unknown = try await client.execute(
                uri: "/sharing/rest/generateToken", method: .post, headers: Self.form(), body: PortalFixture.form(["username": "mallory", "password": "nope", "f": "json"]))
            #expect(PortalFixture.errorCode(unknown) == 400)
        }
    }

    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        let millis = Mutex<Int64>(1_800_000_000_000)
        func advance(seconds: Int64) { millis.withLock { $0 += seconds * 1000 } }
        var now: Int64 { millis.withLock { $0 } }
    }

    /// Five wrong passwords for alice within the window: the sixth attempt, even with her
    /// password, is refused with the API's error shape (HTTP 200, code 429, when to retry)
    /// and a Retry-After header, on generateToken and on the OAuth sign-in page; bob is not
    /// affected; when the window has passed on the injected clock, alice signs in again.
    @Test func repeatedWrongPasswordsRefuseSignInUntilTheWindowHasPassed() async throws {
        let clock = ManualClock()
        let fixture = try await PortalFixture { $0.clock = { clock.now } }
        try await fixture.test { client in
            func generateToken(_ user: String, _ password: String) async throws -> TestResponse {
                try await client.execute(
                    uri: "/sharing/rest/generateToken", method: .post, headers: Self.form(), body: PortalFixture.form(["username": user, "password": password, "f": "json"]))
            }
            for _ in 0..<5 {
                #expect(PortalFixture.errorCode(try await generateToken("alice", "guess")) == 400)
                clock.advance(seconds: 10)
            }
            let refused = try await generateToken("alice", "alice-password")
            #expect(refused.status == .ok && PortalFixture.errorCode(refused) == 429)
            let retry = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            // The first failure was 50 s ago: free when it is 15 minutes old.
            #expect(retry == 15 * 60 - 50, "\(retry)")
            let error = try PortalFixture.json(refused)["error"]?.objectValue
            #expect(error?.string("message")?.contains("\(retry) seconds") == true, "\(String(describing: error))")
            // The OAuth sign-in form says the same and carries the header.
            let page = try await client.execute(
                uri: "/sharing/rest/oauth2/authorize?client_id=app&response_type=token&redirect_uri=urn:ietf:wg:oauth:2.0:oob", method: .get)
            let state = try #require(try Self.oauthInfo(String(buffer: page.body))["oauth_state"]?.stringValue)
            let form = try await client.execute(
                uri: "/sharing/rest/oauth2/signin", method: .post, headers: Self.form(),
                body: PortalFixture.form(["oauth_state": state, "username": "alice", "password": "alice-password"]))
            #expect(form.headers[.retryAfter] != nil && String(buffer: form.body).contains("Too many failed sign-in attempts"))
            // Another user signs in.
            #expect(try PortalFixture.json(try await generateToken("bob", "bob-password"))["token"] != nil)
            clock.advance(seconds: Int64(retry))
            #expect(try PortalFixture.json(try await generateToken("alice", "alice-password"))["token"] != nil)
        }
    }

    /// Twenty wrong passwords from one address, each for another name, refuse that address
    /// (not another); a trusted proxy's X-Forwarded-For names the client, anyone else's is
    /// ignored, and what a client wrote left of the proxy's entry is never believed.
    @Test func anAddressTryingManyAccountsIsRefusedAndOnlyTrustedProxiesNameClients() async throws {
        let clock = ManualClock()
        let fixture = try await PortalFixture { $0.clock = { clock.now } }
        for i in 0..<20 { #expect(try await fixture.portal.signIn("user\(i)", "guess", from: "203.0.113.7") == nil) }
        await #expect(throws: SignInThrottled.self) { try await fixture.portal.signIn("alice", "alice-password", from: "203.0.113.7") }
        #expect(try await fixture.portal.signIn("alice", "alice-password", from: "198.51.100.2")?.username == "alice")

        func request(_ forwarded: String?) -> Request {
            var headers = HTTPFields()
            if let forwarded { headers[HTTPField.Name("X-Forwarded-For")!] = forwarded }
            return Request(head: HTTPRequest(method: .post, scheme: "https", authority: "portal", path: "/", headerFields: headers), body: RequestBody(buffer: ByteBuffer()))
        }
        let proxies: Set<String> = ["10.0.0.5", "10.0.0.6"]
        #expect(PortalRoutes.clientAddress(request("203.0.113.7"), socket: "10.0.0.5", trusted: proxies) == "203.0.113.7")
        #expect(PortalRoutes.clientAddress(request("1.2.3.4, 203.0.113.7, 10.0.0.6"), socket: "10.0.0.5", trusted: proxies) == "203.0.113.7")
        #expect(PortalRoutes.clientAddress(request("203.0.113.7"), socket: "198.51.100.2", trusted: proxies) == "198.51.100.2")
        #expect(PortalRoutes.clientAddress(request(nil), socket: "10.0.0.5", trusted: proxies) == "10.0.0.5")
        #expect(PortalRoutes.clientAddress(request("203.0.113.7"), socket: nil, trusted: proxies) == nil)
    }

    @Test func theImplicitSignInPageWorksTheWayTheArcGISClientReadsIt() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            let q = "client_id=pythonapi&response_type=token&redirect_uri=\(PortalFixture.escape(Self.origin))&state=S2&expiration=600"
            let page = try await client.execute(uri: "/sharing/rest/oauth2/authorize?\(q)", method: .get, headers: Self.form())
            let text = String(buffer: page.body)
            #expect(!text.contains("Invalid redirect_uri"))
            let state = try #require(try Self.oauthInfo(text)["oauth_state"]?.stringValue)
            let signin = try await client.execute(
                uri: "/sharing/oauth2/signin", method: .post, headers: Self.form(),
                body: PortalFixture.form(["oauth_state": state, "username": "alice", "password": "alice-password", "expiration": "600"]))
            #expect(signin.status == .found)
            let location = try #require(signin.headers[.location])
            #expect(location.hasPrefix(Self.origin + "#"))
            let fragment = Dictionary(uniqueKeysWithValues: location.split(separator: "#")[1].split(separator: "&").map { pair -> (String, String) in
                let kv = pair.split(separator: "=", maxSplits: 1)
                return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
            })
            #expect(fragment["state"] == "S2")
            #expect(Int(fragment["expires_in"] ?? "") ?? 0 >= 3600)
            let token = try #require(fragment["access_token"])
            let me = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/community/self?f=json", method: .get, headers: PortalFixture.headers(token: token)))
            #expect(me["username"]?.stringValue == "alice")

            // A wrong password: the page again, with the message in the same object.
            let retry = try await client.execute(uri: "/sharing/rest/oauth2/authorize?\(q)", method: .get, headers: Self.form())
            let state2 = try #require(try Self.oauthInfo(String(buffer: retry.body))["oauth_state"]?.stringValue)
            let wrong = try await client.execute(
                uri: "/sharing/oauth2/signin", method: .post, headers: Self.form(), body: PortalFixture.form(["oauth_state": state2, "username": "alice", "password": "bad"]))
            #expect(wrong.status == .ok)
            #expect(try Self.oauthInfo(String(buffer: wrong.body))["messages"]?.arrayValue?.first?.stringValue == "Invalid username or password.")
            // A forged state is refused.
            let forged = try await client.execute(
                uri: "/sharing/oauth2/signin", method: .post, headers: Self.form(),
                body: PortalFixture.form(["oauth_state": state2.dropLast(3) + "AAA", "username": "alice", "password": "alice-password"]))
            #expect(forged.headers[.location] == nil)
            // Redirects elsewhere are refused.
            let evil = try await client.execute(
                uri: "/sharing/rest/oauth2/authorize?client_id=pythonapi&response_type=token&redirect_uri=\(PortalFixture.escape("https://evil.example"))", method: .get, headers: Self.form())
            #expect(String(buffer: evil.body).contains("Invalid redirect_uri"))
        }
    }

    @Test func theCodeGrantNeedsTheRightVerifierAndGivesARefreshToken() async throws {
        let fixture = try await PortalFixture()
        let verifier = "a-verifier-of-at-least-forty-three-characters-long-0123456789"
        let challenge = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
        try await fixture.test { client in
            func code() async throws -> String {
                let q = "client_id=mapbook&response_type=code&redirect_uri=\(PortalFixture.escape("urn:ietf:wg:oauth:2.0:oob"))&code_challenge=\(challenge)&code_challenge_method=S256"
                let page = try await client.execute(uri: "/sharing/rest/oauth2/authorize?\(q)", method: .get, headers: Self.form())
                let state = try #require(try Self.oauthInfo(String(buffer: page.body))["oauth_state"]?.stringValue)
                let signin = try await client.execute(
                    uri: "/sharing/oauth2/signin", method: .post, headers: Self.form(), body: PortalFixture.form(["oauth_state": state, "username": "bob", "password": "bob-password"]))
                let text = String(buffer: signin.body)
                let start = try #require(text.range(of: "<title>SUCCESS code=")), end = try #require(text.range(of: "</title>"))
                return String(text[start.upperBound..<end.lowerBound])
            }
            func exchange(_ code: String, _ verifier: String) async throws -> JSONObject {
                try PortalFixture.json(try await client.execute(
                    uri: "/sharing/rest/oauth2/token", method: .post, headers: Self.form(),
                    body: PortalFixture.form(["grant_type": "authorization_code", "client_id": "mapbook", "code": code, "code_verifier": verifier, "redirect_uri": "urn:ietf:wg:oauth:2.0:oob"])))
            }
            let wrongVerifier = try await exchange(try await code(), "not-the-verifier-not-the-verifier-not-the-verifier")
            #expect(wrongVerifier["error"] != nil)
            let c = try await code()
            let tokens = try await exchange(c, verifier)
            let access = try #require(tokens["access_token"]?.stringValue)
            let refresh = try #require(tokens["refresh_token"]?.stringValue)
            #expect(tokens["username"]?.stringValue == "bob")
            #expect(try await exchange(c, verifier)["error"] != nil, "a code works once")
            let me = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/community/self?f=json", method: .get, headers: PortalFixture.headers(token: access)))
            #expect(me["username"]?.stringValue == "bob")
            let renewed = try PortalFixture.json(try await client.execute(
                uri: "/sharing/rest/oauth2/token", method: .post, headers: Self.form(),
                body: PortalFixture.form(["grant_type": "refresh_token", "client_id": "mapbook", "refresh_token": refresh])))
            let access2 = try #require(renewed["access_token"]?.stringValue)
            #expect(access2 != access)
            // Revoking the refresh token ends renewals.
            _ = try await client.execute(uri: "/sharing/rest/oauth2/revokeToken", method: .post, headers: Self.form(), body: PortalFixture.form(["token": refresh]))
            let refused = try await client.execute(
                uri: "/sharing/rest/oauth2/token", method: .post, headers: Self.form(),
                body: PortalFixture.form(["grant_type": "refresh_token", "client_id": "mapbook", "refresh_token": refresh]))
            #expect(PortalFixture.errorCode(refused) == 498)
        }
    }

    @Test func passwordsAreStoredAsSlowHashesOnly() async throws {
        let fixture = try await PortalFixture()
        let stored = try #require(try await fixture.portal.store.user("alice")).passwordHash
        #expect(stored.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(!stored.contains("alice-password"))
        #expect(PasswordHash.verify("alice-password", against: stored))
        #expect(!PasswordHash.verify("alice-passwore", against: stored))
        #expect(!PasswordHash.verify("alice-password", against: "pbkdf2-sha256$x$zz$00"))
        // Full strength by default.
        #expect(PortalConfiguration(dataDirectory: "/tmp").passwordRounds >= 600_000)
    }
}
