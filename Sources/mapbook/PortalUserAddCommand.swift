import ArgumentParser
import MapbookPortalServer


struct PortalUserAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a user to a portal, or set an existing user's password and role.",
        discussion: """
            The password is read from standard input with --password-stdin (first line), or \
            asked for on the terminal. It is stored only as a PBKDF2-SHA256 hash. Setting a \
            new password signs the user out everywhere.
            """)

    @Argument(help: "The user name (letters, digits, '.', '_', '-', '@').")
    var name: String

    @Flag(name: .long, help: "Make the user an administrator.")
    var admin = false

    @OptionGroup var storage: PortalStorageOptions

    @OptionGroup var passwordInput: PasswordOptions

    @Option(name: .customLong("full-name"), help: "The user's full name.")
    var fullName: String?

    @Option(name: .long, help: "The user's e-mail address.")
    var email: String?

    func run() async throws {
        let password = try passwordInput.password(for: name)
        try await LibraryCommand.attempt {
            // No sweep: a server may be running on the same data, mid-upload.
            let portal = try await Portal.open(storage.configuration, sweeping: false)
            let existed = try await portal.store.user(name) != nil
            let user = try await portal.setUser(name, password: password, admin: admin, fullName: fullName, email: email, by: .commandLine())
            print("\(existed ? "updated" : "added") \(user.isAdmin ? "administrator" : "user") \(user.username) in \(storage.data)")
        }
    }
}
