module github.com/unitrace/unitrace

go 1.26
