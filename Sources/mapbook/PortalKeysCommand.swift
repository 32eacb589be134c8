import ArgumentParser
import MapbookPackage
import MapbookPortal

/// `mapbook portal keys [list | add KEY.pub | remove FINGERPRINT]`: the signing keys the
/// signed-in user registered with the portal.
struct PortalKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Register, list and withdraw the keys you sign packages with: list, add KEY.pub, remove FINGERPRINT.",
        discussion: """
            Devices trust every registered key when they sign in; a portal that requires \
            signatures takes a package only when one of its owner's keys signed it. To move to a \
            new key: add it, sign with both keys, then remove the old one (docs/PORTAL.md).
            """)

    @Argument(help: ArgumentHelp("list, add or remove.", valueName: "action"))
    var action = KeyAction.list

    @Argument(help: ArgumentHelp("add: the public key file; remove: its fingerprint.", valueName: "key"))
    var key: String?

    @OptionGroup var connection: PortalConnectionOptions

    func validate() throws {
        if action != .list && key == nil { throw ValidationError("\(action) needs the key: a .pub file to add, a fingerprint to remove") }
    }

    func run() async throws {
        let library = LibraryCommand.library()
        let user = try LibraryCommand.attempt { try library.credential()?.username } ?? ""
        let adding = try action == .add ? LibraryCommand.attempt { try PublicSigningKey(file: key ?? "") } : nil
        let keys = try await PortalSession.run(library, connection, requireSignIn: true) { client in
            if let adding { try await client.registerSigningKey(adding, for: user) }
            if action == .remove, let key { try await client.removeSigningKey(key, for: user) }
            return try await client.signingKeys(of: user)
        }
        var out = Output()
        out.line(keys.isEmpty ? "\(user) has no registered signing keys" : "\(user)'s signing keys:")
        for k in keys { out.line("  \(k.fingerprint)") }
        out.flush()
    }
}
