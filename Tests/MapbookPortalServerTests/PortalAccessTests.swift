import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPortalAPI
import Testing

@testable import MapbookPortalServer

/// Who sees what: private, org, group and public items, through search, the item, its data
/// and its info files; tokens that are garbage, expired or revoked; hostile paths.
@Suite struct PortalAccessTests {
    @Test func aPrivateItemIsInvisibleToOthersEverywhere() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Alice's Water"])
            let bob = PortalFixture.headers(token: fixture.tokens["bob"])
            // Search does not list it.
            let search = try await client.execute(uri: "/sharing/rest/search?f=json&q=water&num=100", method: .get, headers: bob)
            let results = try PortalFixture.json(search)["results"]?.arrayValue ?? []
            #expect(!results.contains { $0.objectValue?["id"]?.stringValue == id })
            #expect(try PortalFixture.json(search)["total"]?.intValue == 0)
            // Item, data and info files answer CONT_0001, never the content.
            for path in ["", "/data", "/info/thumbnail/thumbnail.png"] {
                let r = try await client.execute(uri: "/sharing/rest/content/items/\(id)\(path)?f=json", method: .get, headers: bob)
                #expect(PortalFixture.errorCode(r) == 400, "\(path): \(String(buffer: r.body))")
                #expect((try PortalFixture.json(r))["error"]?.objectValue?["messageCode"]?.stringValue == "CONT_0001")
            }
            // The anonymous are told a token is required.
            let anonymous = try await client.execute(uri: "/sharing/rest/content/items/\(id)/data", method: .get)
            #expect(PortalFixture.errorCode(anonymous) == 499)
            // The owner and an admin see it.
            for user in ["alice", "root"] {
                let r = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: PortalFixture.headers(token: fixture.tokens[user]))
                #expect(try PortalFixture.json(r)["id"]?.stringValue == id, "\(user)")
            }
        }
    }

    @Test func sharingOpensTheItemToTheRightPeople() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let bob = PortalFixture.headers(token: fixture.tokens["bob"])
            func bobSees() async throws -> Bool {
                let r = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get, headers: bob)
                return try PortalFixture.json(r)["id"]?.stringValue == id
            }
            func anonymousSees() async throws -> Bool {
                let r = try await client.execute(uri: "/sharing/rest/content/items/\(id)?f=json", method: .get)
                return try PortalFixture.json(r)["id"]?.stringValue == id
            }
            // A group bob is not in: still hidden. Then bob joins: visible.
            var headers = alice
            headers[.contentType] = "application/x-www-form-urlencoded"
            let created = try await client.execute(uri: "/sharing/rest/community/createGroup", method: .post, headers: headers, body: PortalFixture.form(["title": "Crew", "access": "org", "f": "json"]))
            let group = try #require(try PortalFixture.json(created)["group"]?.objectValue?["id"]?.stringValue)
            _ = try await client.execute(uri: "/sharing/rest/content/users/alice/shareItems", method: .post, headers: headers, body: PortalFixture.form(["items": id, "groups": group, "f": "json"]))
            #expect(try await bobSees() == false)
            let groupSearch = try await client.execute(uri: "/sharing/rest/content/groups/\(group)/search?f=json&q=", method: .get, headers: bob)
            #expect(try PortalFixture.json(groupSearch)["total"]?.intValue == 0)
            _ = try await client.execute(uri: "/sharing/rest/community/groups/\(group)/addUsers", method: .post, headers: headers, body: PortalFixture.form(["users": "bob", "f": "json"]))
            #expect(try await bobSees())
            #expect(try await anonymousSees() == false)
            // Organization, then everyone, then private again.
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/share", method: .post, headers: headers, body: PortalFixture.form(["everyone": "true", "f": "json"]))
            #expect(try await anonymousSees())
            _ = try await client.execute(uri: "/sharing/rest/content/items/\(id)/unshare", method: .post, headers: headers, body: PortalFixture.form(["groups": group, "f": "json"]))
            _ = try await client.execute(uri: "/sharing/rest/content/users/alice/shareItems", method: .post, headers: headers, body: PortalFixture.form(["items": id, "everyone": "false", "org": "false", "f": "json"]))
            #expect(try await anonymousSees() == false)
            #expect(try await bobSees() == false)
            // Bob cannot share or delete alice's item.
            var bobForm = bob
            bobForm[.contentType] = "application/x-www-form-urlencoded"
            let steal = try await client.execute(uri: "/sharing/rest/content/items/\(id)/share", method: .post, headers: bobForm, body: PortalFixture.form(["everyone": "true", "f": "json"]))
            #expect(PortalFixture.errorCode(steal) != nil)
            let delete = try await client.execute(uri: "/sharing/rest/content/users/alice/items/\(id)/delete", method: .post, headers: bobForm, body: PortalFixture.form(["f": "json"]))
            #expect(PortalFixture.errorCode(delete) != nil)
            #expect(try await anonymousSees() == false)
        }
    }

    @Test func badTokensAreRefusedNotTreatedAsAnonymous() async throws {
        let fixture = try await PortalFixture()
        let expired = try await fixture.portal.tokens.issue(.access, for: "alice", seconds: -10).token
        let revoked = try await fixture.portal.tokens.issue(.access, for: "alice", seconds: 3600).token
        try await fixture.portal.tokens.revoke(revoked)
        try await fixture.test { client in
            for token in ["garbage", expired, revoked, "None"] {
                for headers in [PortalFixture.headers(token: token), [.authorization: "Bearer \(token)"] as HTTPFields] {
                    let r = try await client.execute(uri: "/sharing/rest/search?f=json&q=", method: .get, headers: headers)
                    #expect(PortalFixture.errorCode(r) == 498, "\(token): \(String(buffer: r.body))")
                    #expect(r.status == .ok)
                }
                let asParameter = try await client.execute(uri: "/sharing/rest/portals/self?f=json&token=\(token)", method: .get)
                #expect(PortalFixture.errorCode(asParameter) == 498)
            }
            // A good token works in each of the three places.
            let good = fixture.tokens["alice"]!
            for (uri, headers) in [
                ("/sharing/rest/community/self?f=json&token=\(good)", HTTPFields()),
                ("/sharing/rest/community/self?f=json", PortalFixture.headers(token: good)),
                ("/sharing/rest/community/self?f=json", [.authorization: "Bearer \(good)"] as HTTPFields),
            ] {
                let r = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(try PortalFixture.json(r)["username"]?.stringValue == "alice")
            }
        }
    }

    @Test func hostilePathsNeverReachFiles() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file)
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            let paths = [
                "/sharing/rest/content/items/\(id)/info/../../../portal.sqlite",
                "/sharing/rest/content/items/\(id)/info/..%2f..%2f..%2fportal.sqlite",
                "/sharing/rest/content/items/\(id)/info/%2fetc%2fpasswd",
                "/sharing/rest/content/items/\(id)/info//etc/passwd",
                "/sharing/rest/content/items/..%2f..%2fportal.sqlite/data",
                "/sharing/rest/content/items/%2e%2e/data",
                "/sharing/rest/content/items/\(id)%2f..%2f..%2fportal.sqlite/data",
                "/sharing/rest/content/items/../../portal.sqlite",
            ]
            for path in paths {
                let r = try await client.execute(uri: path, method: .get, headers: alice)
                let bytes = Array(r.body.readableBytesView)
                #expect(!bytes.starts(with: Array("SQLite format".utf8)), "\(path) served the database")
                #expect(!String(decoding: bytes, as: UTF8.self).contains("root:x:0"), "\(path) served /etc/passwd")
                #expect(r.status != .ok || PortalFixture.errorCode(r) != nil, "\(path): \(r.status)")
            }
        }
    }
}
