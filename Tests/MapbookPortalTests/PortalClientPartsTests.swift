import Foundation
import MapbookTestSupport
import Testing

@testable import MapbookPortal
@testable import MapbookPortalAPI

/// The portal client's pieces that need no portal: PKCE, form encoding, the OAuth pages,
/// ETags and Content-Range, portal URLs, multipart bodies. The client against a real portal
/// is tested end to end in MapbookCLITests/PortalClientTests.
@Suite struct PortalClientPartsTests {
    @Test func thePKCEChallengeIsTheBase64URLSHA256OfTheVerifier() {
        // The expected value is Python's: base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mJ92K9qzPrMjZpNfArOtKf9bvp6DVw")
        #expect(pkce.challenge == "iPqxwDI1eZuKxdzLJGYLV5iUIrxH6NM0rr4WKnFRk2A")
        let fresh = PKCE()
        #expect(fresh.verifier.count == 43)
        #expect(fresh.verifier != PKCE().verifier)
        #expect(fresh.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    @Test(arguments: [
        ([UInt8](), ""), (Array("f".utf8), "Zg"), (Array("fo".utf8), "Zm8"), (Array("foo".utf8), "Zm9v"), ([0xFB, 0xFF], "-_8"),
    ])
    func base64URLHasNoPaddingAndTheURLAlphabet(bytes: [UInt8], expected: String) {
        #expect(Base64URL.encode(bytes) == expected)
    }

    @Test func formEncodingEscapesEverythingButUnreservedCharacters() {
        #expect(FormEncoding.encode([("q", #"water AND type:"Mobile Map Package""#), ("a&b", "x=y+z/é")])
            == "q=water%20AND%20type%3A%22Mobile%20Map%20Package%22&a%26b=x%3Dy%2Bz%2F%C3%A9")
    }

    /// The server reads query strings and form bodies with `FormEncoding.decode`: what the
    /// client encodes comes back, `+` is a space, a broken escape stays as typed, a name that
    /// is empty or not UTF-8 is dropped, and the last of a repeated name wins.
    @Test func formDecodingReadsWhatTheEncoderWritesAndSurvivesBrokenInput() {
        let fields = [("q", #"water AND type:"Mobile Map Package""#), ("a&b", "x=y+z/é"), ("f", "json")]
        #expect(FormEncoding.decode(FormEncoding.encode(fields)) == Dictionary(uniqueKeysWithValues: fields))
        #expect(FormEncoding.decode("q=water+main&num=%31%30%30&flag&=orphan&bad=%zz%4") == ["q": "water main", "num": "100", "flag": "", "bad": "%zz%4"])
        #expect(FormEncoding.decode("%FF=1&ok=%FF&f=a&f=b") == ["ok": "", "f": "b"])
        #expect(FormEncoding.decode("&&=&%") == ["%": ""])
    }

    @Test func theSignInPageGivesItsStateAndARefusalItsMessages() {
        let form = OAuthPage(html: """
            <html><head><title>Sign In</title></head><body>
            <script>var oAuthInfo = {"oauth_state":"abc.def","client_id":"mapbook","note":"a <\\/script> inside"};</script>
            </body></html>
            """)
        #expect(form.oauthState == "abc.def")
        #expect(form.successCode == nil)
        let refused = OAuthPage(html: #"<script>var oAuthInfo = {"oauth_state":"x","messages":["Invalid username or password."]};</script>"#)
        #expect(refused.messages == ["Invalid username or password."])
        let success = OAuthPage(html: "<html><head><title>SUCCESS code=Zq9-_x</title></head><body></body></html>")
        #expect(success.successCode == "Zq9-_x")
        #expect(OAuthPage(html: "<html>Not a portal</html>").oauthState == nil)
    }

    @Test func onlyASHA256ETagIsTakenForAHash() {
        let hex = String(repeating: "ab", count: 32)
        #expect(PackageDownloader.sha256(fromETag: "\"\(hex)\"") == hex)
        #expect(PackageDownloader.sha256(fromETag: "W/\"\(hex.uppercased())\"") == hex)
        #expect(PackageDownloader.sha256(fromETag: "\"5f3a-1c\"") == nil)
        #expect(PackageDownloader.sha256(fromETag: "\"\(hex.dropLast())\"") == nil)
    }

    @Test func contentRangeIsReadWithOrWithoutATotal() {
        #expect(PackageDownloader.parseContentRange("bytes 100-199/200").map { [$0.start, $0.end, $0.total ?? -1] } == [100, 199, 200])
        #expect(PackageDownloader.parseContentRange("bytes 5-9/*").map { [$0.start, $0.end, $0.total ?? -1] } == [5, 9, -1])
        #expect(PackageDownloader.parseContentRange("bytes */200") == nil)
        #expect(PackageDownloader.parseContentRange("items 1-2/3") == nil)
    }

    @Test(arguments: [
        ("https://Portal.Example.com/portal/home/", "https://portal.example.com/portal"),
        ("https://www.arcgis.com/sharing/rest", "https://www.arcgis.com"),
        ("https://127.0.0.1:8443/", "https://127.0.0.1:8443"),
        ("https://host/gis/sharing", "https://host/gis"),
        ("https://host/homeland", "https://host/homeland"),
        ("https://home/portal/home/index.html", "https://home/portal"),
    ])
    func aPortalURLIsReducedToItsRoot(typed: String, root: String) throws {
        #expect(try PortalClient.portalRoot(typed) == root)
    }

    @Test func redirectsResolveAndTheOriginDecidesWhetherTheTokenGoes() {
        #expect(PortalClient.resolve("/sharing/x?y=1", against: "https://h:8443/a/b?c") == "https://h:8443/sharing/x?y=1")
        #expect(PortalClient.resolve("https://s3.example/k", against: "https://h/a") == "https://s3.example/k")
        #expect(PortalClient.resolve("c", against: "https://h/a/b?q") == "https://h/a/c")
        #expect(PortalClient.origin(of: "HTTPS://Host:8443/path?q") == "https://host:8443")
        #expect(PortalClient.origin(of: "https://host") == PortalClient.origin(of: "https://host/x"))
    }

    @Test func aMultipartBodyIsAsLongAsItSaysAndCarriesTheFileRange() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir + "/data.bin"
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try writeFile(path, bytes)
            let form = MultipartForm(
                fields: [("type", "Mobile Map Package"), ("title", "Water \"v2\"")],
                file: .init(field: "file", fileName: "Water.mmpk", path: path, offset: 30_000, length: 50_000))
            var body: [UInt8] = []
            for try await buffer in form { body += buffer.readableBytesView }
            // Twice: a replayed request reads the file again.
            var again: [UInt8] = []
            for try await buffer in form { again += buffer.readableBytesView }
            #expect(Int64(body.count) == form.length)
            #expect(again == body)
            let text = String(decoding: body, as: UTF8.self)
            #expect(form.contentType == "multipart/form-data; boundary=\(form.boundary)")
            #expect(text.hasPrefix("--\(form.boundary)\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nMobile Map Package\r\n"))
            #expect(text.contains("name=\"title\"\r\n\r\nWater \"v2\"\r\n"))
            #expect(text.contains("name=\"file\"; filename=\"Water.mmpk\"\r\n"))
            #expect(text.hasSuffix("\r\n--\(form.boundary)--\r\n"))
            let marker = Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
            let start = try #require(body.indices.first { body[$0...].starts(with: marker) }) + marker.count
            #expect(Array(body[start..<start + 50_000]) == Array(bytes[30_000..<80_000]))
        }
    }

    @Test func aPortalNobodyListensOnIsRefusedByTheErrorsTypeNotItsText() async throws {
        // Port 1 on the loopback: nothing listens there, so the connection is refused.
        do {
            _ = try await PortalClient.with(portalURL: "http://127.0.0.1:1") { try await $0.item("0123456789abcdef0123456789abcdef") }
            Issue.record("a request to a closed port succeeded")
        } catch let error as PortalClientError {
            #expect(error.kind == .unreachable)
            #expect(error.message.hasPrefix("connection refused"), "\(error)")
        }
    }
}
