import ArgumentParser

struct EditRelateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relate", abstract: "Add a related record (an inspection of a tree) to a feature.",
        discussion: "The record's fields are checked against the related table's rules, as `add` checks a feature's; its key is set to the feature's globalid.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Option(name: .long, help: "The related table.")
    var table: String

    @Option(name: .customLong("set"), help: ArgumentHelp("A field's value (repeat for more).", valueName: "FIELD=VALUE"))
    var sets: [String] = []

    func run() throws {
        let values = try EditCommand.assignments(sets)
        try EditCommand.perform(options) { copy, layer in
            try copy.relate(layer: layer, fid: id, related: table, values: values, user: EditCommand.user, now: EditCommand.now)
        }
    }
}
