package main

const (
	sysCopyFileRange = 285
	sysVmsplice      = 75
)
