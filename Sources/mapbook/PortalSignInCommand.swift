import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport

struct PortalSignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Sign in to a portal and keep the token in the device library (portal mode).",
        discussion: """
            Signs in with OAuth 2 (authorization code with PKCE) where the portal offers its \
            sign-in pages, else with generateToken. Only the tokens are kept \
            (credential.json, mode 0600), never the password; an OAuth token is renewed with \
            its refresh token as it expires. The password is read from standard input with \
            --password-stdin (first line), else asked for on the terminal. The library \
            switches to portal mode with this portal: another portal's downloads, or another \
            user's, are removed first, as the Offline Mapbook app does. A certificate given \
            with --ca-cert is kept for the later portal commands.
            """)

    @Argument(help: "The portal, e.g. https://www.arcgis.com or https://127.0.0.1:8443.")
    var url: String

    @Option(name: .long, help: "The user name.")
    var user: String

    @OptionGroup var passwordInput: PasswordOptions

    @Flag(name: .customLong("generate-token"), help: "Sign in with generateToken, without trying OAuth (a token without refresh: sign in again when it expires).")
    var generateToken = false

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        do { _ = try PortalClient.portalRoot(url) } catch { throw ValidationError("\(error)") }
        guard !user.isEmpty else { throw ValidationError("--user needs a name") }
    }

    func run() async throws {
        let password = try passwordInput.password(for: user, at: url)
        let library = LibraryCommand.library()
        let portal = try PortalClient.portalRoot(url)
        var certificate: [UInt8]?
        if let path = connection.caCert {
            certificate = try LibraryCommand.attempt { try PortalTrust.certificateFile(path) }
        }
        // The certificate kept for this portal still applies when none is given.
        let (currentPortal, kept) = try LibraryCommand.attempt { (try library.portalURL(), try library.portalCertificate()) }
        let trust = connection.trust(kept: currentPortal == portal ? kept : nil)

        // Nothing is stored until the portal has said yes.
        let (credential, method): (Credential, PortalClient.SignInMethod)
        do {
            (credential, method) = try await PortalClient.with(portalURL: portal, trust: trust) { client in
                try await client.signIn(username: user, password: password, method: generateToken ? .generateToken : .oauth)
            }
        } catch let error as PortalError {
            Output.error("error: cannot sign in to \(portal) as \(user): \(error.message)\(error.details.isEmpty ? "" : " (\(error.details.joined(separator: "; ")))")")
            throw ExitCode.failure
        } catch {
            throw PortalSession.fail(error)
        }

        let removed = try LibraryCommand.attempt { try library.signedIn(credential, portal: portal, certificate: certificate) }
        // The portal's publishers' keys become trusted (a portal that keeps none is left be).
        let keys = try? await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library) { try await $0.refreshTrustedKeys(in: library) }

        let report = SignInReport(credential: credential, method: method, removed: removed, certificateFile: certificate == nil ? nil : connection.caCert, trustedKeys: keys ?? nil)
        var out = Output()
        out.report(json: json, report.jsonValue, lines: report.lines)
        out.flush()
    }
}
