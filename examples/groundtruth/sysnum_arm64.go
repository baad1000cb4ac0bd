package main

import "syscall"

// sysGetrandom is getrandom(2)'s number in the generic table.
const sysGetrandom = syscall.SYS_GETRANDOM
