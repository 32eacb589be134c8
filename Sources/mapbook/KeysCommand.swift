import ArgumentParser
import MapbookPackage

/// `mapbook keys create PATH`: an Ed25519 key pair that signs packages.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make the Ed25519 key pairs that sign packages.", subcommands: [Create.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key pair: the private key at PATH (mode 0600) and the public key at PATH.pub.",
            discussion: "Register PATH.pub with the portal (mapbook portal keys add) or give it to those who should trust your packages.")

        @Argument(help: "Where to write the private key; the public key goes to PATH.pub.")
        var path: String

        func run() throws {
            let key = SigningKey()
            try LibraryCommand.attempt { try key.write(to: path) }
            print("Wrote \(path) (private: keep it safe) and \(path).pub\n  fingerprint \(key.publicKey.fingerprint)")
        }
    }
}

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign", abstract: "Sign a package with one or more private keys.",
        discussion: """
            Checks every entry against the manifest's digests (a package changed since it was made \
            is refused), then signs the manifest into the entry <Name>.info.sig, keeping every other \
            byte. Signing again replaces the signatures: give the old and the new key while moving to \
            a new key (docs/FORMAT.md "Signature").
            """)

    @Argument(help: "The package (.mmpk).")
    var package: String

    @Option(name: .long, help: ArgumentHelp("A private key (mapbook keys create); repeat for several.", valueName: "path"))
    var key: [String] = []

    @Option(name: .shortAndLong, help: "Write the signed package here instead of over PACKAGE.")
    var output: String?

    func validate() throws {
        if key.isEmpty { throw ValidationError("give the private key to sign with: --key PATH ('mapbook keys create PATH' makes one)") }
    }

    func run() throws {
        let signers = try LibraryCommand.attempt { try PackageSigner.sign(package, keys: try key.map { try SigningKey(file: $0) }, output: output) }
        print("Signed \(output ?? package) by \(signers.map(\.fingerprint).joined(separator: ", "))")
    }
}

/// What `library trust` and `portal keys` do with a key.
enum KeyAction: String, ExpressibleByArgument {
    case list, add, remove
}
