package main

// sysGetrandom is getrandom(2)'s number (Linux arch/x86/entry/syscalls/syscall_64.tbl); the
// syscall package names it on arm64 only.
const sysGetrandom = 318
