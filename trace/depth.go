package trace

import "github.com/unitrace/unitrace/unwind"

// MaxDepth is the most frames a record's stack or a stacks entry holds: one walk's
// (unwind.MaxDepth).
const MaxDepth = unwind.MaxDepth
