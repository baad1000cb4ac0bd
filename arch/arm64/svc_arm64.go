package arm64

// svcSlots is the table of NumSVCSlots slots (trap_arm64.s): never called from Go.
func svcSlots()

// addrOfSVCSlots returns svcSlots's address.
func addrOfSVCSlots() uintptr

// ClaimSVCSlot gives the SVC at site a slot and returns the branch instruction to write over it
// (svc.go); false when none is left or it is out of reach. The caller holds the kernel lock.
func ClaimSVCSlot(site uintptr) (uint32, bool) { return claimSVCSlot(site, addrOfSVCSlots()) }
