package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuUse is the CPU time an operation cost on average, split by who spent it: tiyin, the
// PostgreSQL server's processes, and this load generator (which also serves the echo ceiling).
type cpuUse struct {
	Tiyin    time.Duration `json:"tiyinNs"`
	Postgres time.Duration `json:"postgresNs"`
	Load     time.Duration `json:"loadNs"`
}

// clockTick is Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times.
const clockTick = 10 * time.Millisecond

// procCPU is a process's user + system CPU time so far; 0 where /proc cannot tell.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after its ')' are plain.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * clockTick
}

// postgresCPU sums the CPU time of every process named postgres on this machine.
func postgresCPU() time.Duration {
	entries, _ := os.ReadDir("/proc")
	var total time.Duration
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm")); err == nil && strings.TrimSpace(string(comm)) == "postgres" {
			total += procCPU(pid)
		}
	}
	return total
}

// cpuMeter reads the three CPU times at the start and end of a measurement.
type cpuMeter struct {
	tiyinPID             int
	tiyin, postgres, own time.Duration
}

func startCPU(tiyinPID int) cpuMeter {
	return cpuMeter{tiyinPID: tiyinPID, tiyin: procCPU(tiyinPID), postgres: postgresCPU(), own: procCPU(os.Getpid())}
}

// per is the CPU time spent since the start, per operation.
func (m cpuMeter) per(ops int) *cpuUse {
	if ops == 0 {
		return nil
	}
	n := time.Duration(ops)
	return &cpuUse{Tiyin: (procCPU(m.tiyinPID) - m.tiyin) / n, Postgres: (postgresCPU() - m.postgres) / n,
		Load: (procCPU(os.Getpid()) - m.own) / n}
}
