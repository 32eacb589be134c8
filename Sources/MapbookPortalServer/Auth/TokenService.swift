#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookPortalAPI

/// Issues and checks tokens. A token is 32 random bytes in URL-safe base64; the store keeps
/// only its SHA-256, so tokens are revoked by deleting rows and a leaked database opens nothing.
public struct TokenService: Sendable {
    let store: any PortalStore

    /// Milliseconds since the epoch.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    static func hash(_ token: String) -> String { SHA256Digest.hex(of: Array(token.utf8)) }

    /// A 32-digit lowercase hex id, as the API's item, group and folder ids are.
    public static func newId() -> String {
        var generator = SystemRandomNumberGenerator()
        return SHA256Digest.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Issues a token of `kind` for `username`, valid for `seconds`.
    public func issue(
        _ kind: TokenRecord.Kind, for username: String, seconds: Int64, clientId: String? = nil, referer: String? = nil,
        codeChallenge: String? = nil, redirectURI: String? = nil
    ) async throws -> (token: String, record: TokenRecord) {
        let token = Base64URL.random(bytes: 32)
        let now = Self.now()
        let record = TokenRecord(
            hash: Self.hash(token), kind: kind, username: username, clientId: clientId, referer: referer, created: now,
            expires: now + seconds * 1000, codeChallenge: codeChallenge, redirectURI: redirectURI)
        try await store.saveToken(record)
        return (token, record)
    }

    /// The live token of `kind` with this text and its user, if that user exists and is not
    /// disabled; nil otherwise. An expired token is deleted.
    public func checkUser(_ token: String, kind: TokenRecord.Kind = .access) async throws -> (token: TokenRecord, user: UserRecord)? {
        guard Self.isPlausible(token), let (record, user) = try await store.tokenAndUser(hash: Self.hash(token)),
            try await live(record, kind: kind), let user, !user.disabled
        else { return nil }
        return (record, user)
    }

    /// The live token of `kind` with this text, or nil (unknown, expired or revoked).
    public func check(_ token: String, kind: TokenRecord.Kind = .access) async throws -> TokenRecord? {
        guard Self.isPlausible(token), let record = try await store.token(hash: Self.hash(token)), try await live(record, kind: kind) else { return nil }
        return record
    }

    /// Text that could be a token: anything longer is not looked up.
    static func isPlausible(_ token: String) -> Bool { !token.isEmpty && token.utf8.count <= 512 }

    /// Whether `record` is of `kind` and unexpired; an expired one is deleted.
    private func live(_ record: TokenRecord, kind: TokenRecord.Kind) async throws -> Bool {
        guard record.kind == kind else { return false }
        guard record.expires > Self.now() else {
            try await store.deleteToken(hash: record.hash)
            return false
        }
        return true
    }

    /// Takes an authorization code: it works once.
    public func redeemCode(_ code: String) async throws -> TokenRecord? {
        guard let record = try await check(code, kind: .code) else { return nil }
        try await store.deleteToken(hash: record.hash)
        return record
    }

    public func revoke(_ token: String) async throws {
        try await store.deleteToken(hash: Self.hash(token))
    }
}
