import ArgumentParser
import MapbookLibrary
import MapbookPackage

/// `mapbook library trust [list | add KEY.pub | remove KEY]`: the keys whose package
/// signatures the library trusts.
struct LibraryTrustCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust", abstract: "The keys whose package signatures this library trusts: list, add KEY.pub, remove KEY.",
        discussion: """
            Signing in to a portal trusts the keys its publishers registered (and forgets those it \
            withdrew). validate warns of a package signed by no trusted key; a package whose \
            signature is bad is refused whatever the keys.
            """)

    @Argument(help: ArgumentHelp("list, add or remove.", valueName: "action"))
    var action = KeyAction.list

    @Argument(help: ArgumentHelp("add: the public key file; remove: its fingerprint or name.", valueName: "key"))
    var key: String?

    @Option(name: .long, help: "add: what to call the key (default: the file name).")
    var name: String?

    @Flag(name: .long, help: "list: print the keys as JSON.")
    var json = false

    func validate() throws {
        if action != .list && key == nil { throw ValidationError("\(action) needs the key: a .pub file to add, a fingerprint or name to remove") }
    }

    func run() throws {
        let library = LibraryCommand.library()
        var out = Output()
        switch (action, key) {
        case (.add, let path?):
            let adding = try LibraryCommand.attempt { try PublicSigningKey(file: path) }
            let label = name ?? String(path.split(separator: "/").last ?? "").replacing(".pub", with: "")
            let added = try LibraryCommand.attempt { try library.trust(adding, name: label) }
            out.line(added ? "Trusted \(adding.fingerprint) (\(label))" : "\(adding.fingerprint) was trusted already")
        case (.remove, let which?):
            for gone in try LibraryCommand.attempt({ try library.distrust(which) }) { out.line("No longer trusted: \(gone.line)") }
        default:
            let keys = try LibraryCommand.attempt { try library.trustedKeys() }
            out.report(json: json, .array(keys.map(\.jsonValue)), lines: keys.isEmpty ? ["No trusted keys ('mapbook library trust add KEY.pub' adds one)"] : keys.map(\.line))
        }
        out.flush()
    }
}
