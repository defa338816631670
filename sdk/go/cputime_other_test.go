//go:build !unix

package depot

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
