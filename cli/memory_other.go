//go:build !linux

package cli

// readMemorySources returns what memoryLimit reads on other systems than
// Linux: nothing, so that the bound is fallbackMemory.
func readMemorySources() (memorySources, uint64) { return memorySources{}, 0 }
