#if canImport(Glibc)
import Glibc
#endif
import Logging
import MapbookSupport

/// Log lines as JSON objects on stderr (`--log-format json`), one per line, for log
/// collectors: time (UTC, milliseconds), level, logger, message, then the metadata
/// (Hummingbird's request id, method and path among them).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var o: JSONObject = [
            "time": .string(Self.timestamp()), "level": .string(event.level.rawValue), "logger": .string(label),
            "message": .string(event.message.description),
        ]
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        for (key, value) in all.sorted(by: { $0.key < $1.key }) where o[key] == nil { o[key] = .string(value.description) }
        var bytes = JSONWriter.bytes(.object(o), style: .compact)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress!, $0.count) }
    }

    static func timestamp() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = ts.tv_sec
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let ms = String(ts.tv_nsec / 1_000_000)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) + "." + String(repeating: "0", count: 3 - ms.count) + ms + "Z"
    }
}
