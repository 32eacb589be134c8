import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MapbookPortalAPI
import MapbookSupport
import Testing

@testable import MapbookPortalServer

/// The administration pages through the router (issue 34): users, groups, sharing and the
/// organization's settings, each change a CSRF-checked form that the audit log keeps.
@Suite struct PortalAdminPagesTests {
    typealias Pages = PortalPagesTests

    func post(_ client: any TestClientProtocol, _ browser: Pages.Browser, _ path: String, _ fields: [String: String], csrf: Bool = true) async throws -> TestResponse {
        var all = fields
        if csrf { all["csrf"] = browser.csrf }
        let (headers, body) = browser.form(all)
        return try await client.execute(uri: path, method: .post, headers: headers, body: body)
    }

    @Test func anAdministratorManagesUsersAndEveryChangeIsAudited() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            let root = try await Pages.signIn(client, "root")
            let alice = try await Pages.signIn(client, "alice")
            // Not for users: the pages and their forms refuse.
            #expect(try await client.execute(uri: "/home/users.html", method: .get, headers: alice.headers).status == .forbidden)
            #expect(try await post(client, alice, "/home/users", ["username": "mallory", "password": "mallory-password", "role": "org_admin"]).status == .forbidden)
            #expect(try await fixture.portal.store.user("mallory") == nil)

            // Add a user; she signs in.
            let added = try await post(client, root, "/home/users", ["username": "carol", "fullName": "Carol C", "email": "c@example.org", "password": "carol-password", "role": "org_user"])
            #expect(added.status == .found, "\(Pages.text(added))")
            let carol = try await Pages.signIn(client, "carol")
            #expect(Pages.text(try await client.execute(uri: "/home/content.html", method: .get, headers: carol.headers)).contains("Carol C"))
            // A short password or a taken name is said, not stored.
            #expect(try await post(client, root, "/home/users", ["username": "dave", "password": "short"]).status == .badRequest)
            #expect(try await post(client, root, "/home/users", ["username": "carol", "password": "another-password"]).status == .badRequest)

            // Disabling ends her session and her tokens at once, and she cannot sign in.
            let token = try await fixture.portal.tokens.issue(.access, for: "carol", seconds: 3600).token
            #expect(try await post(client, root, "/home/users/carol/disable", [:]).status == .found)
            #expect(try await client.execute(uri: "/home/content.html", method: .get, headers: carol.headers).status == .found)
            let api = try await client.execute(uri: "/sharing/rest/community/self?f=json", method: .get, headers: PortalFixture.headers(token: token))
            #expect(PortalFixture.errorCode(api) == 498)
            #expect(try await fixture.portal.signIn("carol", "carol-password", from: nil) == nil)
            #expect(try await post(client, root, "/home/users/carol/enable", [:]).status == .found)
            #expect(try await fixture.portal.signIn("carol", "carol-password", from: nil) != nil)

            // A role and a new password; the only administrator cannot demote or disable herself.
            #expect(try await post(client, root, "/home/users/carol/role", ["role": "org_admin"]).status == .found)
            #expect(try await fixture.portal.store.user("carol")?.isAdmin == true)
            #expect(try await post(client, root, "/home/users/carol/password", ["password": "carol-new-password"]).status == .found)
            #expect(try await fixture.portal.signIn("carol", "carol-new-password", from: nil) != nil)
            #expect(try await post(client, root, "/home/users/carol/role", ["role": "org_user"]).status == .found)
            #expect(try await post(client, root, "/home/users/root/role", ["role": "org_user"]).status == .badRequest)
            #expect(try await post(client, root, "/home/users/root/disable", [:]).status == .badRequest)
            #expect(try await fixture.portal.store.user("root")?.isAdmin == true)

            // Without the CSRF token nothing changes.
            for path in ["/home/users/alice/disable", "/home/users/alice/role", "/home/organization"] {
                #expect(try await post(client, root, path, ["role": "org_admin", "name": "Forged"], csrf: false).status == .forbidden, "\(path)")
            }
            #expect(try await fixture.portal.store.user("alice")?.disabled == false)

            // The log: who, what, to whom, from where, newest first; as a page for admins only.
            let log = try await fixture.portal.store.auditEntries(before: nil, limit: 100).filter { $0.target == "user carol" }
            #expect(log.map(\.action) == [
                "changed a user's role", "reset a user's password", "changed a user's role", "enabled a user", "disabled a user", "added a user",
            ])
            #expect(log.allSatisfy { $0.username == "root" && $0.target == "user carol" })
            let page = Pages.text(try await client.execute(uri: "/home/audit.html", method: .get, headers: root.headers))
            #expect(page.contains("disabled a user") && page.contains("user carol"))
            #expect(try await client.execute(uri: "/home/audit.html", method: .get, headers: alice.headers).status == .forbidden)
        }
    }

    /// Two administrators who demote each other at the same moment: one of them stays, on
    /// either store (the check and the write are one step).
    @Test func twoAdministratorsDemotingEachOtherLeaveOne() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { _ in
            _ = try await fixture.portal.setRole("alice", admin: true, by: .commandLine())
            let admins = { try await fixture.portal.store.users().filter { $0.isAdmin && !$0.disabled }.map(\.username).sorted() }
            #expect(try await admins() == ["alice", "root"])
            for round in 0..<10 {
                async let first = try? fixture.portal.setRole("root", admin: false, by: .commandLine())
                async let second = round % 2 == 0 ? (try? fixture.portal.setRole("alice", admin: false, by: .commandLine())) : (try? fixture.portal.setDisabled("alice", true, by: .commandLine()))
                let (a, b) = await (first, second)
                #expect((a == nil) != (b == nil), "exactly one of the two changes was made (round \(round))")
                #expect(try await admins().count == 1, "round \(round)")
                // Both administrators again for the next round.
                for name in ["root", "alice"] {
                    _ = try await fixture.portal.setDisabled(name, false, by: .commandLine())
                    _ = try await fixture.portal.setRole(name, admin: true, by: .commandLine())
                }
            }
        }
    }

    /// What the API changes (groups, members, sharing) is in the audit log as the pages'
    /// changes are, and so are the users `mapbook portal user add` makes; asking for what is
    /// already so records nothing.
    @Test func changesThroughTheAPIAndTheCommandLineAreAudited() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Crew Valves"])
            let alice = PortalFixture.headers(token: fixture.tokens["alice"])
            func api(_ path: String, _ fields: [String: String]) async throws -> TestResponse {
                try await client.execute(uri: "/sharing/rest/\(path)", method: .post, headers: alice, body: PortalFixture.form(fields.merging(["f": "json"]) { a, _ in a }))
            }
            #expect(try await api("community/createGroup", ["title": "API Crew", "access": "private"]).status == .ok)
            let group = try #require(try await fixture.portal.store.groups().first { $0.title == "API Crew" })
            _ = try await api("community/groups/\(group.id)/addUsers", ["users": "bob,nobody"])
            _ = try await api("community/groups/\(group.id)/addUsers", ["users": "bob"])
            _ = try await api("content/items/\(id)/share", ["groups": group.id])
            _ = try await api("content/items/\(id)/share", ["groups": group.id])
            _ = try await api("community/groups/\(group.id)/removeUsers", ["users": "bob"])
            _ = try await api("community/groups/\(group.id)/delete", [:])
            #expect(try await fixture.portal.store.group(group.id) == nil)
            #expect(try await fixture.portal.store.item(id)?.item.access == .private)

            let log = try await fixture.portal.store.auditEntries(before: nil, limit: 100)
            let byAlice = log.filter { $0.username == "alice" }
            #expect(byAlice.map(\.action) == ["deleted a group", "removed a group member", "changed an item's sharing", "added a group member", "created a group"])
            #expect(byAlice.allSatisfy { $0.target.contains("API Crew") || $0.target.contains("Crew Valves") })
            #expect(byAlice.first { $0.action == "added a group member" }?.detail == "bob")
            // The fixture's users were added as `mapbook portal user add` adds them.
            let added = log.filter { $0.action == "added a user" }
            #expect(Set(added.map(\.target)) == ["user alice", "user bob", "user root"])
            #expect(added.allSatisfy { $0.username.hasSuffix("(command line)") && $0.address != nil })
        }
    }

    /// A password reset and a disable made at the same moment both stay: each changes its own
    /// fields in one step of the store, not the whole row it read before hashing the password.
    @Test func aPasswordResetAndADisableAtOnceBothStay() async throws {
        let fixture = try await PortalFixture()
        for round in 0..<6 {
            let password = "bob-password-\(round)"
            async let reset = fixture.portal.setPassword("bob", password, by: .commandLine())
            async let disable = fixture.portal.setDisabled("bob", true, by: .commandLine())
            _ = try await (reset, disable)
            let bob = try #require(try await fixture.portal.store.user("bob"))
            #expect(bob.disabled, "round \(round): the reset undid the disable")
            #expect(PasswordHash.verify(password, against: bob.passwordHash), "round \(round): the disable undid the reset")
            _ = try await fixture.portal.setDisabled("bob", false, by: .commandLine())
        }
        #expect(try await fixture.portal.setPassword("nobody", "long-enough-password", by: .commandLine()) == nil)
    }

    @Test func groupsAndSharingFromThePages() async throws {
        let fixture = try await PortalFixture()
        let file = try fixture.package()
        try await fixture.test { client in
            let id = try await fixture.publish(client, as: "alice", file: file, fields: ["title": "Crew Valves"])
            let alice = try await Pages.signIn(client, "alice")
            let bob = try await Pages.signIn(client, "bob")
            let created = try await post(client, alice, "/home/groups", ["title": "Field Crew", "access": "private", "sharedUpdate": "true"])
            #expect(created.status == .found)
            let group = try #require(try await fixture.portal.store.groups().first { $0.title == "Field Crew" })
            #expect(group.capabilities == [GroupRecord.updateCapability] && group.owner == "alice")
            // A private group: bob does not find it until he is a member.
            #expect(try await client.execute(uri: "/home/group.html?id=\(group.id)", method: .get, headers: bob.headers).status == .notFound)
            #expect(try await post(client, bob, "/home/groups/\(group.id)/add", ["user": "bob"]).status == .notFound)
            #expect(try await post(client, alice, "/home/groups/\(group.id)/add", ["user": "bob"]).status == .found)
            #expect(Pages.text(try await client.execute(uri: "/home/groups.html", method: .get, headers: bob.headers)).contains("Field Crew"))
            #expect(try await post(client, alice, "/home/groups/\(group.id)/add", ["user": "nobody"]).status == .badRequest)

            // Sharing from the item page: bob sees the item through the group.
            #expect(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: bob.headers).status == .notFound)
            let shared = try await post(client, alice, "/home/items/\(id)/share", ["level": "private", "group_\(group.id)": "on"])
            #expect(shared.status == .found)
            #expect(try await fixture.portal.store.item(id)?.item.access == .shared)
            let seen = Pages.text(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: bob.headers))
            #expect(seen.contains("Crew Valves") && seen.contains("Groups: Field Crew"))
            // bob may not change it; alice makes it public, then private again.
            #expect(try await post(client, bob, "/home/items/\(id)/share", ["level": "public"]).status == .forbidden)
            #expect(try await post(client, alice, "/home/items/\(id)/share", ["level": "public"]).status == .found)
            #expect(try await fixture.portal.store.item(id)?.item.access == .public)
            #expect(try await post(client, alice, "/home/items/\(id)/share", ["level": "private"]).status == .found)
            #expect(try await fixture.portal.store.item(id)?.item.access == .private)
            #expect(try await client.execute(uri: "/home/item.html?id=\(id)", method: .get, headers: bob.headers).status == .notFound)

            // Its owner changes who finds it and takes away shared update, then deletes it
            // (not without ticking the box that says what that does); bob may do neither.
            #expect(try await post(client, bob, "/home/groups/\(group.id)/update", ["access": "public"]).status == .forbidden)
            #expect(try await post(client, alice, "/home/groups/\(group.id)/update", ["access": "org"]).status == .found)
            let changed = try #require(try await fixture.portal.store.group(group.id))
            #expect(changed.access == "org" && changed.capabilities.isEmpty)
            #expect(Pages.text(try await client.execute(uri: "/home/group.html?id=\(group.id)", method: .get, headers: alice.headers)).contains("Delete the group"))
            #expect(try await post(client, bob, "/home/groups/\(group.id)/delete", ["confirm": "yes"]).status == .forbidden)
            #expect(try await post(client, alice, "/home/groups/\(group.id)/delete", [:]).status == .badRequest)
            #expect(try await post(client, alice, "/home/groups/\(group.id)/delete", ["confirm": "yes"], csrf: false).status == .forbidden)
            #expect(try await fixture.portal.store.group(group.id) != nil)
            #expect(try await post(client, alice, "/home/groups/\(group.id)/delete", ["confirm": "yes"]).status == .found)
            #expect(try await fixture.portal.store.group(group.id) == nil)

            let actions = try await fixture.portal.store.auditEntries(before: nil, limit: 100).map(\.action)
            #expect(actions.filter { $0 == "changed an item's sharing" }.count == 3 && actions.contains("created a group") && actions.contains("added a group member"))
            #expect(actions.prefix(2) == ["deleted a group", "changed a group"])
        }
    }

    @Test func theOrganizationsNameIsSetFromItsPage() async throws {
        let fixture = try await PortalFixture()
        try await fixture.test { client in
            let root = try await Pages.signIn(client, "root")
            let saved = try await post(client, root, "/home/organization", ["name": "Naperville Water <GIS>", "description": "Maps for the field crews."])
            #expect(saved.status == .found)
            let home = Pages.text(try await client.execute(uri: "/home", method: .get))
            #expect(home.contains("Naperville Water &lt;GIS&gt;") && home.contains("Maps for the field crews."))
            let me = try PortalFixture.json(try await client.execute(uri: "/sharing/rest/portals/self?f=json", method: .get))
            #expect(me["name"]?.stringValue == "Naperville Water <GIS>")
            #expect(try await post(client, root, "/home/organization", ["name": ""]).status == .badRequest)
        }
    }
}
