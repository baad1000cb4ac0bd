// Package pkgdir is the package TestUnitraceTestDirectory runs "unitrace test" on: its tests
// pass only when the test binary starts in the package's directory, as go test starts it, with
// go test's environment.
package pkgdir

// GreetingFile is the file, relative to the package's directory, that the tests read.
const GreetingFile = "testdata/greeting.txt"
