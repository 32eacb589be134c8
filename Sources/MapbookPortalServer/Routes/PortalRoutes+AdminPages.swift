import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// The administration pages (issue 34): the organization's settings, users (add, role,
    /// password, disable), groups (create, members) and an item's sharing, each change a form
    /// with the CSRF token and, when made, a line of the audit log; the log itself.
    static func adminPages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        page(router, "/home/organization.html", portal, pages, current: "Organization") { call in
            let admin = try requireAdmin(call)
            let users = try await portal.store.users()
            let values: [String: Any] = [
                "csrf": call.session?.csrf ?? "", "name": await portal.organizationName(), "description": try await portal.store.setting("organizationDescription") ?? "",
                "userCount": String(users.count), "adminCount": String(users.filter(\.isAdmin).count), "disabledCount": String(users.filter(\.disabled).count),
                "groupCount": String(try await portal.store.groups().count), "orgId": portal.orgId,
            ]
            _ = admin
            return PortalResponse.html(pages.render("organization", values, frame: call.frame))
        }
        page(router, "/home/organization", portal, pages, methods: [.post]) { call in
            try requireOwnForm(call)
            let admin = try requireAdmin(call)
            let name = (call["name"] ?? "").trimmingWhitespace(), description = (call["description"] ?? "").trimmingWhitespace()
            guard !name.isEmpty, name.utf8.count <= 120, description.utf8.count <= 2000 else {
                throw PageError(kind: .badRequest, heading: "Not saved", message: "The name needs 1 to 120 bytes and the home page text at most 2000.")
            }
            try await portal.store.setSetting("organizationName", name)
            try await portal.store.setSetting("organizationDescription", description)
            try await portal.audit(AuditActor(admin, address: call.clientAddress), "changed the organization's settings", "organization", "name '\(name)'")
            return PortalResponse.redirect("/home/organization.html")
        }
        page(router, "/home/audit.html", portal, pages, current: "Organization") { call in
            _ = try requireAdmin(call)
            let before = call["before"].flatMap { Int64($0) }
            let entries = try await portal.store.auditEntries(before: before, limit: 100)
            var values: [String: Any] = [
                "entries": entries.map {
                    ["at": ISODate.formatMinutes(milliseconds: $0.at) + " UTC", "user": $0.username, "action": $0.action, "target": $0.target, "address": $0.address ?? "", "detail": $0.detail]
                },
            ]
            if entries.count == 100, let last = entries.last { values["older"] = "/home/audit.html?before=\(last.sequence)" }
            return PortalResponse.html(pages.render("audit", values, frame: call.frame))
        }
        userPages(router, portal, pages)
        groupPages(router, portal, pages)
        page(router, "/home/items/:id/share", portal, pages, methods: [.post]) { call, context in
            try requireOwnForm(call)
            let record = try await pageItem(try context.parameters.require("id"), call, portal)
            guard let user = call.user, portal.canWrite(record, user) else {
                throw PageError(kind: .forbidden, heading: "Not yours to share", message: "Only the item's owner or an administrator can change its sharing.")
            }
            let level = call["level"] ?? "private"
            guard ["private", "org", "public"].contains(level) else { throw PageError(kind: .badRequest, heading: "Not saved", message: "Sharing is private, org or public.") }
            var adding: [String] = [], removing: [String] = []
            for group in try await portal.store.groups() where portal.mayShare(with: group, user) {
                let checked = call["group_\(group.id)"] == "on"
                if checked, !record.groups.contains(group.id) { adding.append(group.id) }
                if !checked, record.groups.contains(group.id) { removing.append(group.id) }
            }
            let (shared, _) = try await portal.share(
                record, by: user, from: call.clientAddress, adding: adding, removing: removing, everyone: level == "public", org: level == "org")
            return PortalResponse.redirect("/home/item.html?id=\(shared.item.id)#sharing")
        }
    }

    /// The signed-in administrator, or a refusal.
    static func requireAdmin(_ call: PageRequest) throws -> UserRecord {
        guard let user = call.user else { throw PageError(kind: .forbidden, heading: "Sign in first", message: "This page is for the organization's administrators: sign in.") }
        guard user.isAdmin else { throw PageError(kind: .forbidden, heading: "For administrators", message: "This page is for the organization's administrators.") }
        return user
    }

    /// The sharing form of an item page: who sees it, and the groups the user may share with.
    static func sharingValues(_ record: ItemRecord, _ user: UserRecord, _ call: PageRequest, _ portal: Portal) async throws -> [String: Any] {
        let level = record.item.access == .public ? "public" : record.item.access == .org ? "org" : "private"
        let groups = try await portal.store.groups().filter { portal.mayShare(with: $0, user) || record.groups.contains($0.id) && portal.canSee($0, user) }
        return [
            "action": "/home/items/\(record.item.id)/share", "csrf": call.session?.csrf ?? "",
            "levels": [("private", "The owner and the groups below"), ("org", "The organization"), ("public", "Everyone")].map {
                ["value": $0.0, "label": $0.1, "selected": $0.0 == level] as [String: Any]
            },
            "groups": groups.sorted { $0.title.lowercased() < $1.title.lowercased() }.map { ["id": $0.id, "title": $0.title, "checked": record.groups.contains($0.id)] as [String: Any] },
            "has_groups": !groups.isEmpty,
        ]
    }
}
