import MapbookPortalAPI

/// Sharing items and keeping groups: the rules the API's `share`, `createGroup`,
/// `addUsers` and `removeUsers` and the web pages' forms share (issue 34).
extension Portal {
    /// Whether `user` may share items with `group`: its members, its owner, and admins.
    func mayShare(with group: GroupRecord, _ user: UserRecord) -> Bool {
        user.isAdmin || group.owner.lowercased() == user.username.lowercased() || group.members.contains { $0.lowercased() == user.username.lowercased() }
    }

    /// Shares `record` with the groups `adding` and no longer with `removing` (those `user`
    /// may not share with are returned, untouched), and sets who else sees it: everyone,
    /// the organization, or (false) neither; nil leaves it. Saves and returns the item.
    func share(
        _ record: ItemRecord, by user: UserRecord, adding: [String], removing: [String], everyone: Bool?, org: Bool?
    ) async throws -> (record: ItemRecord, refused: [String]) {
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
        try await store.saveItem(record)
        return (record, refused)
    }

    /// A new group owned by `user`, its first member; refused with a `PortalError` when the
    /// title is empty, too long or taken, or the access or a capability is unknown.
    func createGroup(
        by user: UserRecord, title: String, access: String, capabilities: [String], snippet: String? = nil, description: String? = nil, tags: [String] = []
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
        return group
    }

    /// Adds (or removes) the users `names` to `group`; the owner stays. Returns the group as
    /// saved and the names that are no user.
    func changeMembers(of group: GroupRecord, _ names: [String], adding: Bool) async throws -> (group: GroupRecord, unknown: [String]) {
        var group = group
        var unknown: [String] = []
        for name in names {
            guard let user = try await store.user(name) else {
                unknown.append(name)
                continue
            }
            if adding {
                if !group.members.contains(where: { $0.lowercased() == user.username.lowercased() }) { group.members.append(user.username) }
            } else if user.username.lowercased() != group.owner.lowercased() {
                group.members.removeAll { $0.lowercased() == user.username.lowercased() }
            }
        }
        group.modified = TokenService.now()
        try await store.saveGroup(group)
        return (group, unknown)
    }
}
