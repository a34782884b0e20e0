package models

// Files is the embedded file system, for the tests of what it holds.
var Files = files
