package kern

// Test files are not kernel code: this allocation must not be reported.
var testOnly = new(node)
