import ArgumentParser
import MapbookEditing
import MapbookPackage
import MapbookSupport

struct EditAttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach", abstract: "Attach a file (a photo, a PDF) to a feature.",
        discussion: "The file is copied into the working copy; a sync sends it once, by its SHA-256. Refused above the layer's size limit (10 MB unless the project says).")

    @OptionGroup var options: EditLayerOptions

    @Argument(help: "The feature's id (fid).")
    var id: Int64

    @Argument(help: "The file to attach.")
    var file: String

    @Option(name: .long, help: "Its MIME type (default: from the file name's extension).")
    var contentType: String?

    func run() throws {
        let bytes = try LibraryCommand.attempt { try WorkingCopy.attachmentBytes(file: file, layer: options.layer) }
        let name = FileSystem.lastComponent(file)
        try EditCommand.perform(options) { copy, table in
            try copy.attach(layer: table, fid: id, bytes: bytes, name: name, contentType: contentType ?? WorkingCopy.contentType(forName: name), now: EditCommand.now)
        }
    }
}
