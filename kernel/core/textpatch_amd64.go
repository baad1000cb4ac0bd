//go:build !unitrace_host

package core

import "github.com/unitrace/unitrace/arch/amd64"

// textAliasFlags map the alias writable, not executable, not global (its entry is flushed by
// address on the patching CPU).
const textAliasFlags = amd64.PTEPresent | amd64.PTEWrite | amd64.PTENoExec

func syncTextAlias() {}
