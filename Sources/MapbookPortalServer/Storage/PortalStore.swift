/// Where the portal keeps its metadata: users, tokens, groups, folders and items.
///
/// The server talks to this protocol only, so a PostgreSQL store can follow the SQLite one
/// (DESIGN.md section 7). Every method may be called from any task; an implementation
/// serialises access itself.
public protocol PortalStore: Sendable {
    /// Portal-wide values (the organization id, the signing key).
    func setting(_ key: String) async throws -> String?
    func setSetting(_ key: String, _ value: String) async throws
    /// Every setting, by key (for migrating).
    func settings() async throws -> [String: String]

    func user(_ username: String) async throws -> UserRecord?
    func users() async throws -> [UserRecord]
    func saveUser(_ user: UserRecord) async throws
    /// Changes the user `username` by `change`, reading and writing the row in one step: two
    /// changes made at once (a password reset and a disable) never undo each other. Refused
    /// when it would leave the organization without the active administrator it had, so two
    /// administrators who demote or disable each other at once cannot both succeed.
    func changeUser(_ username: String, _ change: @escaping @Sendable (inout UserRecord) -> Void) async throws -> UserChange

    func saveToken(_ token: TokenRecord) async throws
    func token(hash: String) async throws -> TokenRecord?
    /// The token and the user it was issued to (nil when the user is gone): what every
    /// signed-in request asks, in one question where the store can (`PostgresPortalStore`).
    func tokenAndUser(hash: String) async throws -> (token: TokenRecord, user: UserRecord?)?
    func deleteToken(hash: String) async throws
    /// Every token (for migrating: devices stay signed in).
    func tokens() async throws -> [TokenRecord]
    func deleteTokens(username: String) async throws
    func deleteExpiredTokens(now: Int64) async throws

    /// Every item, ready or not (for maintenance: cleaning up, migrating).
    func items() async throws -> [ItemRecord]
    /// One page of the items `search` finds that its viewer may see.
    func searchItems(_ search: ItemSearch) async throws -> ItemSearchResult
    func item(_ id: String) async throws -> ItemRecord?
    func saveItem(_ record: ItemRecord) async throws
    func deleteItem(_ id: String) async throws

    /// Parts received for an upload in progress (a part sent again replaces the earlier one).
    func saveUploadPart(itemId: String, _ part: UploadPart) async throws
    /// In part-number order.
    func uploadParts(itemId: String) async throws -> [UploadPart]
    func deleteUploadParts(itemId: String) async throws

    func groups() async throws -> [GroupRecord]
    func group(_ id: String) async throws -> GroupRecord?
    func saveGroup(_ group: GroupRecord) async throws
    func deleteGroup(_ id: String) async throws

    /// Wrong passwords, per key (a user's, an address's), as times in milliseconds: what the
    /// sign-in throttle counts, shared by every portal process using the store.
    func recordSignInFailure(_ key: String, at time: Int64, keepingLast: Int) async throws
    func signInFailures(_ key: String, since time: Int64) async throws -> [Int64]
    func clearSignInFailures(_ key: String) async throws
    /// Forgets failures older than `time`.
    func pruneSignInFailures(before time: Int64) async throws

    func folders(owner: String) async throws -> [FolderRecord]
    func saveFolder(_ folder: FolderRecord) async throws
    func deleteFolder(_ id: String) async throws

    // Background jobs (JobRecord): any process may be asked for a job another runs.
    func saveJob(_ job: JobRecord) async throws
    func job(_ id: String) async throws -> JobRecord?
    /// Every job kept.
    func jobs() async throws -> [JobRecord]
    func deleteJob(_ id: String) async throws

    // What the pages show of an item's life and the organization's (issue 34).
    /// Keeps a device's report, replacing its earlier one for the same item.
    func saveDeviceReport(_ report: DeviceReport) async throws
    /// The devices that reported holding the item, most recently seen first.
    func deviceReports(itemId: String) async throws -> [DeviceReport]
    /// Keeps a replica's last sync, replacing its earlier one.
    func saveReplicaSync(_ sync: ReplicaSync) async throws
    /// The item's replicas' last syncs, most recent first.
    func replicaSyncs(itemId: String) async throws -> [ReplicaSync]
    func recordItemEvent(_ event: ItemEvent) async throws
    /// The item's events, newest first, at most `limit`.
    func itemEvents(itemId: String, limit: Int) async throws -> [ItemEvent]
    func recordAudit(_ entry: AuditEntry) async throws
    /// Audit entries recorded before the one numbered `before` (`AuditEntry.sequence`; nil:
    /// from the newest), newest first, at most `limit`. Paged by number, not by time, so
    /// entries of the same millisecond are never skipped.
    func auditEntries(before: Int64?, limit: Int) async throws -> [AuditEntry]
}

/// What `PortalStore.changeUser` did.
public enum UserChange: Sendable, Equatable {
    /// Saved; the user as it is now.
    case changed(UserRecord)
    case noSuchUser
    /// Not saved: the user is the only active administrator, and would no longer be one.
    case lastAdministrator
}

extension PortalStore {
    public func tokenAndUser(hash: String) async throws -> (token: TokenRecord, user: UserRecord?)? {
        guard let token = try await token(hash: hash) else { return nil }
        return (token, try await user(token.username))
    }
}
