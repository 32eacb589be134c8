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
        if json {
            out.line(JSONWriter.string(.object([
                "signedOut": cleanup.removedCredential.map { .string($0.username) } ?? .null,
                "portalUrl": portal.map(JSONValue.string) ?? .null,
                "tokensRevoked": revoked.map(JSONValue.bool) ?? .null,
                "removedPackages": .array(cleanup.removedPackages.map(\.jsonValue)),
                "removedPartialDownloads": .array(cleanup.removedPartialDownloads.map(JSONValue.string)),
                "removedPortalCertificate": .bool(cleanup.removedPortalCertificate),
            ])).trimmingTrailingNewline())
        } else {
            if let removed = cleanup.removedCredential {
                out.line("Signed out \(removed.username) of \(removed.portalUrl)\(revoked == true ? " (tokens revoked)" : "").")
            } else {
                out.line("Nobody was signed in\(portal.map { " to \($0)" } ?? "").")
            }
            if cleanup.removedPackages.isEmpty { out.line("No downloaded packages to remove.") }
            for line in cleanup.removalLines { out.line(line) }
            if cleanup.removedPortalCertificate { out.line("Removed the portal's kept certificate.") }
        }
        out.flush()
        if let note { Output.error("note: \(note)") }
    }
}
