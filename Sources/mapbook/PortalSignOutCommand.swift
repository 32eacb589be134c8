import ArgumentParser
import MapbookPortal
import MapbookSupport

struct PortalSignOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signout",
        abstract: "Sign out: revoke the tokens, remove the credential and every downloaded package.",
        discussion: """
            As in the Offline Mapbook app, signing out removes the downloaded packages (and \
            unfinished downloads) with the credential and the kept certificate; the library \
            stays in portal mode and sideloaded packages are untouched. The tokens are revoked \
            at the portal when it can be reached; otherwise they simply expire.
            """)

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print what was removed as JSON.")
    var json = false

    func run() async throws {
        let library = LibraryCommand.library()
        let (portal, credential, kept) = try LibraryCommand.attempt { (try library.portalURL(), try library.credential(), try library.portalCertificate()) }
        var revoked: Bool?
        var note: String?
        if let portal, credential != nil {
            do {
                revoked = try await PortalClient.with(portalURL: portal, trust: connection.trust(kept: kept), credential: credential) { client in
                    try await client.revokeTokens()
                }
                if revoked == false { note = "the portal did not confirm revoking the tokens; they expire by themselves" }
            } catch {
                revoked = false
                note = "could not revoke the tokens (\(error)); they expire by themselves"
            }
        }
        let cleanup = try LibraryCommand.attempt { try library.signOut() }
        var out = Output()
        let report = SignOutReport(portal: portal, cleanup: cleanup, revoked: revoked)
        out.report(json: json, report.jsonValue, lines: report.lines)
        out.flush()
        if let note { Output.error("note: \(note)") }
    }
}
