import Hummingbird
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// Users, for administrators: the list, adding one, and one user's role, password and access.
    static func userPages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        page(router, "/home/users.html", portal, pages, current: "Organization") { call in
            _ = try requireAdmin(call)
            let users = try await portal.store.users()
            let values: [String: Any] = [
                "csrf": call.session?.csrf ?? "", "count": Format.count(users.count, "user"),
                "users": users.map {
                    [
                        "username": $0.username, "fullName": $0.fullName, "email": $0.email, "role": Portal.roleLabel($0), "status": $0.disabled ? "Disabled" : "Active",
                        "href": "/home/user.html?name=\(FormEncoding.percentEncode($0.username))",
                    ]
                },
            ]
            return PortalResponse.html(pages.render("users", values, frame: call.frame))
        }
        page(router, "/home/users", portal, pages, methods: [.post]) { call in
            try requireOwnForm(call)
            let admin = try requireAdmin(call)
            let name = call["username"] ?? ""
            guard try await portal.store.user(name) == nil else {
                throw PageError(kind: .badRequest, heading: "Not added", message: "There is already a user '\(name)'.")
            }
            let user: UserRecord
            do {
                user = try await portal.setUser(
                    name, password: call["password"] ?? "", admin: call["role"] == "org_admin", fullName: call["fullName"].flatMap { $0.isEmpty ? nil : $0 },
                    email: call["email"], by: AuditActor(admin, address: call.clientAddress))
            } catch let error as PortalStoreError where error.kind == .invalidName || error.kind == .weakPassword {
                throw PageError(kind: .badRequest, heading: "Not added", message: error.message)
            }
            return PortalResponse.redirect("/home/user.html?name=\(FormEncoding.percentEncode(user.username))")
        }
        page(router, "/home/user.html", portal, pages, current: "Organization") { call in
            _ = try requireAdmin(call)
            guard let user = try await portal.store.user(call["name"] ?? "") else {
                throw PageError(kind: .notFound, heading: "No such user", message: "There is no user by that name.")
            }
            let groups = try await portal.store.groups().filter { $0.members.contains { $0.lowercased() == user.username.lowercased() } }.map(\.title)
            let owned = try await portal.store.searchItems(
                ItemSearch(query: try ItemQuery.parse("owner:\"\(user.username)\""), viewer: portal.viewer(call.user, groups: []), group: nil, sort: ItemSort(keys: [.modified]), page: SearchPage(start: 1, num: 0)))
            let values: [String: Any] = [
                "csrf": call.session?.csrf ?? "", "username": user.username, "fullName": user.fullName, "email": user.email.isEmpty ? "none given" : user.email,
                "role": Portal.roleLabel(user), "isAdmin": user.isAdmin, "status": user.disabled ? "Disabled: cannot sign in" : "Active", "disabled": user.disabled,
                "created": ISODate.formatMinutes(milliseconds: user.created) + " UTC", "groups": groups.isEmpty ? "none" : groups.joined(separator: ", "),
                "itemCount": Format.count(owned.total, "item"), "itemsHref": "/home/search.html?q=\(FormEncoding.percentEncode("owner:\"\(user.username)\""))",
                "base": "/home/users/\(FormEncoding.percentEncode(user.username))",
            ]
            return PortalResponse.html(pages.render("user", values, frame: call.frame))
        }
        for action in ["role", "password", "disable", "enable"] {
            page(router, "/home/users/:name/\(action)", portal, pages, methods: [.post]) { call, context in
                try requireOwnForm(call)
                let admin = try requireAdmin(call)
                guard let user = try await portal.store.user(try context.parameters.require("name")) else {
                    throw PageError(kind: .notFound, heading: "No such user", message: "There is no user by that name.")
                }
                let actor = AuditActor(admin, address: call.clientAddress)
                switch action {
                case "role":
                    _ = try await portal.setRole(user.username, admin: call["role"] == "org_admin", by: actor)
                case "password":
                    do {
                        _ = try await portal.setPassword(user.username, call["password"] ?? "", by: actor)
                    } catch let error as PortalStoreError where error.kind == .weakPassword {
                        throw PageError(kind: .badRequest, heading: "Not changed", message: error.message)
                    }
                default:
                    _ = try await portal.setDisabled(user.username, action == "disable", by: actor)
                }
                return PortalResponse.redirect("/home/user.html?name=\(FormEncoding.percentEncode(user.username))")
            }
        }
    }

    /// Groups: those the visitor may find, creating one, and one group's members.
    static func groupPages(_ router: Router<PortalContext>, _ portal: Portal, _ pages: PortalPages) {
        page(router, "/home/groups.html", portal, pages, current: "Groups") { call in
            guard let user = call.user else { return signInFirst(call) }
            let groups = try await portal.store.groups().filter { portal.canSee($0, user) }.sorted { $0.title.lowercased() < $1.title.lowercased() }
            let values: [String: Any] = [
                "csrf": call.session?.csrf ?? "", "count": Format.count(groups.count, "group"),
                "groups": groups.map {
                    [
                        "title": $0.title, "owner": $0.owner, "access": Portal.groupAccessLabel($0.access), "members": String($0.members.count),
                        "update": $0.capabilities.contains(GroupRecord.updateCapability) ? "yes" : "no", "href": "/home/group.html?id=\($0.id)",
                    ]
                },
            ]
            return PortalResponse.html(pages.render("groups", values, frame: call.frame))
        }
        page(router, "/home/groups", portal, pages, methods: [.post]) { call in
            try requireOwnForm(call)
            guard let user = call.user else { return signInFirst(call) }
            let group: GroupRecord
            do {
                group = try await portal.createGroup(
                    by: user, from: call.clientAddress, title: (call["title"] ?? "").trimmingWhitespace(), access: call["access"] ?? "private",
                    capabilities: call["sharedUpdate"] == "true" ? [GroupRecord.updateCapability] : [])
            } catch let error as PortalError {
                throw PageError(kind: .badRequest, heading: "Not created", message: ([error.message] + error.details).joined(separator: " "))
            }
            return PortalResponse.redirect("/home/group.html?id=\(group.id)")
        }
        page(router, "/home/group.html", portal, pages, current: "Groups") { call in
            let group = try await pageGroup(call["id"] ?? "", call, portal)
            let canManage = call.user.map { $0.isAdmin || $0.username.lowercased() == group.owner.lowercased() } ?? false
            let items = try await portal.store.searchItems(
                ItemSearch(query: try ItemQuery.parse(""), viewer: portal.viewer(call.user, groups: try await portal.memberGroups(call.user)), group: group.id,
                           sort: ItemSort(keys: [.modified]), page: SearchPage(start: 1, num: 0)))
            let base = "/home/groups/\(group.id)"
            let values: [String: Any] = [
                "title": group.title, "owner": group.owner, "access": Portal.groupAccessLabel(group.access), "canManage": canManage, "base": base,
                "update": group.capabilities.contains(GroupRecord.updateCapability) ? "yes: members may synchronise edits to its items" : "no",
                "itemCount": Format.count(items.total, "item"), "itemsHref": "/home/search.html?q=\(FormEncoding.percentEncode("group:\(group.id)"))",
                "csrf": call.session?.csrf ?? "", "sharedUpdate": group.capabilities.contains(GroupRecord.updateCapability),
                "accessOptions": ["private", "org", "public"].map { ["value": $0, "label": Portal.groupAccessLabel($0), "selected": $0 == group.access] as [String: Any] },
                "members": group.members.map { name in
                    let isOwner = name.lowercased() == group.owner.lowercased()
                    return ["name": name, "isOwner": isOwner, "canRemove": canManage && !isOwner] as [String: Any]
                },
            ]
            return PortalResponse.html(pages.render("group", values, frame: call.frame))
        }
        for action in ["add", "remove", "update", "delete"] {
            page(router, "/home/groups/:id/\(action)", portal, pages, methods: [.post]) { call, context in
                try requireOwnForm(call)
                let group = try await pageGroup(try context.parameters.require("id"), call, portal)
                guard let user = call.user, user.isAdmin || user.username.lowercased() == group.owner.lowercased() else {
                    throw PageError(kind: .forbidden, heading: "Not yours to change", message: "Only the group's owner or an administrator can change it.")
                }
                switch action {
                case "update":
                    _ = try await portal.updateGroup(group, access: call["access"] ?? group.access, sharedUpdate: call["sharedUpdate"] == "true", by: user, from: call.clientAddress)
                case "delete":
                    guard call["confirm"] == "yes" else { throw PageError(kind: .badRequest, heading: "Not deleted", message: "Tick the box that says what deleting does, then delete.") }
                    try await portal.deleteGroup(group, by: user, from: call.clientAddress)
                    return PortalResponse.redirect("/home/groups.html")
                default:
                    let name = (call["user"] ?? "").trimmingWhitespace()
                    let (_, unknown) = try await portal.changeMembers(of: group, [name], adding: action == "add", by: user, from: call.clientAddress)
                    guard unknown.isEmpty else { throw PageError(kind: .badRequest, heading: "Not changed", message: "There is no user '\(name)'.") }
                }
                return PortalResponse.redirect("/home/group.html?id=\(group.id)")
            }
        }
    }

    /// The group for a page: not found, in the same words, when it does not exist or the
    /// visitor may not find it.
    static func pageGroup(_ id: String, _ call: PageRequest, _ portal: Portal) async throws -> GroupRecord {
        guard PortalPaths.isItemId(id), let group = try await portal.store.group(id), portal.canSee(group, call.user) else {
            throw PageError(kind: .notFound, heading: "Group not found", message: "This group does not exist, or you may not see it.")
        }
        return group
    }
}
