extension ZipEntry {
    /// What identifies the bytes of a stored entry well enough to tell an updated package's
    /// `data.gpkg` from the one a device's working copy was made from (issue 19): its CRC-32
    /// and size.
    public var contentKey: String { "\(crc32):\(uncompressedSize)" }

    /// The table of a working copy that records the `contentKey` it was made from (written by
    /// MapbookEditing's `WorkingCopy`, read by the device library before a viewer uses the copy).
    public static let workingCopyBaseTable = "mapbook_working_copy"
}
