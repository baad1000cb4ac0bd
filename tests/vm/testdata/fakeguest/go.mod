// A stand-in guest for the VM and launcher tests. It borrows the real
// module path so that the image builder's default entry symbol,
// github.com/unitrace/unitrace/arch/amd64.pvhEntry, names its entry: the
// tests then exercise exactly what `unitrace run` does with a real program.
module github.com/unitrace/unitrace

go 1.26
