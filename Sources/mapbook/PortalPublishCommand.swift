import ArgumentParser
import MapbookLibrary
import MapbookPackage
import MapbookPortal
import MapbookSupport
import MapbookTerminal

struct PortalPublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a package to the portal: a new item, or a new version of the one published before.",
        discussion: """
            Validates the package first, as `mapbook validate` does, and refuses one with \
            errors. The item is found again by the package's GUID (its .info), which is put on \
            the item as the type keyword mmpkGuid:<guid>: publishing the same package again \
            updates that item (its modified date moves on, so devices see an update) instead \
            of adding a second one. Files over 50 MiB are uploaded in parts. The portal takes \
            the title, summary, tags, extent and thumbnail from the package unless --title is \
            given. Needs a signed-in user. Exit status 3 when the portal cannot be reached.

            With --from-sync ITEM instead of a package, the portal publishes the edits \
            synchronised to the item (`mapbook sync`) as its package's new version: the \
            package as published with its data replaced by the portal's copy, so devices that \
            download it fresh get every edit. Only the item's owner or an admin may.
            """)

    @Argument(help: "The package (.mmpk).")
    var path: String?

    @Option(name: .customLong("from-sync"), help: "Publish the edits synchronised to this item as its new version.")
    var fromSync: String?

    @Option(name: .long, help: "The item's title (default: the package's).")
    var title: String?

    @Option(name: .long, help: "Who sees the item: private, org or public (default: a new item is private, an update keeps its sharing).")
    var share: ShareLevel?

    @Option(name: .long, help: "The folder of a new item (created when missing).")
    var folder: String?

    /// For tests: a smaller part size sends small files in parts.
    @Option(name: .customLong("part-size"), help: .hidden)
    var partSize: Int64?

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print the item as JSON.")
    var json = false

    func validate() throws {
        if let partSize, partSize < 1 { throw ValidationError("--part-size must be positive") }
        guard (path != nil) != (fromSync != nil) else { throw ValidationError("give a package or --from-sync ITEM") }
        if let fromSync, !ItemID.isValid(fromSync) { throw ValidationError("'\(fromSync)' is not an item id") }
    }

    func run() async throws {
        guard let path = self.path else {
            try await publishSynchronised(fromSync ?? "")
            return
        }
        if let refusal = ValidateCommand.report(path).publishingRefusal {
            refusal.forEach(Output.error)
            throw ExitCode.failure
        }
        let manifest = try LibraryCommand.attempt { try MobileMapPackage(path: path).manifest }
        let library = LibraryCommand.library()
        let options = PackagePublisher.Options(title: title, share: share, folder: folder)
        let partSize = self.partSize
        let bar = TransferProgress("uploading \(FileSystem.lastComponent(path))")
        let outcome = try await PortalSession.run(library, connection, requireSignIn: true) { client in
            var publisher = PackagePublisher(client: client)
            if let partSize { publisher.partSize = partSize }
            defer { bar.finish() }
            return try await publisher.publish(path: path, manifest: manifest, options: options) { done, total in
                bar.update(done: done, total: total)
            }
        }
        var out = Output()
        if json {
            out.json(outcome.jsonValue)
        } else {
            out.line(outcome.item.id)
            Output.error(outcome.line)
        }
        out.flush()
    }

    /// `--from-sync ITEM`: the portal makes the new version; this prints what it made.
    func publishSynchronised(_ itemId: String) async throws {
        let library = LibraryCommand.library()
        let answer = try await PortalSession.run(library, connection, requireSignIn: true) { client in
            try await client.publishSync(itemId: itemId)
        }
        var out = Output()
        if json { out.json(answer.jsonValue) } else { out.line(itemId) }
        if !json { Output.error(answer.line) }
        out.flush()
    }
}

extension ShareLevel: ExpressibleByArgument {}
