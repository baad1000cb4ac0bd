package main

import (
	"fmt"
	"os"

	_ "github.com/unitrace/unitrace/kernel"
)

func main() {
	b, err := os.ReadFile("/mnt/h/in.txt")
	fmt.Printf("read %q %v\n", b, err)
	err = os.WriteFile("/mnt/h/out.txt", []byte("hello from the guest\n"), 0o644)
	fmt.Println("write", err)
	ents, err := os.ReadDir("/mnt/h")
	for _, e := range ents {
		fmt.Println("entry", e.Name())
	}
	fmt.Println("readdir", err)
}
