module example.com/nokernel

go 1.26
