/// Where the portal keeps its metadata: users, tokens, groups, folders and items.
///
/// The server talks to this protocol only, so a PostgreSQL store can follow the SQLite one
/// (DESIGN.md section 7). Every method is synchronous and may be called from any task; an
/// implementation serialises access itself.
public protocol PortalStore: Sendable {
    /// Portal-wide values (the organization id, the signing key).
    func setting(_ key: String) async throws -> String?
    func setSetting(_ key: String, _ value: String) async throws

    func user(_ username: String) async throws -> UserRecord?
    func users() async throws -> [UserRecord]
    func saveUser(_ user: UserRecord) async throws

    func saveToken(_ token: TokenRecord) async throws
    func token(hash: String) async throws -> TokenRecord?
    func deleteToken(hash: String) async throws
    func deleteTokens(username: String) async throws
    func deleteExpiredTokens(now: Int64) async throws

    /// Every item, ready or not (the server filters).
    func items() async throws -> [ItemRecord]
    func item(_ id: String) async throws -> ItemRecord?
    func saveItem(_ record: ItemRecord) async throws
    func deleteItem(_ id: String) async throws

    func groups() async throws -> [GroupRecord]
    func group(_ id: String) async throws -> GroupRecord?
    func saveGroup(_ group: GroupRecord) async throws
    func deleteGroup(_ id: String) async throws

    func folders(owner: String) async throws -> [FolderRecord]
    func saveFolder(_ folder: FolderRecord) async throws
    func deleteFolder(_ id: String) async throws
}
