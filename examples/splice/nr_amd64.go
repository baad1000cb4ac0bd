package main

const (
	sysCopyFileRange = 326
	sysVmsplice      = 278
)
