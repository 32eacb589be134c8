#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookPortalAPI
import MapbookSupport

/// Settings a portal runs with.
public struct PortalConfiguration: Sendable {
    /// The data folder: `portal.sqlite`, item files, the self-signed certificate.
    public var dataDirectory: String
    /// The metadata store: PostgreSQL at this URL (`postgres://USER@HOST:PORT/DATABASE`),
    /// shared by several portal processes; nil for SQLite in the data folder.
    public var storeURL: String?
    /// How long a request waits for that database before it is answered with a 503.
    public var storePatience: Duration = .seconds(5)
    /// The item files: an S3 bucket (`s3://BUCKET`) at `s3Endpoint`, shared by several portal
    /// processes (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION);
    /// nil for folders in the data folder.
    public var filesURL: String?
    public var s3Endpoint: String?
    /// With a shared store, how long an upload may wait between parts before a sweep (at a
    /// process's start, `portal gc`) takes it for abandoned.
    public var abandonedUploadSeconds: Int64 = 24 * 3600
    /// The portal's name in `portals/self`.
    public var name = "Mapbook Portal"
    /// Lifetime of tokens from `generateToken` when the request names none, in minutes, and the most it may ask.
    public var defaultTokenMinutes: Int64 = 60
    public var maximumTokenMinutes: Int64 = 14 * 24 * 60
    /// OAuth 2 access and refresh token lifetimes, in seconds.
    public var oauthAccessSeconds: Int64 = 30 * 60
    public var oauthRefreshSeconds: Int64 = 14 * 24 * 3600
    /// How long a browser stays signed in to the portal's pages, in seconds.
    public var browserSessionSeconds: Int64 = 12 * 3600
    public var limits = RequestParameters.Limits()
    /// PBKDF2 rounds for new passwords (each hash records its own, so this can change).
    public var passwordRounds = PasswordHash.rounds
    /// Whether uploads of `.mmpk` files are checked with the package validator and refused on errors.
    public var validatePackages = true
    /// How many wrong passwords, per user and per address, within how long, refuse sign-in.
    public var signInLimits = SignInThrottle.Limits()
    /// Addresses of proxies (a load balancer) whose `X-Forwarded-For` names the client; from
    /// anyone else the header is ignored and the socket's address counts.
    public var trustedProxies: Set<String> = []
    /// The time in milliseconds since 1970, for the sign-in throttle; tests inject their own.
    public var clock: @Sendable () -> Int64 = { TokenService.now() }

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }
}

/// The portal's state and rules, shared by every route: who may see and change what.
public final class Portal: Sendable {
    public let configuration: PortalConfiguration
    public let store: any PortalStore
    public let files: any ItemFileStore
    public let tokens: TokenService
    public let signInThrottle: SignInThrottle
    /// The one organization this portal hosts.
    public let orgId: String
    /// With PostgreSQL and a bucket shared by several processes, the authoritative copies of
    /// editable items live there too (nil: in the data folder, for this process alone).
    let sharedSync: SharedSyncCopies?
    /// Packages opened in place for vector tile services and item pages, once per version.
    let openPackages = OpenPackages()
    /// Feature services kept open between requests.
    let featureServices = FeatureServicePool()
    /// Map areas taken offline, one at a time.
    let jobQueue = JobQueue()
    /// What item pages show of packages, read once per version.
    let packageSummaries = PackageSummaries()

    public init(configuration: PortalConfiguration, store: any PortalStore, files: any ItemFileStore) async throws {
        self.configuration = configuration
        self.store = store
        self.files = files
        tokens = TokenService(store: store)
        if let shared = store as? PostgresPortalStore, configuration.filesURL != nil {
            sharedSync = SharedSyncCopies(store: shared, files: files, root: configuration.dataDirectory + "/sync")
        } else {
            sharedSync = nil
        }
        signInThrottle = SignInThrottle(limits: configuration.signInLimits, store: store, now: configuration.clock)
        if let id = try await store.setting("orgId") {
            orgId = id
        } else {
            orgId = String(TokenService.newId().prefix(16))
            try await store.setSetting("orgId", orgId)
        }
        // Made now, by the one process that opens the store first, not raced for later.
        _ = try await portalSigningKey()
    }

    /// Opens the stores the configuration names and (unless `sweeping` is false) removes what
    /// a stopped server left half-done (`sweep`).
    public static func open(_ configuration: PortalConfiguration, sweeping: Bool = true) async throws -> Portal {
        let dir = configuration.dataDirectory
        try Disk.makeDirectories(dir)
        let store: any PortalStore
        if let url = configuration.storeURL {
            store = try await PostgresPortalStore.connect(url, password: getenv("PGPASSWORD").map { String(cString: $0) }, patience: configuration.storePatience)
        } else {
            store = try SQLitePortalStore(path: "\(dir)/portal.sqlite")
        }
        let files: any ItemFileStore
        if let url = configuration.filesURL {
            guard let endpoint = configuration.s3Endpoint else {
                throw PortalStoreError(kind: .objectStore(.badConfiguration), path: url, message: "an S3 bucket needs its endpoint (--s3-endpoint URL)")
            }
            files = try await S3ItemFileStore.open(url: url, endpoint: endpoint, scratch: dir + "/staging", environment: { getenv($0).map { String(cString: $0) } })
        } else {
            files = try DiskItemFileStore(root: dir)
        }
        let portal = try await Portal(configuration: configuration, store: store, files: files)
        if sweeping { try await portal.sweep() }
        return portal
    }

    /// The sweep at start and of `portal gc`: abandoned uploads, files no item names, sync
    /// copies of removed items, expired tokens. Returns how many items and files went.
    @discardableResult
    public func sweep() async throws -> Int {
        var removed = try await Self.sweep(store: store, files: files, shared: configuration.storeURL != nil, abandonedAfter: configuration.abandonedUploadSeconds)
        let ids = Set(try await store.items().map(\.item.id))
        let dir = configuration.dataDirectory
        for id in FileSystem.names(in: dir + "/sync") where !ids.contains(id) {
            FileSystem.removeTree(dir + "/sync/" + id)
            removed += 1
        }
        try await store.deleteExpiredTokens(now: TokenService.now())
        return removed
    }

    /// Removes what stopped servers left half-done: uploads never committed are not items,
    /// and files no item names go. With a store of its own (SQLite) this process is the only
    /// one, so everything unfinished is abandoned; with a shared store another process may be
    /// receiving an upload right now, so only what has not moved for `abandonedAfter` seconds
    /// goes. Returns how many items and files went.
    @discardableResult
    public static func sweep(store: any PortalStore, files: any ItemFileStore, shared: Bool, abandonedAfter: Int64) async throws -> Int {
        let age: Int64 = shared ? abandonedAfter : 0
        let now = TokenService.now()
        var removed = 0
        for record in try await store.items() where record.status == .uploading && record.item.modified <= now - age * 1000 {
            try await store.deleteItem(record.item.id)
            removed += 1
        }
        removed += try await Portal.sweepJobs(store: store, shared: shared)
        var kept: [String: String] = [:]
        for record in try await store.items() { kept[record.item.id] = record.dataVersion }
        removed += try await files.sweep(keeping: kept, olderThan: age)
        return removed
    }

    // MARK: Signing in

    /// The user if the password is theirs. Slow on purpose (the key derivation). Throws
    /// `SignInThrottled` while the user or the address has had too many wrong passwords
    /// (`SignInThrottle`), before looking at the password.
    func signIn(_ username: String, _ password: String, from address: String?) async throws -> UserRecord? {
        if let wait = try await signInThrottle.retryAfter(user: username, address: address) {
            throw SignInThrottled(retryAfter: wait)
        }
        guard username.utf8.count <= 128, password.utf8.count <= 1024, let user = try await store.user(username) else {
            // Spend the same time on unknown users, so timing does not tell who exists.
            _ = PasswordHash.verify(password, against: Self.decoyHash)
            try await signInThrottle.recordFailure(user: username, address: address)
            return nil
        }
        guard PasswordHash.verify(password, against: user.passwordHash) else {
            try await signInThrottle.recordFailure(user: username, address: address)
            return nil
        }
        // A disabled account is refused like a wrong password: the page says no more.
        guard !user.disabled else { return nil }
        try await signInThrottle.recordSuccess(user: username)
        return user
    }

    /// A hash of nothing anyone types, for unknown usernames.
    private static let decoyHash = "pbkdf2-sha256$\(PasswordHash.rounds)$00000000000000000000000000000000$0000000000000000000000000000000000000000000000000000000000000000"

    /// The key that signs OAuth sign-in states; made once per portal.
    func oauthSecret() async throws -> [UInt8] {
        if let hex = try await store.setting("oauthSecret"), let bytes = PasswordHash.bytes(hex: hex), bytes.count == 32 { return bytes }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try await store.setSetting("oauthSecret", SHA256Digest.hex(bytes))
        return bytes
    }

    /// The organization's name as its administrators set it on the Organization page, else
    /// the configuration's (a store that cannot be read gives the configuration's).
    func organizationName() async -> String {
        let stored = try? await store.setting("organizationName")
        return (stored ?? nil).flatMap { $0.isEmpty ? nil : $0 } ?? configuration.name
    }

    /// Adds a user, or changes an existing user's password and role (and name and e-mail when
    /// given); kept in the audit log as done by `actor`.
    public func setUser(
        _ username: String, password: String, admin: Bool, fullName: String? = nil, email: String? = nil, by actor: AuditActor
    ) async throws -> UserRecord {
        guard Self.isUsername(username) else {
            throw PortalStoreError(kind: .invalidName, path: configuration.dataDirectory, message: "'\(username)' is not a valid user name: use 1 to 64 letters, digits, '.', '_', '-' or '@'")
        }
        let hash = try passwordHash(password)
        let role = admin ? "org_admin" : "org_user"
        let now = TokenService.now()
        if let user = try await changeUser(username, {
            $0.role = role
            $0.passwordHash = hash
            if let fullName { $0.fullName = fullName }
            if let email { $0.email = email }
            $0.modified = now
        }) {
            // A new password ends every session of the old one.
            try await store.deleteTokens(username: user.username)
            try await audit(actor, "changed a user's password and role", "user \(user.username)", Self.roleLabel(user))
            return user
        }
        let user = UserRecord(
            username: username, id: TokenService.newId(), fullName: fullName ?? username, email: email ?? "", role: role, passwordHash: hash,
            created: now, modified: now, disabled: false)
        try await store.saveUser(user)
        try await audit(actor, "added a user", "user \(user.username)", Self.roleLabel(user))
        return user
    }

    /// Gives a user a new password, ending the sessions of the old one; nil when there is no
    /// such user.
    public func setPassword(_ username: String, _ password: String, by actor: AuditActor) async throws -> UserRecord? {
        let hash = try passwordHash(password)
        let now = TokenService.now()
        guard let user = try await changeUser(username, { $0.passwordHash = hash; $0.modified = now }) else { return nil }
        try await store.deleteTokens(username: user.username)
        try await audit(actor, "reset a user's password", "user \(user.username)")
        return user
    }

    /// Disables (or enables again) an account; disabling ends every session it has.
    public func setDisabled(_ username: String, _ disabled: Bool, by actor: AuditActor) async throws -> UserRecord? {
        let now = TokenService.now()
        guard let user = try await changeUser(username, { $0.disabled = disabled; $0.modified = now }) else { return nil }
        if disabled { try await store.deleteTokens(username: user.username) }
        try await audit(actor, disabled ? "disabled a user" : "enabled a user", "user \(user.username)")
        return user
    }

    /// Makes the user an administrator or not.
    public func setRole(_ username: String, admin: Bool, by actor: AuditActor) async throws -> UserRecord? {
        let now = TokenService.now()
        guard let user = try await changeUser(username, { $0.role = admin ? "org_admin" : "org_user"; $0.modified = now }) else { return nil }
        try await audit(actor, "changed a user's role", "user \(user.username)", Self.roleLabel(user))
        return user
    }

    /// One user's row changed in one step of the store; nil when there is no such user.
    private func changeUser(_ username: String, _ change: @escaping @Sendable (inout UserRecord) -> Void) async throws -> UserRecord? {
        switch try await store.changeUser(username, change) {
        case .changed(let user): return user
        case .noSuchUser: return nil
        case .lastAdministrator: throw PortalError.lastAdministrator(username)
        }
    }

    /// The hash of a new password, refused when it is too short. Slow by design: made before
    /// the store's step that writes it.
    private func passwordHash(_ password: String) throws -> String {
        guard password.utf8.count >= 8 else {
            throw PortalStoreError(kind: .weakPassword, path: configuration.dataDirectory, message: "the password is too short: use at least 8 characters")
        }
        return try PasswordHash.make(password, rounds: configuration.passwordRounds)
    }

    static func roleLabel(_ user: UserRecord) -> String { user.isAdmin ? "Administrator" : "User" }

    static func isUsername(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64
            && s.unicodeScalars.allSatisfy { ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || ".-_@".unicodeScalars.contains($0) }
    }

    // MARK: Access

    /// The groups `user` belongs to.
    func memberGroups(_ user: UserRecord?) async throws -> Set<String> {
        guard let user else { return [] }
        return Set(try await store.groups().filter { $0.members.contains { $0.lowercased() == user.username.lowercased() } }.map(\.id))
    }

    /// Whether `user` (nil: anonymous) may see the item and its files (`ItemViewer.mayRead`).
    func canRead(_ record: ItemRecord, _ user: UserRecord?, groups: Set<String>) -> Bool {
        viewer(user, groups: groups).mayRead(record)
    }

    func viewer(_ user: UserRecord?, groups: Set<String>) -> ItemViewer {
        ItemViewer(username: user?.username, isAdmin: user?.isAdmin ?? false, groups: groups)
    }

    /// Whether `user` may change or delete the item.
    func canWrite(_ record: ItemRecord, _ user: UserRecord?) -> Bool {
        guard let user else { return false }
        return user.isAdmin || user.username.lowercased() == record.item.owner.lowercased()
    }

    /// Whether `user` may find the group.
    func canSee(_ group: GroupRecord, _ user: UserRecord?) -> Bool {
        if group.access == "public" { return true }
        guard let user else { return false }
        if user.isAdmin || group.access == "org" { return true }
        return group.owner.lowercased() == user.username.lowercased() || group.members.contains { $0.lowercased() == user.username.lowercased() }
    }

    /// The item for a request: CONT_0001 when it does not exist or the user may not know it does.
    func readableItem(_ id: String, _ user: UserRecord?) async throws -> ItemRecord {
        guard PortalPaths.isItemId(id), let record = try await store.item(id), canRead(record, user, groups: try await memberGroups(user)) else {
            // Anonymous callers learn that signing in might help, as ArcGIS Online tells them.
            if user == nil, PortalPaths.isItemId(id), let record = try await store.item(id), record.status == .ready { throw PortalError.tokenRequired }
            throw PortalError.itemNotFound(id)
        }
        return record
    }
}

extension PortalError {
    /// The change would leave the organization without an active administrator.
    static func lastAdministrator(_ username: String) -> PortalError {
        PortalError(code: 409, messageCode: "MAPBOOK_LAST_ADMIN", message: "\(username) is the only active administrator; make another one first.", details: [username])
    }
}
