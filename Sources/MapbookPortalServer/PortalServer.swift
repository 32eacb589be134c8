#if canImport(Glibc)
import Glibc
#endif
import CMapbookLazy
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import MapbookPortalAPI
import MapbookSupport

/// Where the server's certificate comes from.
public enum PortalTLS: Sendable {
    case files(certificate: String, key: String)
    /// Made on the first run and kept in `<data>/tls/`.
    case selfSigned
}

/// Runs the portal over HTTPS until SIGINT or SIGTERM, then finishes the requests in flight.
public enum PortalServer {
    /// The application, for `run` and for tests (HummingbirdTesting runs it without sockets).
    public static func application(
        portal: Portal, host: String = "127.0.0.1", port: Int = 0, tls: TLSConfiguration? = nil, logger: Logger = Logger(label: "mapbook.portal"),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let server: HTTPServerBuilder = try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1()
        return Application(
            router: try PortalRoutes.router(portal, secure: tls != nil), server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Mapbook-Portal"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// The TLS configuration: the given files, or the kept self-signed pair (made if missing).
    public static func tlsConfiguration(_ tls: PortalTLS, dataDirectory: String, host: String) throws -> TLSConfiguration {
        var certificate: String, key: String
        switch tls {
        case .files(let c, let k):
            certificate = c
            key = k
        case .selfSigned:
            let dir = "\(dataDirectory)/tls"
            certificate = "\(dir)/certificate.pem"
            key = "\(dir)/key.pem"
            if FileSystem.kind(certificate) == nil || FileSystem.kind(key) == nil {
                try Disk.makeDirectory(dataDirectory)
                try Disk.makeDirectory(dir)
                let pem = try SelfSignedCertificate.make(host: host)
                try writePrivate(Array(pem.key.utf8), to: key)
                try Disk.writeAtomically(Array(pem.certificate.utf8), to: certificate)
            }
        }
        let chain: [NIOSSLCertificate]
        let privateKey: NIOSSLPrivateKey
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw PortalStoreError(kind: .invalidCertificate, path: certificate, message: "cannot read the certificate (PEM expected): \(error)")
        }
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw PortalStoreError(kind: .invalidCertificate, path: key, message: "cannot read the private key (PEM expected): \(error)")
        }
        guard !chain.isEmpty else { throw PortalStoreError(kind: .invalidCertificate, path: certificate, message: "holds no certificate") }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }

    /// Writes a secret readable by its owner only, from the moment it exists.
    static func writePrivate(_ bytes: [UInt8], to path: String) throws {
        try Disk.writeAtomically(bytes, to: path, permissions: 0o600)
    }
}

extension PortalServer {
    /// Serves `portal` until SIGINT or SIGTERM; `announce` gets the address once it listens
    /// (with the real port when `port` is 0).
    public static func run(
        portal: Portal, host: String, port: Int, tls: PortalTLS, logLevel: String, jsonLogs: Bool = false,
        announce: @escaping @Sendable (String) -> Void
    ) async throws {
        runTasksOnEventLoops()
        keepLargeBuffersInTheHeap()
        var logger = jsonLogs ? Logger(label: "mapbook.portal", factory: { JSONLogHandler(label: $0) }) : Logger(label: "mapbook.portal")
        logger.logLevel = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        let configuration = try tlsConfiguration(tls, dataDirectory: portal.configuration.dataDirectory, host: host)
        let display = host.contains(":") ? "[\(host)]" : host
        let app = try application(portal: portal, host: host, port: port, tls: configuration, logger: logger) { bound in
            announce("https://\(display):\(bound)")
        }
        try await app.runService()
    }

    /// Every ranged download reads into a buffer of up to 256 KiB and hands it to TLS. glibc
    /// serves blocks past 128 KiB with `mmap` and gives them back on free, so each range
    /// faulted in and zeroed fresh pages (5% of the server's time under load in `perf`, the
    /// kernel's page faults and memory-cgroup charges). Fixed thresholds keep such blocks
    /// in the heap to be reused: at most 32 MiB of freed memory is held before any is returned.
    static func keepLargeBuffersInTheHeap() {
        mapbook_malloc_thresholds(4 << 20, 32 << 20)
    }
}
