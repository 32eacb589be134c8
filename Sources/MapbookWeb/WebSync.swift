import MapbookLibrary
import MapbookSupport

/// Synchronising a downloaded package's edits with the portal from a map page.
///
/// This target does not import the portal client, because the portal server reuses the
/// pages. The program that serves (`mapbook serve`) supplies the two things that need the
/// client: who is signed in, and the sync itself (the `PackageSync` that `mapbook sync`
/// runs). Its failures are `WebError`s, with the command line's kinds (`unreachable` when
/// the portal cannot be reached, `signInRequired`).
public struct WebSync: Sendable {
    /// The portal this device is signed in to, and as whom.
    public struct Account: Sendable {
        public var portal: String
        public var user: String
        public init(portal: String, user: String) {
            self.portal = portal
            self.user = user
        }
    }

    /// Who is signed in now; nil when nobody is (read on every request: a sign-in made
    /// while the server runs counts).
    public var account: @Sendable () -> Account?
    /// Synchronises the downloaded package `entry`. The result is `PackageSync.Outcome`'s
    /// JSON: sent, received, generation, conflicts.
    public var run: @Sendable (LibraryEntry) async throws -> JSONValue

    /// Takes an area (west, south, east, north in degrees) of the downloaded package `entry`
    /// offline on the portal, down to the scale given (nil: every level), into the library.
    /// The result is the download's JSON (`PackageDownloader.Outcome`). Nil: not offered.
    public var takeOffline: (@Sendable (LibraryEntry, [Double], Double?) async throws -> JSONValue)?
    /// Downloads the portal's current version of the downloaded package `entry`, by delta
    /// from the one held when the portal can: the library page's Update action. The result
    /// is the download's JSON (with its `summary`). Nil: not offered.
    public var update: (@Sendable (LibraryEntry) async throws -> JSONValue)?

    public init(
        account: @escaping @Sendable () -> Account?, run: @escaping @Sendable (LibraryEntry) async throws -> JSONValue,
        takeOffline: (@Sendable (LibraryEntry, [Double], Double?) async throws -> JSONValue)? = nil,
        update: (@Sendable (LibraryEntry) async throws -> JSONValue)? = nil
    ) {
        self.account = account
        self.run = run
        self.takeOffline = takeOffline
        self.update = update
    }
}
