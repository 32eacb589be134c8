import MapbookData
import MapbookLibrary
import MapbookPackage
import MapbookSearch
import MapbookSupport

/// The package's locator as this device should search it: when the package has been edited
/// here (a working copy in the device library), the locators of its editable layers are
/// rebuilt from the working copy into `edits/<GUID>/search/` (again only after the copy
/// changed), so search, reverse geocoding and the viewer find added and changed features and
/// not deleted ones (docs/LIBRARY.md).
public enum EditedLocator {
    /// The package's locator with this device's edits in `library`; nil when it has none.
    public static func open(_ package: MobileMapPackage, library: DeviceLibrary) throws -> CompositeLocator? {
        guard let edited = try editedData(package, library: library) else { return try CompositeLocator.open(package) }
        return try CompositeLocator.open(package, edited: edited)
    }

    static func editedData(_ package: MobileMapPackage, library: DeviceLibrary) throws -> CompositeLocator.EditedData? {
        guard let guid = package.manifest.guid,
            let entry = package.dataEntry
        else { return nil }
        guard let copy = library.workingCopyData(packageGUID: guid, dataEntry: entry) else { return nil }
        let database = try SQLiteDatabase(readOnlyPath: copy)
        let layers = Set(try EditSchema.editableTables(database))
        try database.close()
        let folder = String(copy.dropLast("/data.gpkg".count)) + "/search"
        let rebuilt = try LocatorRefresh.rebuild(package: package, dataEntry: entry.name, dataPath: copy, layers: layers, into: folder, reuse: true)
        return CompositeLocator.EditedData(dataEntry: entry.name, dataPath: copy, rebuilt: rebuilt)
    }
}
