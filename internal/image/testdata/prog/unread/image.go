package unread

// archive is never read, so the linker drops it and what the builder embeds in it.
var archive string
