import ArgumentParser
import MapbookSupport

struct EditListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edits", abstract: "List the edits not yet synchronised, oldest first.")

    @Argument(help: "The package (.mmpk).")
    var path: String

    @Flag(name: .long, help: "Print them as JSON.")
    var json = false

    func run() throws {
        let (_, copy) = try EditCommand.open(path)
        let pending = try LibraryCommand.attempt { try copy.pending() }
        if json {
            print(JSONWriter.string(.array(pending.map(\.jsonValue)), style: .pretty))
            return
        }
        if pending.isEmpty { print("No pending edits.") }
        for c in pending { print(c.line) }
    }
}
