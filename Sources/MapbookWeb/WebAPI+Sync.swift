import Hummingbird
import MapbookEditing
import MapbookLibrary
import MapbookSupport
import MapbookViewer

/// Synchronising from a map page (docs/SERVE.md): whether this package can be synchronised
/// and with whom, the conflicts earlier syncs reported, and the sync itself, through the
/// `WebSync` the serving program gives. One sync of a package runs at a time; the map's data
/// and locator are read again after it, so what others changed shows at once.
extension WebAPI {
    func registerSync(_ router: Hummingbird.Router<BasicRequestContext>) {
        router.get("/api/packages/:package/sync") { _, context in
            let (host, entry) = try syncTarget(context)
            var o: JSONObject = ["available": .bool(false)]
            let account = catalog.sync?.account()
            if let account {
                o["portal"] = .string(account.portal)
                o["user"] = .string(account.user)
            }
            if let reason = unavailable(entry, account: account) {
                o["reason"] = .string(reason)
            } else {
                o["available"] = .bool(true)
            }
            o["takeOffline"] = .bool(catalog.sync?.takeOffline != nil && unavailable(entry, account: account) == nil)
            if let entry, let guid = host.guid, let library = catalog.library, library.hasEditsFolder(packageGUID: guid) {
                let found = try host.withSession { state in
                    try DeviceEdits.workingCopy(of: state.session.package, library: library).conflicts()
                }
                o["itemId"] = .string(entry.itemId ?? "")
                o["conflicts"] = .array(found.map { item in
                    var c = item.conflict.json.objectValue ?? JSONObject()
                    c["time"] = .string(ISODate.format(seconds: item.time))
                    return .object(c)
                })
            }
            return WebResponses.json(.object(o))
        }
        router.post("/api/packages/:package/sync") { _, context in
            let (host, entry) = try syncTarget(context)
            if let reason = unavailable(entry, account: catalog.sync?.account()) { throw WebError(status: .conflict, kind: "notSynchronisable", message: reason) }
            guard let entry, let sync = catalog.sync else { throw WebError(status: .conflict, kind: "notSynchronisable", message: "nothing to synchronise") }
            guard host.beginSync() else {
                throw WebError(status: .conflict, kind: "syncInProgress", message: "'\(entry.title)' is being synchronised already; wait for it to finish")
            }
            defer { host.endSync() }
            let outcome = try await sync.run(entry)
            try host.withSession { state in state.dataChanged() }
            return WebResponses.json(outcome)
        }
    }

    /// Taking the area on screen offline (docs/SERVE.md): `{bbox: [w, s, e, n], maxScale}`
    /// in, the new download out, once the portal has made the package and it is in the library.
    func registerTakeOffline(_ router: Hummingbird.Router<BasicRequestContext>) {
        router.post("/api/packages/:package/offline") { request, context in
            let (_, entry) = try syncTarget(context)
            if let reason = unavailable(entry, account: catalog.sync?.account()) { throw WebError(status: .conflict, kind: "notOnPortal", message: reason) }
            guard let entry, let take = catalog.sync?.takeOffline else { throw WebError(status: .conflict, kind: "notOnPortal", message: "this server does not take areas offline") }
            let body = try await Self.body(request)
            let numbers = (body.array("bbox") ?? []).compactMap(\.doubleValue)
            guard numbers.count == 4, let box = BoundingBox.degrees(numbers.map { String($0) }.joined(separator: ",")) else {
                throw WebError.badRequest("give bbox as [west, south, east, north] in degrees")
            }
            let scale = body.double("maxScale").flatMap { $0 >= 1 && $0.isFinite ? $0 : nil }
            return WebResponses.json(try await take(entry, [box.minX, box.minY, box.maxX, box.maxY], scale))
        }
    }

    /// Updating a downloaded package from the library page: the portal's current version
    /// downloaded (by delta from the one held when it can), the package opened again from the
    /// new file. Answers the download's JSON, with what to say (`summary`).
    func registerUpdate(_ router: Hummingbird.Router<BasicRequestContext>) {
        router.post("/api/packages/:package/update") { _, context in
            let key = try context.parameters.require("package")
            guard let listing = catalog.listings().first(where: { $0.key == key }) else { throw WebError.notFound("no package '\(key)' is served here") }
            let entry = listing.libraryEntry
            if let reason = unavailable(entry, account: catalog.sync?.account()) { throw WebError(status: .conflict, kind: "notOnPortal", message: reason) }
            guard let entry, let update = catalog.sync?.update else { throw WebError(status: .conflict, kind: "notOnPortal", message: "this server does not update packages") }
            let outcome = try await update(entry)
            catalog.forget(key)
            return WebResponses.json(outcome)
        }
    }

    /// The package of the request and its device library entry (nil for a file served by path).
    private func syncTarget(_ context: BasicRequestContext) throws -> (PackageHost, LibraryEntry?) {
        let host = try catalog.host(try context.parameters.require("package"))
        return (host, catalog.listings().first(where: { $0.key == host.key })?.libraryEntry)
    }

    /// Why the package cannot be synchronised from here, `account` signed in; nil when it can.
    private func unavailable(_ entry: LibraryEntry?, account: WebSync.Account?) -> String? {
        guard catalog.sync != nil else { return "this server does not synchronise (it was started without the device library's portal)" }
        guard let entry, entry.itemId != nil else { return "only packages downloaded from a portal are synchronised (mapbook portal download)" }
        guard account != nil else { return "nobody is signed in to the portal; sign in with mapbook portal signin, then synchronise" }
        return nil
    }
}
