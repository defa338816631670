//go:build unix

package depot

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used (user and system, every thread): what a
// benchmark costs whatever else the machine is running.
func processCPU() (time.Duration, bool) {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0, false
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano()), true
}
