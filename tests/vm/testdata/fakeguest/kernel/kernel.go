// Package kernel of the fake guest links in the PVH entry, as the real
// kernel package links in its arch package.
package kernel

import _ "github.com/unitrace/unitrace/arch/amd64"
