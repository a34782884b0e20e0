package models

// Files is the embedded file system, for the tests of what it holds.
var Files = files

// Load is load, for the tests of directories that are not shipped.
var Load = load
