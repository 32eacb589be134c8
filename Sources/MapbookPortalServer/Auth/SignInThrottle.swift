import MapbookPortalAPI

/// Refuses sign-in for a while after repeated wrong passwords: for a user (someone guessing
/// one account's password) or from an address (someone trying many accounts).
///
/// A sliding window: a user with `userFailures` wrong passwords, or an address with
/// `addressFailures`, within the last `windowSeconds` is refused, the right password
/// included, until enough of those failures are older than the window. A successful sign-in
/// forgets the user's failures (not the address's). Failures are kept in the store (issue 20),
/// so every portal process behind a load balancer counts the same ones; at most the last
/// `limit` per key, and older than the window they are pruned now and then.
public final class SignInThrottle: Sendable {
    public struct Limits: Sendable {
        public var userFailures = 5
        public var addressFailures = 20
        public var windowSeconds: Int64 = 15 * 60
        public init() {}
    }

    public let limits: Limits
    let store: any PortalStore
    /// Milliseconds since 1970; tests inject their own clock.
    let now: @Sendable () -> Int64

    public init(limits: Limits = Limits(), store: any PortalStore, now: @escaping @Sendable () -> Int64) {
        self.limits = limits
        self.store = store
        self.now = now
    }

    /// Seconds until `user` may try again from `address`; nil when sign-in may go ahead.
    public func retryAfter(user: String, address: String?) async throws -> Int64? {
        let t = now(), window = limits.windowSeconds * 1000
        var wait: Int64 = 0
        for (key, limit) in Self.keys(user: user, address: address, limits: limits) {
            let recent = try await store.signInFailures(key, since: t - window)
            guard recent.count >= limit else { continue }
            // Free again when all but limit - 1 of them have left the window.
            let freeing = recent[recent.count - limit]
            wait = max(wait, (freeing + window - t + 999) / 1000)
        }
        return wait > 0 ? wait : nil
    }

    /// Notes a wrong password for `user` from `address`.
    public func recordFailure(user: String, address: String?) async throws {
        let t = now()
        for (key, limit) in Self.keys(user: user, address: address, limits: limits) {
            // Only the last `limit` failures ever decide anything.
            try await store.recordSignInFailure(key, at: t, keepingLast: limit)
        }
        if UInt8.random(in: 0...255) == 0 { try await store.pruneSignInFailures(before: t - limits.windowSeconds * 1000) }
    }

    /// Forgets `user`'s failures after a sign-in with the right password.
    public func recordSuccess(user: String) async throws {
        try await store.clearSignInFailures(Self.userKey(user))
    }

    /// At most 128 bytes of the name: a key never grows with what a caller sends (the names
    /// a portal accepts are no longer).
    static func userKey(_ user: String) -> String { "user:" + String(decoding: user.lowercased().utf8.prefix(128), as: UTF8.self) }

    static func keys(user: String, address: String?, limits: Limits) -> [(String, Int)] {
        [(userKey(user), limits.userFailures)] + (address.map { [("address:" + String($0.prefix(64)), limits.addressFailures)] } ?? [])
    }
}

/// A sign-in refused by the throttle: the sharing API's error (code 429, saying when to try
/// again) and the seconds for the `Retry-After` header.
public struct SignInThrottled: Error, Sendable {
    public var retryAfter: Int64

    public var portalError: PortalError {
        PortalError(
            code: 429, messageCode: "GWM_0429",
            message: "Too many failed sign-in attempts for this account or from this address. Try again in \(retryAfter) seconds.",
            details: ["Retry after \(retryAfter) seconds."])
    }
}
