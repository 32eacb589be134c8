import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPackage
import MapbookPortalAPI
import Testing

@testable import MapbookPortalServer

/// Publishing and reading: item info from the package, validation, uploads in parts, the
/// data endpoint's headers and ranges, updates, search.
@Suite struct PortalContentTests {
    @Test func aPublishedPackageTakesItsItemInfoFromThePackage() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package("Field Water.mmpk")
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let item = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice))
            // TestPackages writes title "Sample Package", tags ["test"], a WGS84 extent and a PNG thumbnail.
            #expect(item["title"]?.stringValue == "Sample Package")
            #expect(item["tags"]?.arrayValue?.compactMap(\.stringValue) == ["test"])
            #expect(item["name"]?.stringValue == "Field Water.mmpk")
            #expect(item["type"]?.stringValue == "Mobile Map Package")
            let extent = item["extent"]?.arrayValue?.map { $0.arrayValue?.compactMap(\.doubleValue) ?? [] }
            #expect(extent == [[-88.2, 41.7], [-88.1, 41.8]])
            #expect(item["size"]?.int64Value == Int64(try Data(contentsOf: URL(fileURLWithPath: file)).count))
            let thumb = try #require(item["thumbnail"]?.stringValue)
            let png = try await client.execute(uri: "/sharing/rest/content/items/\(id)/info/\(thumb)", method: .get, headers: alice)
            #expect(png.status == .ok)
            #expect(Array(png.body.readableBytesView).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(png.headers[.contentType] == "image/png")
        }
    }

    @Test func aPackageThatValidateRejectsIsRefusedWithItsFindings() async throws {
        let fixture = try await PortalFixture()
        let good = try Data(contentsOf: URL(fileURLWithPath: try fixture.package()))
        // Cut the package short: its central directory is gone.
        let broken = fixture.directory + "/Broken.mmpk"
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: broken))
        try await fixture.test { client in
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: broken)))
            let (headers, body) = PortalFixture.multipart(["f": "json", "type": "Mobile Map Package", "title": "Broken"], files: [("file", "Broken.mmpk", bytes)])
            var h = PortalFixture.headers(token: fixture.tokens["alice"])
            for field in headers { h.append(field) }
            let r = try await client.execute(uri: "/sharing/rest/content/users/alice/addItem", method: .post, headers: h, body: body)
            let error = try #require(try PortalFixture.json(r)["error"]?.objectValue)
            #expect(error["message"]?.stringValue?.contains("not valid") == true)
            let details = error["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!details.isEmpty)
            #expect(details.allSatisfy { !$0.contains("/staging/") }, "findings name the uploaded file, not the server's staging path: \(details)")
            // Nothing was created.
            let mine = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/users/alice?f=json", method: .get, headers: PortalFixture.headers(token: fixture.tokens["alice"])))
            #expect(mine["total"]?.intValue == 0)
        }
    }

    /// An upload without a token in its headers, query or fields, over a real connection by a
    /// client that sends its whole body before reading, on a blocking socket (as Python's
    /// urllib does): the answer (499, token required) comes, the client does not wait for
    /// good, and nothing is stored.
    @Test func anUploadWithoutATokenIsAnsweredAfterItsBody() async throws {
        let fixture = try await PortalFixture()
        let (headers, body) = PortalFixture.multipart(["f": "json", "title": "No token"], files: [("file", "Large.mmpk", [UInt8](repeating: 7, count: 12 << 20))])
        let head = "POST /sharing/rest/content/users/alice/addItem HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(headers[.contentType] ?? "")\r\n"
            + "Content-Length: \(body.readableBytes)\r\n\r\n"
        let request = Array(head.utf8) + Array(body.readableBytesView)
        let answer = try await PortalServer.application(portal: fixture.portal).test(.live) { client in
            let port = try #require(client.port)
            // On a thread of its own: the socket blocks, up to two minutes each way.
            return await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
                Thread { done.resume(returning: Self.sendWholeThenRead(request, port: port, seconds: 120)) }.start()
            }
        }
        #expect(answer?.contains("\"code\":499") == true, "the client waited for an answer that never came: \(answer?.prefix(300) ?? "none")")
        #expect(try await fixture.portal.store.items().isEmpty)
    }

    /// A token sent only as a field of the multipart body, before the file (as the arcgis
    /// client sends it), signs the upload in; one after the file comes too late: the upload
    /// is refused (499) before a byte of the file is stored, and a wrong one is a 498.
    @Test func aTokenAmongTheFieldsBeforeTheFileSignsTheUploadIn() async throws {
        let fixture = try await PortalFixture()
        let package = Array(try Data(contentsOf: URL(fileURLWithPath: try fixture.package())))
        let staging = fixture.portal.configuration.dataDirectory + "/staging"
        try await fixture.test { client in
            let token = try #require(fixture.tokens["alice"])
            let fields = ["f": "json", "type": "Mobile Map Package", "title": "Token in the body"]
            let (before, beforeBody) = PortalFixture.multipart(fields.merging(["token": token]) { a, _ in a }, files: [("file", "Body.mmpk", package)])
            let added = try PortalFixture.json(
                try await client.execute(uri: "/sharing/rest/content/users/alice/addItem", method: .post, headers: before, body: beforeBody))
            let id = try #require(added["id"]?.stringValue, "\(added)")
            #expect(try await fixture.portal.store.item(id)?.item.size == Int64(package.count))

            let (after, afterBody) = PortalFixture.multipart(fields, files: [("file", "Late.mmpk", package)], fieldsAfter: ["token": token])
            let late = try await client.execute(uri: "/sharing/rest/content/users/alice/addItem", method: .post, headers: after, body: afterBody)
            #expect(PortalFixture.errorCode(late) == 499)
            let (wrong, wrongBody) = PortalFixture.multipart(fields.merging(["token": "not-a-token"]) { a, _ in a }, files: [("file", "Wrong.mmpk", package)])
            let refused = try await client.execute(uri: "/sharing/rest/content/users/alice/addItem", method: .post, headers: wrong, body: wrongBody)
            #expect(PortalFixture.errorCode(refused) == 498)
        }
        #expect(try await fixture.portal.store.items().count == 1, "only the upload with its token before the file is stored")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: staging))?.isEmpty ?? true, "nothing is left staged")
    }

    /// Sends `request` whole on a blocking TCP socket to 127.0.0.1:`port`, then reads until the
    /// server closes; nil when a send or a read waits past `seconds`.
    ///
    /// The corresponding C functions are `socket`, `connect`, `send` and `recv`.
    static func sendWholeThenRead(_ request: [UInt8], port: Int, seconds: Int) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { return nil }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return nil }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return n == 0 ? String(decoding: answer, as: UTF8.self) : nil }
            answer += buffer[0..<n]
        }
    }

    @Test func anUploadInPartsIsInvisibleUntilCommitted() async throws {
        let fixture = try await PortalFixture()
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: try fixture.package())))
        let half = bytes.count / 2
        try await fixture.test { client in
            var form = PortalFixture.headers(token: fixture.tokens["alice"])
            form[.contentType] = "application/x-www-form-urlencoded"
            let added = try await client.execute(
                uri: "/sharing/rest/content/users/alice/addItem", method: .post, headers: form,
                body: PortalFixture.form(["f": "json", "type": "Mobile Map Package", "multipart": "true", "fileName": "Parts.mmpk", "title": "In parts"]))
            let id = try #require(try PortalFixture.json(added)["id"]?.stringValue)
            // Part 2 before part 1, as parallel uploads arrive.
            for (number, slice) in [(2, Array(bytes[half...])), (1, Array(bytes[..<half]))] {
                let (headers, body) = PortalFixture.multipart([:], files: [("file", "Parts.mmpk", slice)])
                var h = PortalFixture.headers(token: fixture.tokens["alice"])
                for field in headers { h.append(field) }
                let r = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/addPart?f=json&partNum=\(number)", method: .post, headers: h, body: body)
                #expect(try PortalFixture.json(r)["success"]?.boolValue == true, "\(String(buffer: r.body))")
            }
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let before = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice)
            #expect(PortalFixture.errorCode(before) == 400, "an uncommitted upload is not an item yet")
            let status = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/status?f=json", method: .get, headers: alice))
            #expect(status["status"]?.stringValue == "partial")
            let commit = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/commit", method: .post, headers: form, body: PortalFixture.form(["f": "json", "async": "True"]))
            #expect(try PortalFixture.json(commit)["success"]?.boolValue == true, "\(String(buffer: commit.body))")
            let done = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/status?f=json", method: .post, headers: alice))
            #expect(done["status"]?.stringValue == "completed")
            let data = try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: alice)
            #expect(Array(data.body.readableBytesView) == bytes)
            #expect(data.headers[.eTag] == "\"\(SHA256Digest.hex(of: bytes))\"")
            // The title given when the upload began stays; without one, the package's is taken.
            let item = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice))
            #expect(item["title"]?.stringValue == "In parts")
        }
    }

    @Test func dataSendsValidatorsAndAnswersRanges() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package("Ranges.mmpk")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let full = try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: alice)
            #expect(full.status == .ok)
            #expect(full.headers[.contentLength] == String(bytes.count))
            #expect(full.headers[.contentDisposition] == "attachment; filename=\"Ranges.mmpk\"")
            #expect(full.headers[.acceptRanges] == "bytes")
            #expect(full.headers[.lastModified]?.hasSuffix(" GMT") == true)
            let etag = try #require(full.headers[.eTag])
            func get(_ extra: HTTPFields) async throws -> TestResponse {
                var h = alice
                for field in extra { h.append(field) }
                return try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: h)
            }
            let middle = try await get([.range: "bytes=10-19"])
            #expect(middle.status == .partialContent)
            #expect(Array(middle.body.readableBytesView) == Array(bytes[10...19]))
            #expect(middle.headers[.contentRange] == "bytes 10-19/\(bytes.count)")
            let tail = try await get([.range: "bytes=-5"])
            #expect(Array(tail.body.readableBytesView) == Array(bytes.suffix(5)))
            let rest = try await get([.range: "bytes=\(bytes.count - 3)-"])
            #expect(Array(rest.body.readableBytesView) == Array(bytes.suffix(3)))
            let beyond = try await get([.range: "bytes=\(bytes.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(bytes.count)")
            let unchanged = try await get([.ifNoneMatch: etag])
            #expect(unchanged.status == .notModified)
            // A range of another version is not spliced in: the whole file comes back.
            let stale = try await get([.range: "bytes=10-19", .ifRange: "\"0000\""])
            #expect(stale.status == .ok)
            #expect(Array(stale.body.readableBytesView) == bytes)
        }
    }

    @Test func updatingTheFileBumpsModifiedAndReplacesTheData() async throws {
        let fixture = try await PortalFixture()
        let first = try fixture.package("Water.mmpk")
        let second = try fixture.package("Water v2.mmpk", timestamp: 1_800_000_000)
        let newBytes = Array(try Data(contentsOf: URL(fileURLWithPath: second)))
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: first, fields: ["title": "Water"])
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let before = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice))
            let (headers, body) = PortalFixture.multipart(["f": "json", "snippet": "Second version"], files: [("file", "Water v2.mmpk", newBytes)])
            var h = alice
            for field in headers { h.append(field) }
            let r = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/update", method: .post, headers: h, body: body)
            #expect(try PortalFixture.json(r)["success"]?.boolValue == true, "\(String(buffer: r.body))")
            let after = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: alice))
            #expect((after["modified"]?.int64Value ?? 0) > (before["modified"]?.int64Value ?? 0))
            #expect(after["title"]?.stringValue == "Water", "a title the owner set is kept")
            #expect(after["snippet"]?.stringValue == "Second version")
            #expect(after["name"]?.stringValue == "Water v2.mmpk")
            let data = try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get, headers: alice)
            #expect(Array(data.body.readableBytesView) == newBytes)
        }
    }

    @Test func searchUnderstandsTheClientsQueriesAndPages() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            for title in ["Naperville Water", "Naperville Sewer", "Aurora Water"] {
                _ = try await fixture.publish(client, as: "alice", file: file, fields: ["title": title])
            }
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let org = fixture.portal.orgId
            // What arcgis' content.search sends for query="water", item_type="Mobile Map Package".
            let q = PortalFixture.escape("water AND  (type:\"mobile map package\") accountid:\(org)")
            let water = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/search?f=json&q=\(q)&sortField=title&sortOrder=asc&num=1", method: .get, headers: alice))
            #expect(water["total"]?.intValue == 2)
            #expect(water["num"]?.intValue == 1)
            #expect(water["nextStart"]?.intValue == 2)
            #expect(water["results"]?.arrayValue?.first?.objectValue?["title"]?.stringValue == "Aurora Water")
            let page2 = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/search?f=json&q=\(q)&sortField=title&sortOrder=asc&num=1&start=2", method: .get, headers: alice))
            #expect(page2["results"]?.arrayValue?.first?.objectValue?["title"]?.stringValue == "Naperville Water")
            #expect(page2["nextStart"]?.intValue == -1)
            let bad = try await client.execute(uri: "/sharing/rest/search?f=json&q=\(PortalFixture.escape("title:(unclosed"))", method: .get, headers: alice)
            #expect(PortalFixture.errorCode(bad) == 400)
        }
    }
}
