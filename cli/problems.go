package cli

// MaxProblems is the most problems a command reads from its problem
// files, in all (those of -valid included): a file that takes them past
// it is an error that names it. "phs solve -first N" and "phs test -first
// N" read the first N problems only, and no more of the files than they
// take, in the domains that have ParseFirst (all shipped ones). A problem
// read takes memory: a Rubik's cube about 300 bytes (1,000,000 cubes,
// 55 MB of text, took 340 to 430 MB of maximum RSS, one cube 76 MB), a
// Boxoban level about 1.2 KB (50,000 levels: 90 MB, one level 31 MB).
const MaxProblems = 10_000_000

// maxProblems is MaxProblems, which tests lower.
var maxProblems = MaxProblems
