import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport

extension PortalClient {
    /// A job's state as the portal reports it while it runs.
    public struct JobProgress: Sendable, Equatable {
        public var status: String
        public var percent: Int
        /// Messages new since the last report.
        public var messages: [String]

        /// The new messages as `take-offline` prints them, each with how far the job has come.
        public var lines: [String] {
            let percent = String(percent)
            return messages.map { "[\(String(repeating: " ", count: max(0, 3 - percent.count)))\(percent)%] \($0)" }
        }
    }

    /// Asks the portal to take an area of a web map (or of the package or feature service it
    /// was made from) offline as a new package (docs/PORTAL.md "Map areas taken offline"), and
    /// waits for the job: `area` is west, south, east, north in degrees; `maxScale` the
    /// largest scale's denominator the backdrop keeps tiles for (nil: all). `progress` hears
    /// each change. Returns the new package item, for `PackageDownloader`.
    public func takeOffline(
        itemId: String, area: [Double], maxScale: Double?, title: String? = nil, progress: (@Sendable (JobProgress) -> Void)? = nil
    ) async throws -> PortalItem {
        let task = "\(portalURL)/rest/services/System/OfflinePackaging/GPServer/PackageMap"
        var fields = [("webmapItemId", itemId), ("areaOfInterest", area.map { String($0) }.joined(separator: ","))]
        if let maxScale { fields.append(("maxScale", String(maxScale))) }
        if let title { fields.append(("title", title)) }
        let submitted = try await call("\(task)/submitJob", method: .POST, body: .form(fields))
        guard let job = submitted.string("jobId"), ItemID.isValid(job) else {
            throw PortalClientError(.badResponse, url: "\(task)/submitJob", message: "answered without a job id")
        }
        var seen = 0, wait: Duration = .milliseconds(200)
        while true {
            let state = try await call("\(task)/jobs/\(job)")
            let status = state.string("jobStatus") ?? ""
            let messages = (state.array("messages") ?? []).compactMap { $0.objectValue?.string("description") }
            let percent = state.object("progress")?.int("percent") ?? 0
            progress?(JobProgress(status: status, percent: percent, messages: Array(messages.dropFirst(seen))))
            seen = max(seen, messages.count)
            switch status {
            case "esriJobSucceeded":
                let result = try await call("\(task)/jobs/\(job)/results/packageItemId")
                guard let id = result.string("value"), ItemID.isValid(id) else {
                    throw PortalClientError(.badResponse, url: "\(task)/jobs/\(job)", message: "succeeded without naming the package item")
                }
                return try await item(id)
            case "esriJobFailed", "esriJobCancelled", "esriJobTimedOut":
                throw PortalClientError(.jobFailed, url: "\(task)/jobs/\(job)", message: "the portal could not take the area offline: \(messages.last ?? status)")
            default:
                try await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(2))
            }
        }
    }
}

extension PackageDownloader {
    /// An area of the item taken offline and downloaded into the library, as the user signed
    /// in to the library's portal, trusting the certificate it keeps: the viewers' action (a
    /// map page of `mapbook serve`), where nobody is at a terminal.
    /// `trust`: how to trust the portal's certificate (nil: the certificate the library keeps).
    public static func takeOffline(
        itemId: String, area: [Double], maxScale: Double?, title: String? = nil, library: DeviceLibrary, trust: PortalTrust? = nil
    ) async throws -> Outcome {
        try await withLibraryClient(library, trust: trust) { client in
            let item = try await client.takeOffline(itemId: itemId, area: area, maxScale: maxScale, title: title)
            return try await PackageDownloader(client: client, library: library).download(item)
        }
    }

    /// The item's current version downloaded into the library, by delta from the version
    /// held when the portal offers it (docs/PORTAL.md "Updates by delta"): the library page's
    /// Update action of `mapbook serve`, as the user signed in to the library's portal.
    public static func update(itemId: String, library: DeviceLibrary, trust: PortalTrust? = nil) async throws -> Outcome {
        try await withLibraryClient(library, trust: trust) { client in
            try await PackageDownloader(client: client, library: library).download(try await client.item(itemId))
        }
    }

    /// Runs `body` with a client of the library's portal as its signed-in user, trusting
    /// `trust` (nil: the certificate the library keeps); refused when nobody is signed in.
    static func withLibraryClient<T: Sendable>(_ library: DeviceLibrary, trust: PortalTrust?, _ body: (PortalClient) async throws -> T) async throws -> T {
        guard let portal = try library.portalURL(), let credential = try library.credential() else {
            throw PortalClientError(.signInRequired, url: try library.portalURL() ?? "the portal", message: "nobody is signed in; sign in with mapbook portal signin")
        }
        let trust = try trust ?? library.portalCertificate().map { .certificate(path: $0) } ?? .system
        return try await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library, body)
    }
}
