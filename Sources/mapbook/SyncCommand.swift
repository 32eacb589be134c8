#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPackage
import MapbookPortal
import MapbookSupport

/// `mapbook sync`: a downloaded package's edits to the portal and everyone else's back
/// (issue 19; docs/PORTAL.md "Synchronising edits").
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send this device's edits of downloaded packages to the portal and receive everyone else's.",
        discussion: """
            Sends the pending edits (`mapbook edit edits`) of the named downloaded package, or of \
            every downloaded package with editable layers, as one changeset, and receives every \
            feature changed on the portal since this device last synchronised. Conflicts are \
            resolved per field against the values both sides started from: the same new value \
            is no conflict; different values go to the last to synchronise, or, where the \
            project says `conflicts: manual`, keep the portal's value for a person to choose; \
            an update against a delete loses to the delete. Every conflict is reported, and kept \
            in the working copy (`--conflicts` lists them). A sync cut short (offline, killed) \
            is completed by the next: the same changeset is sent again and applied once. \
            Exit status 3 when the portal cannot be reached.
            """)

    @Argument(help: "A downloaded package: its item id, file name or title (default: every one with editable layers).")
    var package: String?

    @Flag(name: .long, help: "List the conflicts earlier syncs reported for the package, without synchronising.")
    var conflicts = false

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print what happened as JSON.")
    var json = false

    /// What one package's sync did.
    struct Outcome {
        var entry: LibraryEntry
        var sent: Int
        var response: SyncResponse
    }

    func run() async throws {
        let library = LibraryCommand.library()
        let entries = try LibraryCommand.attempt { () throws -> [LibraryEntry] in
            let all = try library.list().filter { $0.itemId != nil && $0.problem == nil }
            guard let package else { return all.filter { Self.isEditable($0.path) } }
            let ways: [(LibraryEntry) -> Bool] = [{ $0.itemId == package }, { $0.name == package || $0.name == package + ".mmpk" }, { $0.title == package }, { $0.path == package }]
            guard let found = ways.lazy.map({ all.filter($0) }).first(where: { !$0.isEmpty }) else {
                throw SyncError(kind: .notSynchronised, message: "'\(package)' is not a downloaded package (`mapbook library list` shows them; sideloaded packages have no portal to synchronise with)")
            }
            return found
        }
        if conflicts {
            try listConflicts(entries)
            return
        }
        var outcomes: [Outcome] = []
        if !entries.isEmpty {
            outcomes = try await PortalSession.run(library, connection, requireSignIn: true) { client in
                var outcomes: [Outcome] = []
                for entry in entries { outcomes.append(try await Self.synchronise(entry, client: client)) }
                return outcomes
            }
        }
        var out = Output()
        if json {
            out.line(JSONWriter.string(.object(["packages": .array(outcomes.map(Self.jsonValue))])).trimmingTrailingNewline())
        } else if outcomes.isEmpty {
            out.line("No downloaded packages with editable layers to synchronise.")
        } else {
            for outcome in outcomes { Self.describe(outcome, into: &out) }
        }
        out.flush()
    }

    /// One package: the request made (or the unfinished one again), sent, its answer applied.
    static func synchronise(_ entry: LibraryEntry, client: PortalClient) async throws -> Outcome {
        let (copy, request, requestFile) = try LibraryCommand.attempt { () throws -> (WorkingCopy, SyncRequest, String) in
            let (_, copy) = try EditCommand.open(entry.path, forSync: true)
            let request = try copy.syncRequest()
            let file = copy.folder + "/sync-request.json"
            try AtomicFile.write(JSONWriter.bytes(request.json, style: .compact), to: file)
            return (copy, request, file)
        }
        let itemId = entry.itemId ?? ""
        let sent = try SQLiteChangeset.changes(request.changeset, source: requestFile).count
        // Attachments first, each once: the portal refuses a sync whose files it lacks.
        let attachments = try LibraryCommand.attempt { try copy.attachmentsToSend(request) }
        let missing = Set(try await client.missingAttachments(itemId: itemId, hashes: attachments.map(\.sha256)))
        for (sha, bytes) in attachments where missing.contains(sha) {
            Output.error("Uploading an attachment (\(bytes.count) bytes)...")
            let staged = copy.folder + "/upload-" + sha
            try LibraryCommand.attempt { try AtomicFile.write(bytes, to: staged) }
            defer { unlink(staged) }
            _ = try await client.uploadAttachment(itemId: itemId, file: staged)
        }
        Output.error("Sending \(LibraryCommand.count(sent, "change")) of '\(entry.title)' to the portal...")
        let answer = try await client.sync(itemId: itemId, requestFile: requestFile)
        let response = try LibraryCommand.attempt { try SyncResponse(json: .object(answer), source: "the portal's answer") }
        var fetched: [String: [UInt8]] = [:]
        for sha in try LibraryCommand.attempt({ try copy.attachmentsToFetch(response) }) {
            fetched[sha] = try await client.downloadAttachment(itemId: itemId, sha256: sha)
        }
        return try LibraryCommand.attempt {
            Output.error("Applying \(LibraryCommand.count(response.rows.count, "feature")) from the portal...")
            try copy.complete(response, now: Int64(time(nil))) { fetched[$0] }
            unlink(requestFile)
            return Outcome(entry: entry, sent: sent, response: response)
        }
    }

    /// Whether the package's data has editable layers (read in place, no working copy made).
    static func isEditable(_ path: String) -> Bool {
        guard let package = try? MobileMapPackage(path: path),
            let entry = package.dataEntry,
            let database = try? package.database(entry)
        else { return false }
        return !((try? EditSchema.editableTables(database)) ?? []).isEmpty
    }

    func listConflicts(_ entries: [LibraryEntry]) throws {
        var out = Output()
        var all: [JSONValue] = []
        for entry in entries {
            let (_, copy) = try EditCommand.open(entry.path)
            let found = try LibraryCommand.attempt { try copy.conflicts() }
            if json {
                all += found.map { item in
                    var o = item.conflict.json.objectValue ?? JSONObject()
                    o["itemId"] = .string(entry.itemId ?? "")
                    o["time"] = .string(ISODate.format(seconds: item.time))
                    return .object(o)
                }
            } else {
                out.line("\(entry.title): \(found.isEmpty ? "no conflicts" : LibraryCommand.count(found.count, "conflict"))")
                Self.table(found.map(\.conflict), into: &out)
            }
        }
        if json { out.line(JSONWriter.string(.array(all)).trimmingTrailingNewline()) }
        out.flush()
    }

    static func describe(_ outcome: Outcome, into out: inout Output) {
        let r = outcome.response
        out.line(
            "Synchronised '\(outcome.entry.title)' (\(outcome.entry.itemId ?? "")): sent \(LibraryCommand.count(outcome.sent, "change"))\(r.applied ? "" : " (applied before: an earlier sync was cut short)"), received \(LibraryCommand.count(r.rows.count, "feature")), generation \(r.generation).")
        if r.conflicts.isEmpty { return }
        out.line("\(LibraryCommand.count(r.conflicts.count, "conflict")):")
        table(r.conflicts, into: &out)
    }

    /// The conflicts as a table: layer, globalid, column, base, theirs, ours, outcome.
    static func table(_ conflicts: [SyncConflict], into out: inout Output) {
        guard !conflicts.isEmpty else { return }
        let rows = [["LAYER", "GLOBALID", "COLUMN", "BASE", "THEIRS", "OURS", "OUTCOME"]] + conflicts.map { c in
            [c.layer, c.globalid, c.column, shown(c.base), shown(c.theirs), shown(c.ours), outcomeText(c.outcome)]
        }
        let widths = (0..<7).map { i in rows.map { $0[i].count }.max() ?? 0 }
        for row in rows {
            out.line("  " + row.enumerated().map { i, cell in i == 6 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  "))
        }
    }

    static func outcomeText(_ outcome: SyncConflict.Outcome) -> String {
        switch outcome {
        case .ours: return "ours kept (last sync wins)"
        case .manual: return "theirs kept, choose by editing"
        case .deleted: return "deleted (delete wins)"
        }
    }

    static func shown(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "-"
        case .integer(let i): return String(i)
        case .real(let d): return JSONWriter.formatNumber(d)
        case .text(let s): return s
        case .blob(let b): return "(geometry, \(b.count) bytes)"
        }
    }

    static func jsonValue(_ outcome: Outcome) -> JSONValue {
        .object(JSONObject([
            ("itemId", .string(outcome.entry.itemId ?? "")), ("title", .string(outcome.entry.title)), ("sent", .integer(Int64(outcome.sent))),
            ("received", .integer(Int64(outcome.response.rows.count))), ("generation", .integer(outcome.response.generation)),
            ("appliedBefore", .bool(!outcome.response.applied)), ("conflicts", .array(outcome.response.conflicts.map(\.json))),
        ]))
    }
}
