import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPortalAPI
import MapbookSupport
import MapbookTestSupport

@testable import MapbookPortalServer

/// A portal in a temporary folder with three users (alice and bob, and an admin), tested
/// through its router without sockets.
final class PortalFixture: @unchecked Sendable {
    let directory: String
    let portal: Portal
    var tokens: [String: String] = [:]

    /// `configure` changes the portal's settings (an injected clock, limits) before it opens.
    init(configure: (inout PortalConfiguration) -> Void = { _ in }) async throws {
        directory = NSTemporaryDirectory() + "mapbook-portal-test-\(UUID().uuidString.prefix(8))"
        var configuration = PortalConfiguration(dataDirectory: directory + "/data")
        // Key derivation at full strength takes seconds in a debug build; tests need speed.
        configuration.passwordRounds = 1_000
        // MAPBOOK_TEST_PORTAL_STORE=postgres runs the portal's tests on PostgreSQL (make test
        // runs them on both stores).
        if ProcessInfo.processInfo.environment["MAPBOOK_TEST_PORTAL_STORE"] == "postgres" {
            configuration.storeURL = try PostgresServer.database()
            // A loaded test machine is slow, not down.
            configuration.storePatience = .seconds(60)
        }
        // MAPBOOK_TEST_PORTAL_FILES=s3 keeps the item files in a bucket of a real S3 server
        // (make test runs them on PostgreSQL and S3 too).
        if ProcessInfo.processInfo.environment["MAPBOOK_TEST_PORTAL_FILES"] == "s3" {
            let (bucket, server) = try S3Server.bucket()
            configuration.filesURL = bucket
            configuration.s3Endpoint = server.endpoint
        }
        configure(&configuration)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        portal = try await Portal.open(configuration)
        for (name, admin) in [("alice", false), ("bob", false), ("root", true)] {
            _ = try await portal.setUser(name, password: "\(name)-password", admin: admin, by: .commandLine())
            tokens[name] = try await portal.tokens.issue(.access, for: name, seconds: 3600).token
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` with a client of the portal's router.
    func test<T: Sendable>(_ body: @Sendable (any TestClientProtocol) async throws -> T) async throws -> T {
        let app = try PortalServer.application(portal: portal)
        return try await app.test(.router) { client in try await body(client) }
    }

    static func headers(token: String?) -> HTTPFields {
        var headers = HTTPFields()
        if let token { headers[HTTPField.Name("X-Esri-Authorization")!] = "Bearer \(token)" }
        return headers
    }

    /// A form POST, as the clients send them.
    static func form(_ fields: [String: String]) -> ByteBuffer {
        ByteBuffer(string: fields.map { "\(escape($0.key))=\(escape($0.value))" }.joined(separator: "&"))
    }

    static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s
    }

    /// A multipart/form-data body with text fields, files (field name, file name, bytes), and
    /// `fieldsAfter` after the files.
    static func multipart(
        _ fields: [String: String], files: [(field: String, name: String, bytes: [UInt8])], fieldsAfter: [String: String] = [:]
    ) -> (HTTPFields, ByteBuffer) {
        let boundary = "----mapbook-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        for (k, v) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n".utf8)
        }
        for f in files {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(f.field)\"; filename=\"\(f.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            body += f.bytes
            body += Array("\r\n".utf8)
        }
        for (k, v) in fieldsAfter {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(k)\"\r\n\r\n\(v)\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
        return (headers, ByteBuffer(bytes: body))
    }

    /// The JSON of a response (every API answer is JSON, errors included).
    static func json(_ response: TestResponse) throws -> JSONObject {
        let value = try JSONParser.parse(Array(response.body.readableBytesView))
        guard case .object(let o) = value else { throw PortalError.badRequest("not a JSON object: \(String(buffer: response.body))") }
        return o
    }

    static func errorCode(_ response: TestResponse) -> Int? {
        (try? json(response))?["error"]?.objectValue?["code"]?.intValue
    }

    /// Publishes a file as `user` in one multipart request; returns the new item's id.
    func publish(_ client: any TestClientProtocol, as user: String, file: String, fields: [String: String] = [:]) async throws -> String {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        var all = ["f": "json", "type": "Mobile Map Package"]
        for (k, v) in fields { all[k] = v }
        let (headers, body) = Self.multipart(all, files: [("file", (file as NSString).lastPathComponent, bytes)])
        var h = Self.headers(token: tokens[user])
        for field in headers { h.append(field) }
        let response = try await client.execute(uri: "/sharing/rest/content/users/\(user)/addItem", method: .post, headers: h, body: body)
        let o = try Self.json(response)
        guard let id = o["id"]?.stringValue else { throw PortalError.badRequest("addItem failed: \(String(buffer: response.body))") }
        return id
    }

    /// A small valid package written into the fixture's folder.
    func package(_ name: String = "Sample.mmpk", timestamp: Int64 = 1_795_305_600) throws -> String {
        try TestPackages.makePackage(in: directory, name: name, timestamp: timestamp)
    }
}
