import MapbookPackage
import MapbookSupport

/// What the library tells its portal of itself (issue 34, docs/LIBRARY.md "What the portal
/// is told"): an id made once per library, sent with update checks and downloads beside the
/// version of each package it holds, so the portal's admins see who holds which version.
/// `device.json` keeps the id and whether to report at all.
public struct DeviceIdentity: Sendable, Equatable {
    /// A random id (a UUID's form), made when the library first needs one.
    public var id: String
    /// Whether checks and downloads name the device and the version held.
    public var reports: Bool
}

extension DeviceLibrary {
    var devicePath: String { root + "/device.json" }

    /// The library's identity, made (reporting) on first use.
    public func deviceIdentity() throws -> DeviceIdentity {
        try withLock(creating: true) {
            if let bytes = try LibraryFiles.read(devicePath), let o = (try? JSONParser.parse(bytes))?.objectValue, let id = o.string("id"), DeviceId.isValid(id) {
                return DeviceIdentity(id: id, reports: o["reports"]?.boolValue ?? true)
            }
            // Missing or damaged: a new id; the portal then counts one device more, which is
            // all a lost id costs.
            let identity = DeviceIdentity(id: DeviceId.make(), reports: true)
            try write(identity)
            return identity
        }
    }

    /// The id to send to the portal, or nil when the library is set not to report.
    public func reportingDeviceId() throws -> String? {
        let identity = try deviceIdentity()
        return identity.reports ? identity.id : nil
    }

    /// Turns reporting on or off; returns the identity as it now is.
    @discardableResult
    public func setReporting(_ reports: Bool) throws -> DeviceIdentity {
        var identity = try deviceIdentity()
        identity.reports = reports
        try withLock(creating: true) { try write(identity) }
        return identity
    }

    private func write(_ identity: DeviceIdentity) throws {
        try AtomicFile.write(JSONWriter.bytes(.object(["id": .string(identity.id), "reports": .bool(identity.reports)])), to: devicePath)
    }

}

extension DeviceIdentity {
    /// As `mapbook library report` prints it.
    public var lines: [String] {
        reports
            ? ["reporting: checks and downloads name this device (\(id)) and the version it holds to the portal"]
            : ["not reporting: the portal is not told which versions this device holds"]
    }

    public var jsonValue: JSONValue { .object(["deviceId": .string(id), "reports": .bool(reports)]) }
}
