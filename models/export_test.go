package models

// Files is the embedded file system, for the tests of what it holds.
var Files = files

// NamedFS is named, for the tests of directories that are not shipped.
var NamedFS = named
