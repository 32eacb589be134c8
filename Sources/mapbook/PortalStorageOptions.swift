import ArgumentParser
import MapbookPortalServer

/// Where a portal keeps its state, the same for `serve` and the admin commands: the data
/// folder alone (SQLite and folders, the embedded default), or PostgreSQL for the metadata and
/// an S3 bucket for the files, shared by several portal processes.
struct PortalStorageOptions: ParsableArguments {
    @Option(name: .long, help: "The portal's data folder (created if missing): SQLite and the files by default; scratch space and sync copies otherwise.")
    var data: String

    @Option(name: .long, help: ArgumentHelp("Keep users, tokens, items and groups in PostgreSQL at this URL instead of SQLite in the data folder (the password from PGPASSWORD).", valueName: "postgres://USER@HOST:PORT/DATABASE"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("Keep item files in this S3 bucket instead of the data folder (credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION).", valueName: "s3://BUCKET"))
    var files: String?

    @Option(name: .customLong("s3-endpoint"), help: ArgumentHelp("The S3 server of --files (AWS: https://s3.REGION.amazonaws.com).", valueName: "URL"))
    var s3Endpoint: String?

    func validate() throws {
        if files != nil, s3Endpoint == nil { throw ValidationError("--files s3://BUCKET needs --s3-endpoint URL") }
        if files == nil, s3Endpoint != nil { throw ValidationError("--s3-endpoint is for --files s3://BUCKET") }
        if let files, !files.lowercased().hasPrefix("s3://") { throw ValidationError("--files must be an S3 bucket URL, s3://BUCKET") }
    }

    var configuration: PortalConfiguration {
        var configuration = PortalConfiguration(dataDirectory: data)
        configuration.storeURL = store
        configuration.filesURL = files
        configuration.s3Endpoint = s3Endpoint
        return configuration
    }
}
