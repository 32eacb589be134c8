import ArgumentParser

struct EditUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "update", abstract: "Change fields of a feature.")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Option(name: .customLong("set"), help: ArgumentHelp("A field's value; empty to empty it (repeat for more).", valueName: "FIELD=VALUE"))
    var sets: [String] = []

    func validate() throws {
        guard !sets.isEmpty else { throw ValidationError("give at least one --set FIELD=VALUE") }
    }

    func run() throws {
        let values = try EditCommand.assignments(sets)
        try EditCommand.perform(options) { copy, table in
            try copy.update(layer: table, fid: id, values: values, user: EditCommand.user, now: EditCommand.now)
        }
    }
}
