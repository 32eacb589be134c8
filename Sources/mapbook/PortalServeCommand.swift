import ArgumentParser
import MapbookPortalServer

#if canImport(Glibc)
import Glibc
#endif

struct PortalServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a portal over HTTPS from a data folder.",
        discussion: """
            The data folder holds the metadata (portal.sqlite), the item files and, with \
            --self-signed, a certificate made on the first run and kept for the next ones. \
            Several processes (behind a load balancer) share one portal with --store \
            postgres://... for the metadata and --files s3://BUCKET --s3-endpoint URL for the \
            files (docs/PORTAL.md). \
            Add users first with 'mapbook portal user add'. Stops cleanly on Ctrl-C or \
            SIGTERM, finishing the requests under way. Logs go to stderr; --log-level debug \
            shows every request.
            """)

    @OptionGroup var storage: PortalStorageOptions

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0: any free port, printed at start).")
    var port = 8443

    @Option(name: .customLong("tls-cert"), help: "The server certificate (PEM, chain allowed).")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The certificate's private key (PEM).")
    var tlsKey: String?

    @Flag(name: .customLong("self-signed"), help: "Make a self-signed certificate on the first run and keep it in DATA/tls.")
    var selfSigned = false

    @Flag(name: .customLong("no-validate"), help: "Accept packages that 'mapbook validate' rejects.")
    var noValidate = false

    @Option(name: .customLong("max-upload-mb"), help: "The largest file an upload may bring, in MiB (default 8192).")
    var maxUploadMB: Int64 = 8192

    @Option(name: .customLong("max-form-kb"), help: "The largest form a request may bring (fields, not files), in KiB (default 4096).")
    var maxFormKB = 4096

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp("A proxy (load balancer) address whose X-Forwarded-For names the client, for the sign-in limits; repeat for several.", valueName: "ADDRESS"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning or error.")
    var logLevel = "info"

    @Option(name: .customLong("log-format"), help: "text, or json: one JSON object a line, for log collectors.")
    var logFormat = "text"

    /// For tests: a server that stops by itself even if the test that started it dies.
    @Option(name: .customLong("stop-after"), help: .hidden)
    var stopAfter: Int?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard logFormat == "text" || logFormat == "json" else { throw ValidationError("--log-format must be text or json") }
        guard maxUploadMB >= 1, maxFormKB >= 16 else { throw ValidationError("--max-upload-mb must be at least 1 and --max-form-kb at least 16") }
        if selfSigned {
            guard tlsCert == nil, tlsKey == nil else { throw ValidationError("give either --self-signed or --tls-cert with --tls-key, not both") }
        } else {
            guard tlsCert != nil, tlsKey != nil else {
                throw ValidationError("the portal serves HTTPS only: give --tls-cert FILE --tls-key FILE, or --self-signed for a first run")
            }
        }
    }

    func run() async throws {
        var configuration = storage.configuration
        configuration.validatePackages = !noValidate
        configuration.limits.fileBytes = maxUploadMB << 20
        configuration.limits.formBytes = maxFormKB << 10
        configuration.trustedProxies = Set(trustedProxies)
        let portal = try await LibraryCommand.attempt { try await Portal.open(configuration) }
        if try await portal.store.users().isEmpty {
            Output.error("note: the portal has no users yet; add one with 'mapbook portal user add NAME --admin --data \(storage.data)\(storage.store.map { " --store \($0)" } ?? "") --password-stdin'")
        }
        let tls: PortalTLS = selfSigned ? .selfSigned : .files(certificate: tlsCert!, key: tlsKey!)
        let data = storage.data
        if let stopAfter { Self.stop(after: stopAfter) }
        try await LibraryCommand.attempt {
            try await PortalServer.run(portal: portal, host: host, port: port, tls: tls, logLevel: logLevel, jsonLogs: logFormat == "json") { address in
                Output.write("Mapbook portal on \(address) (data \(data))\n", to: STDOUT_FILENO)
            }
        }
    }
}

extension PortalServeCommand {
    /// For tests: the server stops itself (SIGTERM, as a user would) after `seconds`.
    static func stop(after seconds: Int) {
        Task.detached {
            try? await Task.sleep(for: .seconds(seconds))
            kill(getpid(), SIGTERM)
        }
    }
}
