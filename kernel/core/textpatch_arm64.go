//go:build !unitrace_host

package core

import "github.com/unitrace/unitrace/arch/arm64"

// textAliasFlags map the alias as normal memory, writable, not executable.
const textAliasFlags = arm64.PTEValid | arm64.PTEKernel | arm64.PTENoExec

// syncTextAlias makes the alias's new entry visible to the table walker.
func syncTextAlias() { arm64.SyncPageTables() }
