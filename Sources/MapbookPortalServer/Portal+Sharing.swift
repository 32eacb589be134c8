import MapbookPortalAPI
import MapbookSupport

/// Sharing items and keeping groups: the rules the API's `share`, `createGroup`, `addUsers`,
/// `removeUsers` and `delete` and the web pages' forms share (issue 34). Each change is kept
/// in the audit log here, with the address it came `from`, whichever way it was made.
extension Portal {
    /// Whether `user` may share items with `group`: its members, its owner, and admins.
    func mayShare(with group: GroupRecord, _ user: UserRecord) -> Bool {
        user.isAdmin || group.owner.lowercased() == user.username.lowercased() || group.members.contains { $0.lowercased() == user.username.lowercased() }
    }

    /// Shares `record` with the groups `adding` and no longer with `removing` (those `user`
    /// may not share with are returned, untouched), and sets who else sees it: everyone,
    /// the organization, or (false) neither; nil leaves it. Saves and returns the item.
    func share(
        _ record: ItemRecord, by user: UserRecord, from address: String?, adding: [String], removing: [String], everyone: Bool?, org: Bool?
    ) async throws -> (record: ItemRecord, refused: [String]) {
        let before = record
        var record = record
        var refused: [String] = []
        var groups = Set(record.groups)
        for (id, add) in adding.map({ ($0, true) }) + removing.map({ ($0, false) }) {
            guard PortalPaths.isItemId(id), let group = try await store.group(id), mayShare(with: group, user) else {
                refused.append(id)
                continue
            }
            if add { groups.insert(id) } else { groups.remove(id) }
        }
        if everyone == true {
            record.item.access = .public
        } else if org == true {
            record.item.access = .org
        } else if everyone == false || org == false {
            record.item.access = groups.isEmpty ? .private : .shared
        }
        if record.item.access == .private, !groups.isEmpty { record.item.access = .shared }
        if record.item.access == .shared, groups.isEmpty { record.item.access = .private }
        record.groups = groups.sorted()
        guard record.item.access != before.item.access || record.groups != before.groups.sorted() else { return (record, refused) }
        try await store.saveItem(record)
        try await audit(
            AuditActor(user, address: address), "changed an item's sharing", "item \(record.item.id) '\(record.item.title)'",
            "\(record.item.access.rawValue), \(Format.count(record.groups.count, "group"))")
        return (record, refused)
    }

    /// A new group owned by `user`, its first member; refused with a `PortalError` when the
    /// title is empty, too long or taken, or the access or a capability is unknown.
    func createGroup(
        by user: UserRecord, from address: String?, title: String, access: String, capabilities: [String], snippet: String? = nil, description: String? = nil, tags: [String] = []
    ) async throws -> GroupRecord {
        guard !title.isEmpty, title.utf8.count <= 250 else { throw PortalError.badRequest("A group needs a title of at most 250 bytes.") }
        guard !(try await store.groups().contains(where: { $0.title.lowercased() == title.lowercased() })) else {
            throw PortalError.badRequest("A group named '\(title)' already exists.", details: [title])
        }
        guard ["private", "org", "public"].contains(access) else { throw PortalError.badRequest("access must be private, org or public.") }
        guard capabilities.allSatisfy({ $0 == GroupRecord.updateCapability }) else {
            throw PortalError.badRequest("The only group capability is \(GroupRecord.updateCapability).", details: capabilities)
        }
        let now = TokenService.now()
        let group = GroupRecord(
            id: TokenService.newId(), title: title, owner: user.username, snippet: snippet, description: description, tags: tags, access: access,
            created: now, modified: now, members: [user.username], capabilities: capabilities)
        try await store.saveGroup(group)
        try await audit(AuditActor(user, address: address), "created a group", Self.auditName(group), Self.groupAccessLabel(access))
        return group
    }

    /// Adds (or removes) the users `names` to `group`; the owner stays. Returns the group as
    /// saved and the names that are no user.
    func changeMembers(
        of group: GroupRecord, _ names: [String], adding: Bool, by user: UserRecord, from address: String?
    ) async throws -> (group: GroupRecord, unknown: [String]) {
        var group = group
        var unknown: [String] = [], changed: [String] = []
        for name in names {
            guard let member = try await store.user(name) else {
                unknown.append(name)
                continue
            }
            let isMember = group.members.contains { $0.lowercased() == member.username.lowercased() }
            if adding, !isMember {
                group.members.append(member.username)
                changed.append(member.username)
            } else if !adding, isMember, member.username.lowercased() != group.owner.lowercased() {
                group.members.removeAll { $0.lowercased() == member.username.lowercased() }
                changed.append(member.username)
            }
        }
        guard !changed.isEmpty else { return (group, unknown) }
        group.modified = TokenService.now()
        try await store.saveGroup(group)
        let action = adding ? (changed.count == 1 ? "added a group member" : "added group members") : (changed.count == 1 ? "removed a group member" : "removed group members")
        try await audit(AuditActor(user, address: address), action, Self.auditName(group), changed.joined(separator: ", "))
        return (group, unknown)
    }

    /// Sets who may find `group` and whether its members may synchronise edits to its items
    /// (`GroupRecord.updateCapability`).
    func updateGroup(_ group: GroupRecord, access: String, sharedUpdate: Bool, by user: UserRecord, from address: String?) async throws -> GroupRecord {
        guard ["private", "org", "public"].contains(access) else { throw PortalError.badRequest("access must be private, org or public.") }
        var group = group
        group.access = access
        group.capabilities = sharedUpdate ? [GroupRecord.updateCapability] : []
        group.modified = TokenService.now()
        try await store.saveGroup(group)
        let update = group.capabilities.contains(GroupRecord.updateCapability) ? "shared update" : "no shared update"
        try await audit(AuditActor(user, address: address), "changed a group", Self.auditName(group), "\(Self.groupAccessLabel(group.access)), \(update)")
        return group
    }

    /// Deletes `group`: its items are no longer shared with it (those it alone was shared with
    /// become private again).
    func deleteGroup(_ group: GroupRecord, by user: UserRecord, from address: String?) async throws {
        for var record in try await store.items() where record.groups.contains(group.id) {
            record.groups.removeAll { $0 == group.id }
            if record.item.access == .shared, record.groups.isEmpty { record.item.access = .private }
            try await store.saveItem(record)
        }
        try await store.deleteGroup(group.id)
        try await audit(AuditActor(user, address: address), "deleted a group", Self.auditName(group), Format.count(group.members.count, "member"))
    }

    static func auditName(_ group: GroupRecord) -> String { "group \(group.id) '\(group.title)'" }

    /// Who finds a group, as the pages and the audit log say it.
    static func groupAccessLabel(_ access: String) -> String {
        switch access {
        case "public": "Everyone"
        case "org": "The organization"
        default: "Its members"
        }
    }
}
