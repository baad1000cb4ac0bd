package packed

// archive stands in for the kernel's packed files: the builder replaces this file.
var archive string
