import ArgumentParser
import MapbookPortalServer

#if canImport(Glibc)
import Glibc
#endif

struct PortalMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move an embedded portal (SQLite and folders) to PostgreSQL and an S3 bucket.",
        discussion: """
            Copies the settings, users (with their password hashes), tokens (devices stay \
            signed in), groups, folders and every item with its files from the portal in \
            --from to the stores given by --store, --files and --s3-endpoint, and the sync \
            copies into --data; then reads every item back and compares its metadata and the \
            SHA-256 of its data with the source's. Stop the old portal first. Running it again \
            copies everything again, so a migration cut short is finished by running it once \
            more. The source is only read.
            """)

    @Option(name: .long, help: "The data folder of the embedded portal to move (its portal.sqlite and files).")
    var from: String

    @OptionGroup var storage: PortalStorageOptions

    func validate() throws {
        guard storage.store != nil, storage.files != nil else {
            throw ValidationError("give the new stores: --store postgres://... --files s3://BUCKET --s3-endpoint URL")
        }
        guard access(from + "/portal.sqlite", R_OK) == 0 else { throw ValidationError("\(from) holds no portal (no portal.sqlite)") }
        guard from != storage.data else { throw ValidationError("--data must be a folder of its own for the new portal, not --from") }
    }

    func run() async throws {
        try await LibraryCommand.attempt {
            let source = (store: try SQLitePortalStore(path: from + "/portal.sqlite") as any PortalStore, files: try DiskItemFileStore(root: from) as any ItemFileStore)
            let portal = try await Portal.open(storage.configuration, sweeping: false)
            let migration = PortalMigration(from: source, to: (portal.store, portal.files))
            var done = 0
            let summary = try await migration.run { _ in
                done += 1
                if done % 50 == 0 { Output.error("\(done) items copied") }
            }
            let copies = try await portal.importSyncCopies(from: from + "/sync")
            print(summary.line(syncCopies: copies))
        }
    }
}
