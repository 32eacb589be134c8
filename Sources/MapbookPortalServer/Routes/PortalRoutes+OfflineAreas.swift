import Hummingbird
import MapbookData
import MapbookEditing
import MapbookPortalAPI
import MapbookSupport

extension PortalRoutes {
    /// The offline packaging task, as ArcGIS's geoprocessing services lay out a job
    /// (docs/PORTAL.md "Map areas taken offline"): `submitJob` answers at once with the job's
    /// id; `jobs/{id}` tells its status, progress and messages; `jobs/{id}/results/packageItemId`
    /// names the package item made. Only the job's owner (or an admin) sees a job.
    static let offlinePackaging = "\(servicesPrefix)/System/OfflinePackaging/GPServer/PackageMap"

    static func offlineAreas(_ router: Router<PortalContext>, _ portal: Portal) {
        endpoint(router, "\(offlinePackaging)/submitJob", portal, methods: [.post]) { call, _ in
            let user = try call.requireUser()
            guard let id = call["webmapItemId"] ?? call["itemId"], !id.isEmpty else {
                throw PortalError.badRequest("Name the web map (webmapItemId) to take offline.", details: ["webmapItemId"])
            }
            let record = try await portal.readableItem(id, user)
            let area = try areaOfInterest(call["areaOfInterest"])
            var maxScale: Double?
            if let text = call["maxScale"], !text.isEmpty {
                guard let scale = Double(text), scale == 0 || scale >= 1, scale.isFinite else {
                    throw PortalError.badRequest("maxScale is a scale's denominator (5000 for 1:5,000), or 0 for every level.", details: ["maxScale"])
                }
                maxScale = scale > 0 ? scale : nil
            }
            let job = try await portal.submitOfflineArea(record, area: area, maxScale: maxScale, title: call["title"], user: user, call: call)
            return json(call, .object(["jobId": .string(job.id), "jobStatus": .string(job.status.rawValue)]))
        }
        endpoint(router, "\(offlinePackaging)/jobs/:job", portal) { call, context in
            let job = try await portal.job(try context.parameters.require("job"), try call.requireUser())
            return json(call, jobJSON(job))
        }
        endpoint(router, "\(offlinePackaging)/jobs/:job/results/packageItemId", portal) { call, context in
            let job = try await portal.job(try context.parameters.require("job"), try call.requireUser())
            guard job.status == .succeeded, let item = job.resultItemId else {
                throw PortalError.badRequest("The job has no result: it is \(job.status.rawValue).", details: [job.id])
            }
            return json(call, .object(["paramName": .string("packageItemId"), "dataType": .string("GPString"), "value": .string(item)]))
        }
    }

    /// A job as ArcGIS's `jobs/{id}` describes one, with its progress in per cent.
    static func jobJSON(_ job: JobRecord) -> JSONValue {
        var o: JSONObject = [
            "jobId": .string(job.id), "jobStatus": .string(job.status.rawValue),
            "progress": .object(["type": .string("default"), "percent": .integer(Int64(job.progress))]),
            "messages": .array(job.messages.map { .object(["type": .string("esriJobMessageTypeInformative"), "description": .string($0)]) }),
            "inputs": .object(job.parameters),
            "results": .object([:]),
        ]
        if job.status == .failed, let last = job.messages.last {
            o["messages"] = .array(job.messages.dropLast().map { .object(["type": .string("esriJobMessageTypeInformative"), "description": .string($0)]) }
                + [.object(["type": .string("esriJobMessageTypeError"), "description": .string(last)])])
        }
        if job.resultItemId != nil { o["results"] = .object(["packageItemId": .object(["paramUrl": .string("results/packageItemId")])]) }
        return .object(o)
    }

    /// The area: `west,south,east,north` in degrees, or an envelope or polygon as the API's
    /// JSON with its `spatialReference` (WGS84 when it has none).
    static func areaOfInterest(_ text: String?) throws -> AreaCut.Area {
        let text = (text ?? "").trimming(" \t\r\n")
        guard !text.isEmpty else { throw PortalError.badRequest("Give the area to take offline (areaOfInterest: west,south,east,north).", details: ["areaOfInterest"]) }
        if !text.hasPrefix("{") {
            guard let box = BoundingBox.degrees(text) else {
                throw PortalError.badRequest("areaOfInterest '\(text)' is not west,south,east,north in degrees (west < east, south < north).", details: ["areaOfInterest"])
            }
            return AreaCut.Area(west: box.minX, south: box.minY, east: box.maxX, north: box.maxY)
        }
        do {
            let json = try JSONParser.parse(Array(text.utf8))
            let o = json.objectValue ?? [:]
            var geometry: Geometry
            if let a = o["xmin"]?.doubleValue, let b = o["ymin"]?.doubleValue, let c = o["xmax"]?.doubleValue, let d = o["ymax"]?.doubleValue {
                guard a < c, b < d else { throw PortalError.badRequest("The area's envelope needs xmin < xmax and ymin < ymax.", details: ["areaOfInterest"]) }
                geometry = AreaCut.Area(west: a, south: b, east: c, north: d).geometry
            } else {
                geometry = try Geometry(esriJSON: json, family: .polygon)
            }
            if let sr = o["spatialReference"], sr != .null {
                let crs = try ServiceSpatialReference.parse(JSONWriter.string(sr, style: .compact), parameter: "areaOfInterest.spatialReference")
                if crs != .wgs84 {
                    guard let placed = try CoordinateTransform(from: crs, to: .wgs84).apply(geometry) else {
                        throw PortalError.badRequest("The area cannot be placed in WGS84.", details: ["areaOfInterest"])
                    }
                    geometry = placed
                }
            }
            return AreaCut.Area(polygon: geometry)
        } catch let error as PortalError {
            throw error
        } catch let error as FeatureServiceError {
            throw Portal.serviceError(error)
        } catch {
            throw PortalError.badRequest("areaOfInterest is not an envelope or polygon: \(error)", details: ["areaOfInterest"])
        }
    }
}
