// Package ctl parses the control channel's commands and encodes its
// replies, on the kernel side.
//
// A command is one small JSON object (at most MaxCommand bytes) whose
// fields are strings, non-negative integers or booleans, for example
//
//	{"id":7,"cmd":"enable","match":"syscall_*","stack":true}
//
// "id" (u32) and "cmd" are required; the reply echoes the id:
//
//	{"id":7,"ok":true}            {"id":7,"error":"unknown field"}
//
// The parser accepts exactly that subset of JSON and nothing else: no
// nesting, no null, no fractions, exponents or signs, no \u escapes,
// printable ASCII strings of at most MaxString bytes, no duplicate or
// unknown fields, no field that the command does not take, and nothing but
// white space after the object. Anything else gives an Err whose Message is
// the reply's error text, and the caller changes nothing.
//
// Commands and their fields (docs/trace-format.md describes the control port):
//
//	hello, snapshot, flush, stats, stop, sampler.stop, stacks, goroutines   (none)
//	list            match (optional glob, default "*")
//	enable, disable match (required glob), stack (optional bool)
//	mode            ring ("stream"|"flight"), size (power of two, ring.MinSize..ring.MaxSize); at least one
//	sampler.start   hz (1..MaxHz, or ..MaxForcedHz with force), force (bool)
//	signal          sig (required, 1..MaxSignal: a Linux signal number)
//	stdin.open      (none)
//	stdin.end       total (required: the console's input in all, in bytes)
//
// The package is kernel-mode Go: no allocation, no panics on any input,
// pointer-free state. Host programs build commands with Command.Encode (the
// same encoder the fuzz test round-trips through); tests cross-check the
// parser against encoding/json.
package ctl
