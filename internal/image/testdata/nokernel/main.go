// Command nokernel does not import the package that defines the entry
// symbol: the builder must refuse it before linking.
package main

func main() { println("no kernel") }
