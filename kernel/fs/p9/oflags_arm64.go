package p9

var openBits = arm64OpenBits
