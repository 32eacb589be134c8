import MapbookPackage

/// A tile archive that cannot be read or written is an archive error like any other: the
/// operation ("read", "write", "add a tile to", "finish"), the file (nested as
/// `package.mmpk[p20/Backdrop.vtpk]`) and what went wrong.
public typealias TileArchiveError = ArchiveError
