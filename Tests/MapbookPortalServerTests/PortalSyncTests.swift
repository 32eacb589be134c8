import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookPackager
import MapbookPortalAPI
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookPortalServer

/// The sync route: an editable package gets its authoritative copy when published, only
/// users who may edit the item synchronise (owner, admin, shared update group), bad requests
/// are refused with what is wrong, and the copy goes with the item.
@Suite struct PortalSyncTests {
    /// The editable trees package, and a device's working copy of it with one edit.
    func trees(_ fixture: PortalFixture) throws -> (path: String, device: WorkingCopy) {
        let dir = fixture.directory + "/trees"
        try FileManager.default.createDirectory(atPath: dir + "/device", withIntermediateDirectories: true)
        let project = try EditableTrees.write(in: dir)
        _ = try Packager.build(try Project.load(path: project), output: dir + "/trees.mmpk", timestamp: 1_700_000_000)
        let device = try WorkingCopy(package: try MobileMapPackage(path: dir + "/trees.mmpk"), folder: dir + "/device")
        _ = try device.update(layer: "trees", fid: 2, values: [("condition", "Dead")], user: "bob", now: 1_800_000_000)
        return (dir + "/trees.mmpk", device)
    }

    func sync(_ client: any TestClientProtocol, _ id: String, token: String?, body: [UInt8]) async throws -> TestResponse {
        let (headers, form) = PortalFixture.multipart(["f": "json"], files: [("sync", "sync.json", body)])
        var h = PortalFixture.headers(token: token)
        for field in headers { h.append(field) }
        return try await client.execute(uri: "/sharing/rest/content/items/\(id)/sync", method: .post, headers: h, body: form)
    }

    @Test func onlyUsersWhoMayEditTheItemSynchronise() async throws {
        let fixture = try await PortalFixture()
        let (file, device) = try trees(fixture)
        let request = JSONWriter.bytes(try device.syncRequest().json)
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            #expect(FileManager.default.fileExists(atPath: fixture.directory + "/data/sync/\(id)/data.gpkg"), "publishing gives the item its copy")
            var alice = PortalFixture.headers(token: fixture.tokens["alice"])
            alice[.contentType] = "application/x-www-form-urlencoded"
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/share", method: .post, headers: alice, body: PortalFixture.form(["org": "true", "f": "json"]))
            // Bob sees the item but may not change it.
            let seen = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: PortalFixture.headers(token: fixture.tokens["bob"]))
            #expect(try PortalFixture.json(seen)["id"]?.stringValue == id)
            #expect(PortalFixture.errorCode(try await sync(client, id, token: fixture.tokens["bob"], body: request)) == 403)
            // A plain group does not let its members edit; a shared update group does.
            for (title, capabilities) in [("Viewers", ""), ("Crew", "updateitemcontrol")] {
                let created = try await client.execute(uri: "/sharing/rest/community/createGroup", method: .post, headers: alice, body: PortalFixture.form(["title": title, "access": "org", "capabilities": capabilities, "f": "json"]))
                let group = try #require(try PortalFixture.json(created)["group"]?.objectValue)
                #expect(group["capabilities"]?.arrayValue?.compactMap(\.stringValue) == (capabilities.isEmpty ? [] : [capabilities]))
                let groupId = try #require(group["id"]?.stringValue)
                _ = try await client.execute(uri: "/sharing/rest/community/groups/\(groupId)/addUsers", method: .post, headers: alice, body: PortalFixture.form(["users": "bob", "f": "json"]))
                _ = try await client.execute(uri: "/sharing/rest/content/users/alice/shareItems", method: .post, headers: alice, body: PortalFixture.form(["items": id, "groups": groupId, "f": "json"]))
                let answer = try await sync(client, id, token: fixture.tokens["bob"], body: request)
                if capabilities.isEmpty {
                    #expect(PortalFixture.errorCode(answer) == 403, "\(String(buffer: answer.body))")
                } else {
                    let response = try SyncResponse(json: .object(try PortalFixture.json(answer)), source: "answer")
                    #expect(response.applied && response.changes == 1 && response.generation == 1, "\(String(buffer: answer.body))")
                    #expect(response.rows.map(\.values["condition"]) == [.text("Dead")])
                }
            }
            // The anonymous are asked to sign in.
            #expect(PortalFixture.errorCode(try await sync(client, id, token: nil, body: request)) == 499)
            // The log says who.
            let copy = try SQLiteDatabase(readOnlyPath: fixture.directory + "/data/sync/\(id)/data.gpkg")
            #expect(try copy.scalar("SELECT user FROM mapbook_sync_log") == .text("bob"))
        }
    }

    @Test func badRequestsAreRefusedSayingWhatIsWrong() async throws {
        let fixture = try await PortalFixture()
        let (file, device) = try trees(fixture)
        let plain = try fixture.package()
        let request = try device.syncRequest()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let token = fixture.tokens["alice"]
            let garbage = try await sync(client, id, token: token, body: Array("{not json".utf8))
            #expect(PortalFixture.errorCode(garbage) == 400)
            let incomplete = try await sync(client, id, token: token, body: Array(#"{"replica":"r"}"#.utf8))
            #expect(try PortalFixture.json(incomplete)["error"]?.objectValue?["message"]?.stringValue?.contains("changesetId") == true, "\(String(buffer: incomplete.body))")
            // A device whose layer lost a column is told which.
            var lacking = request
            lacking.layers["trees"]?.columns.removeAll { $0.hasPrefix("dbh ") }
            let mismatch = try await sync(client, id, token: token, body: JSONWriter.bytes(lacking.json))
            #expect(PortalFixture.errorCode(mismatch) == 409)
            #expect(try PortalFixture.json(mismatch)["error"]?.objectValue?["message"]?.stringValue?.contains("'dbh REAL'") == true, "\(String(buffer: mismatch.body))")
            // A package without editable layers has nothing to synchronise.
            let other = try await fixture.publish(client, as: "alice", file: plain)
            #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/data/sync/\(other)"))
            let none = try await sync(client, other, token: token, body: JSONWriter.bytes(request.json))
            #expect(try PortalFixture.json(none)["error"]?.objectValue?["messageCode"]?.stringValue == "SYNC_0001")
            // Deleting the item deletes its copy.
            var alice = PortalFixture.headers(token: token)
            alice[.contentType] = "application/x-www-form-urlencoded"
            _ = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/delete", method: .post, headers: alice, body: PortalFixture.form(["f": "json"]))
            #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/data/sync/\(id)"))
        }
    }

    /// A new version replaces the copy while nothing was synchronised to it, and leaves it
    /// once something was: an upload never loses field edits.
    @Test func aNewVersionReplacesTheCopyBeforeAnySyncAndIsMergedAfter() async throws {
        let fixture = try await PortalFixture()
        let (file, device) = try trees(fixture)
        let request = JSONWriter.bytes(try device.syncRequest().json)
        // A second build of the same project, a tree renamed in its source.
        let dir = fixture.directory + "/trees"
        let geojson = try String(contentsOfFile: dir + "/trees.geojson", encoding: .utf8).replacingOccurrences(of: "\"ash\"", with: "\"rowan\"")
        try geojson.write(toFile: dir + "/trees.geojson", atomically: true, encoding: .utf8)
        _ = try Packager.build(try Project.load(path: dir + "/project.yaml"), output: dir + "/v2.mmpk", timestamp: 1_700_000_100)
        let v2 = Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/v2.mmpk")))
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let copy = fixture.directory + "/data/sync/\(id)/data.gpkg"
            func common3() throws -> SQLiteValue? { try SQLiteDatabase(readOnlyPath: copy).scalar("SELECT common FROM trees WHERE fid = 3") }
            func update() async throws {
                let (headers, body) = PortalFixture.multipart(["f": "json"], files: [("file", "trees.mmpk", v2)])
                var h = PortalFixture.headers(token: fixture.tokens["alice"])
                for field in headers { h.append(field) }
                let r = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/update", method: .post, headers: h, body: body)
                #expect(PortalFixture.errorCode(r) == nil, "\(String(buffer: r.body))")
            }
            #expect(try common3() == .text("ash"))
            try await update()
            #expect(try common3() == .text("rowan"), "nothing synchronised yet: the copy is the new version's data")
            // A sync, then the first version again: merged into the copy (issue 35), the
            // owner's change (the tree named back) and the field's edit both kept.
            _ = try await sync(client, id, token: fixture.tokens["alice"], body: request)
            let (headers, body) = PortalFixture.multipart(["f": "json"], files: [("file", "trees.mmpk", Array(try Data(contentsOf: URL(fileURLWithPath: file))))])
            var h = PortalFixture.headers(token: fixture.tokens["alice"])
            for field in headers { h.append(field) }
            let merged = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/update", method: .post, headers: h, body: body)
            #expect(PortalFixture.errorCode(merged) == nil, "\(String(buffer: merged.body))")
            #expect(try common3() == .text("ash"))
            #expect(try SQLiteDatabase(readOnlyPath: copy).scalar("SELECT condition FROM trees WHERE fid = 2") == .text("Dead"))
        }
    }

    /// With copies shared by several processes (PostgreSQL and S3): a process killed after it
    /// merged a sync into its cached copy but before the bucket and PostgreSQL had the result
    /// leaves a cache marked stale; the next sync there works from the current copy, so the
    /// half-done merge is never seen and the generation goes on from the current one.
    @Test(PostgresServer.required, S3Server.required)
    func aProcessKilledMidSyncLeavesTheSharedCopyAsItWas() async throws {
        let database = try PostgresServer.database()
        let (bucket, s3) = try S3Server.bucket()
        let fixture = try await PortalFixture { configuration in
            configuration.storeURL = database
            configuration.storePatience = .seconds(60)
            configuration.filesURL = bucket
            configuration.s3Endpoint = s3.endpoint
        }
        let (file, device) = try trees(fixture)
        let request = JSONWriter.bytes(try device.syncRequest().json)
        try FileManager.default.createDirectory(atPath: fixture.directory + "/other", withIntermediateDirectories: true)
        let receiving = JSONWriter.bytes(try WorkingCopy(package: try MobileMapPackage(path: file), folder: fixture.directory + "/other").syncRequest().json)
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let first = try SyncResponse(json: .object(try PortalFixture.json(try await sync(client, id, token: fixture.tokens["alice"], body: request))), source: "answer")
            #expect(first.generation == 1)
            // What a killed process leaves: its cache changed (a merge nobody stored), the
            // marker of the version it held gone.
            let cache = fixture.directory + "/data/sync/\(id)"
            try FileManager.default.removeItem(atPath: cache + "/version")
            let stale = try SQLiteDatabase(writablePath: cache + "/data.gpkg", create: false)
            try GeoPackageFunctions.register(on: stale)
            try stale.execute("UPDATE trees SET condition = 'Ghost' WHERE fid = 1")
            try stale.execute("INSERT INTO mapbook_sync_log (changeset_id, replica, user, time) VALUES ('ghost', 'r', 'u', 0)")
            try stale.close()
            let answer = try await sync(client, id, token: fixture.tokens["alice"], body: receiving)
            let second = try SyncResponse(json: .object(try PortalFixture.json(answer)), source: "answer")
            #expect(second.generation == 1, "\(String(buffer: answer.body))")
            #expect(second.rows.map(\.values["condition"]) == [.text("Dead")])
            #expect(!second.rows.contains { $0.values["condition"] == .text("Ghost") })
            #expect(try SQLiteDatabase(readOnlyPath: cache + "/data.gpkg").scalar("SELECT condition FROM trees WHERE fid = 1") != .text("Ghost"))
        }
    }
}
