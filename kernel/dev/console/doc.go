// Package console is the console's input: the serial line as the program's standard input, its
// receive interrupt, its reads and the completion of a read that waited (CompleteWait). The
// console's output is klog's and the write system calls'.
package console
