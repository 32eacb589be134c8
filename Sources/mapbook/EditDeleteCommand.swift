import ArgumentParser

struct EditDeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a feature.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    func run() throws {
        try EditCommand.perform(options) { copy, table in
            try copy.delete(layer: table, fid: id, now: EditCommand.now)
        }
    }
}
