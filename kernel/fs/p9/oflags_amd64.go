package p9

var openBits = genericOpenBits
