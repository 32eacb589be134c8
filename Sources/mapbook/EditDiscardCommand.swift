import ArgumentParser
import MapbookEditing
import MapbookPackage
import MapbookSupport

struct EditDiscardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "discard", abstract: "Throw away the working copy and every edit not yet synchronised.")

    @Argument(help: "The package (.mmpk).")
    var path: String

    func run() throws {
        let count = try LibraryCommand.attempt { () throws -> Int in
            guard let guid = try MobileMapPackage(path: path).manifest.guid else { return 0 }
            return try WorkingCopy.discard(folder: try LibraryCommand.library().editsFolder(packageGUID: guid))
        }
        print("Discarded \(Format.count(count, "edit")); the package's own data shows again.")
    }
}
