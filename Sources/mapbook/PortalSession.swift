import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookPortalAPI

#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// What the portal commands share: the library's portal and sign-in, a client for them, and
/// errors turned into messages and exit codes.
enum PortalSession {
    /// The exit code when the portal cannot be reached: scripts can tell "offline" from a failure.
    static let offlineExitCode: Int32 = 3

    /// Runs `body` with a client of the library's portal, signed in with its credential (a
    /// refreshed token is saved as it comes). Without a credential, requests are anonymous,
    /// unless `requireSignIn`.
    ///
    /// When the sign-in is gone and standard input is a terminal, asks for the password of the
    /// user who was signed in, signs in again and runs `body` once more.
    static func run<T>(
        _ library: DeviceLibrary, _ connection: PortalConnectionOptions, requireSignIn: Bool = false,
        _ body: (PortalClient) async throws -> T
    ) async throws -> T {
        let (portal, credential, kept) = try LibraryCommand.attempt { (try library.portalURL(), try library.credential(), try library.portalCertificate()) }
        guard let portal else {
            Output.error("error: the library is not connected to a portal; sign in first: `mapbook portal signin URL --user NAME`")
            throw ExitCode.failure
        }
        if requireSignIn && credential == nil {
            Output.error("error: nobody is signed in to \(portal); sign in first: `mapbook portal signin \(portal) --user NAME`")
            throw ExitCode.failure
        }
        let trust = connection.trust(kept: kept)
        do {
            return try await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library, body)
        } catch let error as PortalClientError where error.kind == .signInRequired {
            guard let credential, isatty(STDIN_FILENO) == 1, let password = PasswordOptions.ask(for: credential.username, at: portal) else { throw fail(error) }
            do {
                let renewed = try await PortalClient.with(portalURL: portal, trust: trust) { client in
                    try await client.signIn(username: credential.username, password: password).credential
                }
                try library.saveCredential(renewed)
                return try await PortalClient.with(portalURL: portal, trust: trust, credential: renewed, savingTo: library, body)
            } catch {
                throw fail(error)
            }
        } catch {
            throw fail(error)
        }
    }

    /// Prints `error` as `error: ...` and returns the exit code to throw: 3 when the portal
    /// cannot be reached, 1 otherwise.
    static func fail(_ error: any Error) -> any Error {
        switch error {
        case let exit as ExitCode:
            return exit
        case let error as PortalClientError where error.kind == .unreachable:
            Output.error("error: offline: \(error)")
            return ExitCode(offlineExitCode)
        case let error as PortalError:
            Output.error("error: the portal says: \(error)")
            return ExitCode.failure
        default:
            Output.error("error: \(error)")
            return ExitCode.failure
        }
    }
}
