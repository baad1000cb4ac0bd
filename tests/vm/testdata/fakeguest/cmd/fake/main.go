// Command fake is the fake guest's main package: its Go code never runs.
package main

import _ "github.com/unitrace/unitrace/kernel"

func main() {}
