import MapbookSupport

/// A job the portal runs in the background, as the store keeps it so that any process can
/// answer for it: taking a map area offline (issue 33). Its status follows ArcGIS's
/// geoprocessing jobs (`esriJobSubmitted`, `esriJobExecuting`, `esriJobSucceeded`,
/// `esriJobFailed`).
public struct JobRecord: Sendable, Equatable {
    public enum Status: String, Sendable {
        case submitted = "esriJobSubmitted"
        case executing = "esriJobExecuting"
        case succeeded = "esriJobSucceeded"
        case failed = "esriJobFailed"

        public var isFinished: Bool { self == .succeeded || self == .failed }
    }

    public var id: String
    public var owner: String
    public var status: Status
    /// Per cent done.
    public var progress: Int
    /// What the job did, in order, for the job's status page.
    public var messages: [String]
    /// What was asked: the web map, the area, the scale.
    public var parameters: JSONObject
    /// The package item made, when it succeeded.
    public var resultItemId: String?
    /// Milliseconds since 1970. A job executing whose `modified` is old belongs to a process
    /// that stopped: it is failed, and its staged files were never an item.
    public var created: Int64
    public var modified: Int64

    public init(id: String, owner: String, parameters: JSONObject, now: Int64) {
        self.id = id
        self.owner = owner
        status = .submitted
        progress = 0
        messages = []
        self.parameters = parameters
        created = now
        modified = now
    }

    /// The record as the store writes it.
    public var json: JSONValue {
        var o: JSONObject = [
            "id": .string(id), "owner": .string(owner), "status": .string(status.rawValue), "progress": .integer(Int64(progress)),
            "messages": .array(messages.map { .string($0) }), "parameters": .object(parameters),
            "created": .integer(created), "modified": .integer(modified),
        ]
        if let resultItemId { o["resultItemId"] = .string(resultItemId) }
        return .object(o)
    }

    /// Reads what `json` wrote; nil when it is not a job.
    public init?(json: JSONValue) {
        guard let o = json.objectValue, let id = o.string("id"), let owner = o.string("owner"),
            let status = o.string("status").flatMap(Status.init(rawValue:))
        else { return nil }
        self.id = id
        self.owner = owner
        self.status = status
        progress = o.int("progress") ?? 0
        messages = (o.array("messages") ?? []).compactMap(\.stringValue)
        parameters = o.object("parameters") ?? [:]
        resultItemId = o.string("resultItemId")
        created = o["created"]?.int64Value ?? 0
        modified = o["modified"]?.int64Value ?? 0
    }
}
