#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookEditing
import MapbookPackage
import MapbookPortalAPI
import MapbookRouting
import MapbookSearch
import MapbookSupport
import MapbookTiles
import NIOPosix
import Synchronization

/// Map areas taken offline on demand (issue 33, docs/PORTAL.md "Map areas taken offline"):
/// from a web map (or its service or package), an area and a largest scale, a job makes a new
/// package holding the features inside the area as the service has them now, the backdrop's
/// tiles for the area up to that scale and the locators made again from the cut data. The
/// package is a new item owned by the caller, marked with its source (`areaKeyword`); a
/// device that synchronises it reaches the source's authoritative copy, so its edits reach
/// the online layer.
///
/// Jobs live in the store (`JobRecord`), so any process answers for any job. The work is
/// staged in files no item names: a job stopped with its process leaves no package, and
/// `sweep` fails it when the portal starts again (or, with a shared store, once its
/// heartbeat has stopped).
extension Portal {
    static let areaKeywordPrefix = "mapbookAreaOf:"
    static func areaKeyword(_ packageId: String) -> String { areaKeywordPrefix + packageId }

    /// How often a running job says it is alive, and after how long without a word it is
    /// taken for dead (milliseconds).
    static let jobHeartbeat: Duration = .seconds(15)
    static let jobStaleAfter: Int64 = 120_000
    /// Finished jobs are kept this long for their status pages (milliseconds): a week.
    static let jobKeptFor: Int64 = 7 * 86_400_000
    /// Unfinished jobs one user may have.
    static let jobsPerUser = 3

    /// A job failed while it ran (its process taken for dead, or a sweep): it stops.
    struct JobStopped: Error {}

    /// The package whose copy an area item synchronises with, or nil when the item is not an
    /// area.
    static func areaSource(_ record: ItemRecord) -> String? {
        record.item.typeKeywords.first { $0.hasPrefix(areaKeywordPrefix) }.map { String($0.dropFirst(areaKeywordPrefix.count)) }
    }

    /// The item whose authoritative copy a sync of `record` works on: the area's source
    /// package, else the item itself.
    func syncTarget(_ record: ItemRecord) async throws -> ItemRecord {
        guard let id = Self.areaSource(record) else { return record }
        guard let source = try await store.item(id) else {
            throw PortalError(
                code: 400, messageCode: "SYNC_0005",
                message: "The package this area was taken from (\(id)) is no longer on the portal; its edits cannot be synchronised.", details: [id])
        }
        return source
    }

    /// The package an item stands for: a package itself, or the package a web map, feature
    /// service or map area was made from.
    func sourcePackage(of record: ItemRecord) async throws -> ItemRecord {
        if let area = Self.areaSource(record) {
            // An area of an area is an area of the package it came from.
            guard let source = try await store.item(area) else { throw PortalError.itemNotFound(area) }
            return source
        }
        if record.item.type == PackageManifest.mobileMapPackageType { return record }
        if let id = Self.madeFrom(record), let source = try await store.item(id) { return source }
        throw PortalError.badRequest(
            "Item \(record.item.id) is not a web map, feature service or package this portal made; a map area is taken from one of those.", details: [record.item.id])
    }

    /// Starts taking `area` of the item's package offline, for `user`, who must be allowed
    /// to see the package's feature service (or the package, when it has none). Answers at
    /// once with the submitted job.
    func submitOfflineArea(
        _ record: ItemRecord, area: AreaCut.Area, maxScale: Double?, title: String?, user: UserRecord, call: PortalRequest
    ) async throws -> JobRecord {
        let package = try await sourcePackage(of: record)
        // The package is handed over whole (every table, tile and locator of the area): its
        // reader must be allowed to see the package, and its service when it has one.
        _ = try await readableItem(package.item.id, user)
        if try await store.item(Self.serviceItemId(package.item.id)) != nil {
            _ = try await serviceItem(package.item.id, user)
        }
        guard let box = area.box, box.width > 0, box.height > 0, box.minX >= -180, box.maxX <= 180, box.minY >= -90, box.maxY <= 90 else {
            throw PortalError.badRequest("The area must be a region within longitudes -180 to 180 and latitudes -90 to 90.", details: ["areaOfInterest"])
        }
        // A few jobs per user at a time; finished ones are forgotten after a week.
        let now = TokenService.now()
        var open = 0
        for job in try await store.jobs() {
            if job.status.isFinished, job.modified < now - Self.jobKeptFor { try await store.deleteJob(job.id) }
            if !job.status.isFinished, job.owner.lowercased() == user.username.lowercased() { open += 1 }
        }
        guard open < Self.jobsPerUser else {
            throw PortalError(code: 429, messageCode: "GP_0002", message: "You have \(open) map areas being taken offline; wait for one to finish.", details: [])
        }
        var parameters: JSONObject = [
            "itemId": .string(record.item.id), "packageItemId": .string(package.item.id),
            "areaOfInterest": .array([box.minX, box.minY, box.maxX, box.maxY].map { .number($0) }),
        ]
        if let maxScale { parameters["maxScale"] = .number(maxScale) }
        let job = JobRecord(id: TokenService.newId(), owner: user.username, parameters: parameters, now: now)
        try await store.saveJob(job)
        // The job outlives the request: it keeps what `finish` needs of it (its address), not
        // its form or its connection.
        var jobCall = call
        jobCall.parameters = RequestParameters()
        jobCall.clientLeft = nil
        let name = String((title.flatMap { $0.isEmpty ? nil : $0 } ?? "\(package.item.title) (area)").prefix(250))
        jobCall.parameters.values["title"] = name
        Task.detached { await self.runOfflineArea(job, package: package, area: area, maxScale: maxScale, title: name, user: user, call: jobCall) }
        return job
    }

    /// A job as its owner (or an admin) may see it; a job whose process stopped answering is
    /// failed here.
    func job(_ id: String, _ user: UserRecord) async throws -> JobRecord {
        guard var job = try await store.job(id), job.owner.lowercased() == user.username.lowercased() || user.isAdmin else {
            throw PortalError(code: 404, messageCode: "GP_0001", message: "No job \(id).", details: [id])
        }
        if !job.status.isFinished, job.modified < TokenService.now() - Self.jobStaleAfter {
            job.status = .failed
            job.messages.append("The portal process running the job stopped; submit it again.")
            try await store.saveJob(job)
        }
        return job
    }

    /// Fails the jobs whose process stopped (all unfinished ones when this process is the
    /// only one) and forgets finished jobs older than a week. Returns how many were failed.
    static func sweepJobs(store: any PortalStore, shared: Bool) async throws -> Int {
        let now = TokenService.now()
        var failed = 0
        for var job in try await store.jobs() {
            if job.status.isFinished {
                if job.modified < now - jobKeptFor { try await store.deleteJob(job.id) }
            } else if !shared || job.modified < now - jobStaleAfter {
                job.status = .failed
                job.messages.append("The portal stopped while the job ran; submit it again.")
                job.modified = now
                try await store.saveJob(job)
                failed += 1
            }
        }
        return failed
    }

    /// Runs a job to its end, recording progress, and the package item or the error. It
    /// waits for its turn (`JobQueue`) saying it is alive; a job failed meanwhile stops.
    func runOfflineArea(_ submitted: JobRecord, package: ItemRecord, area: AreaCut.Area, maxScale: Double?, title: String, user: UserRecord, call: PortalRequest) async {
        let state = JobState(submitted)
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.jobHeartbeat)
                if !Task.isCancelled { try? await self.saveRunning(state.touch()) }
            }
        }
        await jobQueue.acquire()
        do {
            try await saveRunning(state.step(1, "Taking the area offline from \(package.item.title) (\(package.item.id))."))
            let made = try await makeAreaPackage(package, area: area, maxScale: maxScale, title: title, user: user, call: call, state: state)
            heartbeat.cancel()
            _ = await heartbeat.result
            try await store.saveJob(state.finish(made))
        } catch is JobStopped {
            heartbeat.cancel()
        } catch {
            heartbeat.cancel()
            _ = await heartbeat.result
            try? await store.saveJob(state.fail(Self.jobMessage(error)))
        }
        await jobQueue.release()
    }

    /// Saves a running job's record, unless it was failed meanwhile: then `JobStopped`.
    func saveRunning(_ job: JobRecord) async throws {
        if try await store.job(job.id)?.status == .failed { throw JobStopped() }
        try await store.saveJob(job)
    }

    /// What a failed job says of its error.
    static func jobMessage(_ error: any Error) -> String {
        if let portal = error as? PortalError { return ([portal.message] + portal.details.prefix(5)).joined(separator: " ") }
        return "\(error)"
    }

    /// Cuts the package and stores it as a new item; its id.
    func makeAreaPackage(
        _ package: ItemRecord, area: AreaCut.Area, maxScale: Double?, title: String, user: UserRecord, call: PortalRequest, state: JobState
    ) async throws -> String {
        guard let name = package.item.name, let file = try await files.dataFile(itemId: package.item.id, version: package.dataVersion, fileName: name, size: nil) else {
            throw PortalError.itemNotFound(package.item.id)
        }
        let staged = try files.stagingFile(), exported = try files.stagingFile()
        let work = staged + ".work"
        defer {
            unlink(staged)
            unlink(exported)
            FileSystem.removeTree(work)
        }
        try Disk.makeDirectory(work)
        // The features as the service has them now: the authoritative copy, else the package's.
        let fromCopy = try await exportCopy(package.item.id, to: exported) != nil
        try await saveRunning(state.step(10, fromCopy ? "Read the feature service's data." : "The package has no editable layers: its own data is cut."))
        let now = TokenService.now() / 1000
        let upload = try await files.withLocalCopy(file) { local in
            let source = try MobileMapPackage(path: local)
            guard let data = source.dataEntry else { throw PortalError.badRequest("The item's package has no data.gpkg.") }
            if !fromCopy {
                try await NIOThreadPool.singleton.runIfActive {
                    let out = try AtomicFile(destination: exported)
                    try source.archive.stream(data, limit: .max) { try out.write($0) }
                    try out.commit()
                }
            }
            // The street network is kept whole, with the streets its edges come from: a route
            // may leave the area and come back, and a network cut at the area's edge would
            // route around what is left out.
            let networks = RoutingNetwork.names(in: source).compactMap { try? RoutingNetwork.open(source, name: $0).builtFrom?.layer }
            let counts = try await NIOThreadPool.singleton.runIfActive { try AreaCut.cut(exported, to: area, keepingWhole: Set(networks)) }
            let kept = counts.reduce(0) { $0 + $1.kept }, removed = counts.reduce(0) { $0 + $1.removed }
            try await saveRunning(state.step(40, "Kept \(kept) features inside the area and left out \(removed), in \(counts.count) layers."))
            var replacing: [String: PackageContents.File.Source] = [data.name: .file(path: exported)]
            let maxZoom = maxScale.map(VectorTilePackageCut.level(forScale:))
            for (i, entry) in source.archive.entries.filter({ $0.hasSuffix(ignoringCase: ".vtpk") || $0.hasSuffix(ignoringCase: ".tpkx") }).enumerated() {
                let out = "\(work)/basemap-\(i)"
                let summary = try await NIOThreadPool.singleton.runIfActive {
                    try VectorTilePackageCut.cut(try source.tilePackage(entry), area: area.box!, maxZoom: maxZoom, timestamp: now, to: out)
                }
                replacing[entry.name] = .file(path: out)
                let levels = summary.levels.map { " at levels \($0.lowerBound) to \($0.upperBound)" } ?? ""
                try await saveRunning(state.step(70, "Kept \(summary.tilesKept) tiles of \(FileSystem.lastComponent(entry.name))\(levels), left out \(summary.tilesDropped)."))
            }
            let layers = Set(counts.map(\.table))
            let rebuilt = try await NIOThreadPool.singleton.runIfActive {
                try LocatorRefresh.rebuild(package: source, dataEntry: data.name, dataPath: exported, layers: layers, into: work + "/locators", reuse: false)
            }
            replacing.merge(LocatorRefresh.entries(rebuilt)) { $1 }
            // The search-quality file keeps the queries that still find something.
            let edited = CompositeLocator.EditedData(dataEntry: data.name, dataPath: exported, rebuilt: rebuilt)
            let quality = try await NIOThreadPool.singleton.runIfActive { try Self.areaQuality(source, edited: edited, into: work) }
            if let quality { replacing[quality.entry] = .file(path: quality.path) }
            try await saveRunning(state.step(85, "Made \(rebuilt.count) locator\(rebuilt.count == 1 ? "" : "s") again from the area's features."))
            let entries = replacing
            let key = try await portalSigningKey()
            return try await NIOThreadPool.singleton.runIfActive { () throws -> UploadedFile in
                _ = try PackageRewriter.write(source, replacing: entries, timestamp: now, to: staged)
                // What the portal makes, the portal signs (devices trust its key from sign-in).
                _ = try PackageSigner.sign(staged, keys: [key])
                return try UploadedFile.hashing(staged, name: name)
            }
        }
        try await saveRunning(state.step(90, "Validating and storing the package."))
        let created = TokenService.now()
        var item = PortalItem(id: TokenService.newId(), owner: user.username, orgId: orgId, created: created, modified: created, title: title, type: PackageManifest.mobileMapPackageType)
        item.typeKeywords = ["Map", "Mobile Map Package", "Offline", "Map Area", Self.areaKeyword(package.item.id)]
        if let box = area.box { item.extent = [[box.minX, box.minY], [box.maxX, box.maxY]] }
        item.snippet = package.item.snippet
        item.tags = package.item.tags
        var areaCall = call
        for key in ["typeKeywords", "extent", "snippet", "tags"] { areaCall.parameters.values[key] = "" }
        let fileName = PortalRoutes.stem(name) + "-area.mmpk"
        let record = try await finish(
            ItemRecord(item: item, status: .uploading, groups: [], sha256: nil), data: upload, fileName: fileName, call: areaCall, isNew: true)
        try await saveRunning(state.step(99, "Stored the package as item \(record.item.id) (\(record.item.size) bytes)."))
        return record.item.id
    }
}

extension Portal {
    /// The composite locator's search-quality file for the area's data, without the queries
    /// that find nothing there: its entry and the file written in `folder`; nil when the
    /// package has none.
    static func areaQuality(_ package: MobileMapPackage, edited: CompositeLocator.EditedData, into folder: String) throws -> (entry: String, path: String)? {
        guard let locator = try CompositeLocator.open(package, edited: edited), let relative = locator.definition.quality else { return nil }
        let name = CompositeLocator.resolve(relative, in: LayerDataPath.folder(of: locator.path))
        guard let entry = package.archive.entry(named: name) else { return nil }
        let quality = try SearchQuality.parse(try JSONParser.parse(try package.bytes(of: entry, limit: 64 << 20)), path: "\(package.path)[\(name)]")
        let path = folder + "/quality.json"
        try AtomicFile.write(JSONWriter.bytes(try quality.keepingFound(locator).jsonValue), to: path)
        return (name, path)
    }
}

/// A running job's record, changed by its steps and read by its heartbeat.
final class JobState: Sendable {
    private let record: Mutex<JobRecord>

    init(_ job: JobRecord) { record = Mutex(job) }

    /// The job executing at `progress` per cent, having done what `message` says.
    func step(_ progress: Int, _ message: String) -> JobRecord {
        record.withLock { job in
            job.status = .executing
            job.progress = max(job.progress, progress)
            job.messages.append(message)
            job.modified = TokenService.now()
            return job
        }
    }

    func touch() -> JobRecord {
        record.withLock { job in
            job.modified = TokenService.now()
            return job
        }
    }

    func finish(_ itemId: String) -> JobRecord {
        record.withLock { job in
            job.status = .succeeded
            job.progress = 100
            job.resultItemId = itemId
            job.messages.append("Done.")
            job.modified = TokenService.now()
            return job
        }
    }

    func fail(_ message: String) -> JobRecord {
        record.withLock { job in
            job.status = .failed
            job.messages.append(message)
            job.modified = TokenService.now()
            return job
        }
    }
}
