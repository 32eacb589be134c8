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
            let items: [JSONValue] = pending.map { c in
                .object([
                    "id": .integer(c.id), "layer": .string(c.layer), "operation": .string(c.operation.rawValue), "fid": .integer(c.fid),
                    "globalid": .string(c.globalid), "time": .string(ISODate.format(seconds: c.time)), "changesetBytes": .integer(Int64(c.changeset.count)),
                ])
            }
            print(JSONWriter.string(.array(items), style: .pretty))
            return
        }
        if pending.isEmpty { print("No pending edits.") }
        for c in pending {
            print("\(c.id). \(ISODate.format(seconds: c.time)) \(c.operation.rawValue) \(c.layer) \(c.fid) \(c.globalid)")
        }
    }
}
