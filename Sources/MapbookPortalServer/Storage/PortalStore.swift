/// Where the portal keeps its metadata: users, tokens, groups, folders and items.
///
/// The server talks to this protocol only, so a PostgreSQL store can follow the SQLite one
/// (DESIGN.md section 7). Every method is synchronous and may be called from any task; an
/// implementation serialises access itself.
public protocol PortalStore: Sendable {
    /// Portal-wide values (the organization id, the signing key).
    func setting(_ key: String) throws -> String?
    func setSetting(_ key: String, _ value: String) throws

    func user(_ username: String) throws -> UserRecord?
    func users() throws -> [UserRecord]
    func saveUser(_ user: UserRecord) throws

    func saveToken(_ token: TokenRecord) throws
    func token(hash: String) throws -> TokenRecord?
    func deleteToken(hash: String) throws
    func deleteTokens(username: String) throws
    func deleteExpiredTokens(now: Int64) throws

    /// Every item, ready or not (the server filters).
    func items() throws -> [ItemRecord]
    func item(_ id: String) throws -> ItemRecord?
    func saveItem(_ record: ItemRecord) throws
    func deleteItem(_ id: String) throws

    func groups() throws -> [GroupRecord]
    func group(_ id: String) throws -> GroupRecord?
    func saveGroup(_ group: GroupRecord) throws
    func deleteGroup(_ id: String) throws

    func folders(owner: String) throws -> [FolderRecord]
    func saveFolder(_ folder: FolderRecord) throws
    func deleteFolder(_ id: String) throws
}
