package amd64

import "testing"

// TestSamplerAboveKernelPriority: the sampler's vector is the one class the kernel lets
// through (a vector's priority class is its high nibble), and the tick is not.
func TestSamplerAboveKernelPriority(t *testing.T) {
	if VectorSampler>>4 <= KernelPriority || VectorSampler == VectorSpurious {
		t.Errorf("VectorSampler %#x is not above priority class %d", VectorSampler, KernelPriority)
	}
	if VectorTimer>>4 > KernelPriority || FirstDeviceVector>>4 > KernelPriority {
		t.Errorf("the tick or device vectors would interrupt kernel code")
	}
}
