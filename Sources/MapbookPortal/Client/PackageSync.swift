#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPackage
import MapbookSupport

/// A downloaded package's edits sent to the portal and everyone else's received (issue 19;
/// docs/PORTAL.md "Synchronising edits"), for `mapbook sync` and the viewers' sync action.
public enum PackageSync {
    /// What one package's sync did.
    public struct Outcome: Sendable {
        public var entry: LibraryEntry
        /// The changes this device sent.
        public var sent: Int
        public var response: SyncResponse

        /// What happened as people read it: one line, then the conflicts as a table.
        public var lines: [String] {
            let r = response
            var lines = [
                "Synchronised '\(entry.title)' (\(entry.itemId ?? "")): sent \(Format.count(sent, "change"))\(r.applied ? "" : " (applied before: an earlier sync was cut short)"), received \(Format.count(r.rows.count, "feature")), generation \(r.generation)."
            ]
            if r.conflicts.isEmpty { return lines }
            lines.append("\(Format.count(r.conflicts.count, "conflict")):")
            return lines + SyncConflict.tableLines(r.conflicts)
        }

        public var jsonValue: JSONValue {
            .object(JSONObject([
                ("itemId", .string(entry.itemId ?? "")), ("title", .string(entry.title)), ("sent", .integer(Int64(sent))),
                ("received", .integer(Int64(response.rows.count))), ("generation", .integer(response.generation)),
                ("appliedBefore", .bool(!response.applied)), ("conflicts", .array(response.conflicts.map(\.json))),
            ]))
        }
    }

    /// One package: its request made (or the unfinished one again), its attachments the portal
    /// lacks uploaded first, the changeset sent, the answer and the files it names applied to
    /// `copy`. A sync cut short is completed by the next: the same request is sent again and
    /// applied once. `status` hears each step, for a person watching.
    public static func run(_ entry: LibraryEntry, copy: WorkingCopy, client: PortalClient, status: (String) -> Void) async throws -> Outcome {
        let request = try copy.syncRequest()
        let requestFile = copy.folder + "/sync-request.json"
        try AtomicFile.write(JSONWriter.bytes(request.json, style: .compact), to: requestFile)
        let itemId = entry.itemId ?? ""
        let sent = try SQLiteChangeset.changes(request.changeset, source: requestFile).count
        // Attachments first, each once: the portal refuses a sync whose files it lacks.
        let attachments = try copy.attachmentsToSend(request)
        let missing = Set(try await client.missingAttachments(itemId: itemId, hashes: attachments.map(\.sha256)))
        for (sha, bytes) in attachments where missing.contains(sha) {
            status("Uploading an attachment (\(bytes.count) bytes)...")
            let staged = copy.folder + "/upload-" + sha
            try AtomicFile.write(bytes, to: staged)
            defer { unlink(staged) }
            _ = try await client.uploadAttachment(itemId: itemId, file: staged)
        }
        status("Sending \(Format.count(sent, "change")) of '\(entry.title)' to the portal...")
        let answer = try await client.sync(itemId: itemId, requestFile: requestFile)
        let response = try SyncResponse(json: .object(answer), source: "the portal's answer")
        var fetched: [String: [UInt8]] = [:]
        for sha in try copy.attachmentsToFetch(response) {
            fetched[sha] = try await client.downloadAttachment(itemId: itemId, sha256: sha)
        }
        status("Applying \(Format.count(response.rows.count, "feature")) from the portal...")
        try copy.complete(response, now: Int64(time(nil))) { fetched[$0] }
        unlink(requestFile)
        return Outcome(entry: entry, sent: sent, response: response)
    }

    /// The portal the library is signed in to, and the user; nil when nobody is.
    public static func account(_ library: DeviceLibrary) -> (portal: String, user: String)? {
        guard let portal = try? library.portalURL(), let credential = try? library.credential() else { return nil }
        return (portal, credential.username)
    }

    /// One downloaded package synchronised with the library's portal, as the user signed in
    /// to it, trusting the certificate the library keeps: the viewers' sync action (a page of
    /// `mapbook serve`), where nobody is at a terminal to type a password again.
    public static func run(_ entry: LibraryEntry, library: DeviceLibrary, status: (String) -> Void = { _ in }) async throws -> Outcome {
        guard let portal = try library.portalURL(), let credential = try library.credential() else {
            throw PortalClientError(.signInRequired, url: try library.portalURL() ?? "the portal", message: "nobody is signed in; sign in with mapbook portal signin")
        }
        let trust: PortalTrust = try library.portalCertificate().map { .certificate(path: $0) } ?? .system
        let package = try MobileMapPackage(path: entry.path)
        let copy = try WorkingCopy(package: package, folder: try library.editsFolder(packageGUID: WorkingCopy.guid(of: package)), forSync: true)
        return try await PortalClient.with(portalURL: portal, trust: trust, credential: credential, savingTo: library) { client in
            try await run(entry, copy: copy, client: client, status: status)
        }
    }

    /// The downloaded packages to synchronise: the one `name` names (its item id, file name,
    /// title or path, tried in that order), else every one with editable layers. Throws
    /// `SyncError` (`notSynchronised`) when `name` names no downloaded package.
    public static func entries(named name: String?, in library: DeviceLibrary) throws -> [LibraryEntry] {
        let all = try library.list().filter { $0.itemId != nil && $0.problem == nil }
        guard let name else { return all.filter { hasEditableLayers($0.path) } }
        let ways: [(LibraryEntry) -> Bool] = [{ $0.itemId == name }, { $0.name == name || $0.name == name + ".mmpk" }, { $0.title == name }, { $0.path == name }]
        guard let found = ways.lazy.map({ all.filter($0) }).first(where: { !$0.isEmpty }) else {
            throw SyncError(kind: .notSynchronised, message: "'\(name)' is not a downloaded package (`mapbook library list` shows them; sideloaded packages have no portal to synchronise with)")
        }
        return found
    }

    /// Whether the package's data has editable layers (read in place, no working copy made).
    public static func hasEditableLayers(_ path: String) -> Bool {
        guard let package = try? MobileMapPackage(path: path),
            let entry = package.dataEntry,
            let database = try? package.database(entry)
        else { return false }
        return !((try? EditSchema.editableTables(database)) ?? []).isEmpty
    }
}
