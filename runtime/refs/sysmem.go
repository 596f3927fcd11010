package refs

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tref-lang/tref/runtime/safefile"
)

// hostLimit is the host pool's limit: TREF_HOST_LIMIT when set, else
// SystemLimit, read once per process.
func hostLimit() int64 {
	if s := os.Getenv("TREF_HOST_LIMIT"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
	}
	readSystem()
	return systemLimit
}

// addressSpace is what the process may still map under RLIMIT_AS, 90% of
// it, when that limit is set (else 0), and what the Go runtime had mapped
// when it was read; both read once per process.
func addressSpace() (room, base int64) {
	readSystem()
	return asRoom, asBase
}

var (
	systemOnce     sync.Once
	systemLimit    int64
	asRoom, asBase int64
)

func readSystem() {
	systemOnce.Do(func() {
		s := SystemMemory{Root: "/"}
		systemLimit = SystemLimit(s)
		if room, ok := addressSpaceRoom(s); ok {
			asRoom, asBase = max(room, 0)/10*9, goMapped()
		}
	})
}

// goMapped is the memory the Go runtime has mapped (heap, stacks,
// metadata, and the heap memory given back to the system, which stays
// mapped): what counts against RLIMIT_AS.
func goMapped() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// SystemMemory says where to read the memory this process may take: the
// root of /proc and /sys (a test's fake tree), and the address-space
// limit.
type SystemMemory struct {
	// Root is prepended to /proc/... and /sys/fs/cgroup/... paths.
	Root string
	// AddressSpace is RLIMIT_AS's soft limit; zero means ask the system
	// (when Root is "/") or none.
	AddressSpace uint64
}

// SystemLimit is 90% of the least of what bounds this process's memory,
// each read when it starts: the machine's available memory
// (MemAvailable), its cgroup's memory limit less the cgroup's usage
// (cgroup v2 memory.max and memory.current, or v1 memory.limit_in_bytes
// and memory.usage_in_bytes, on every level of the hierarchy up to the
// root), and RLIMIT_AS less the address space already mapped (VmSize).
// Zero means no limit is known.
func SystemLimit(s SystemMemory) int64 {
	limit := int64(math.MaxInt64)
	take := func(n int64, ok bool) {
		if ok && n < limit {
			limit = max(n, 0)
		}
	}
	take(meminfoAvailable(s.Root))
	take(cgroupRoom(s.Root))
	take(addressSpaceRoom(s))
	if limit == math.MaxInt64 {
		return 0
	}
	return limit / 10 * 9
}

// readSys reads a small file of /proc or /sys under root.
func readSys(root, name string) ([]byte, bool) {
	b, err := safefile.ReadFile(path.Join(root, name), 1<<20)
	return b, err == nil
}

// field finds "key: value [kB]" in a /proc file and returns the value in
// bytes.
func field(data []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == key {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, false
			}
			if len(f) >= 3 && f[2] == "kB" {
				n *= 1024
			}
			return n, true
		}
	}
	return 0, false
}

func meminfoAvailable(root string) (int64, bool) {
	data, ok := readSys(root, "/proc/meminfo")
	if !ok {
		return 0, false
	}
	return field(data, "MemAvailable:")
}

// number parses a cgroup file holding one byte count; "max" and v1's
// near-2^63 "unlimited" are no limit.
func number(data []byte) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0, false
	}
	return n, true
}

// cgroupRoom is the least room (limit less usage) on the levels of this
// process's memory cgroup, v2 or v1.
func cgroupRoom(root string) (int64, bool) {
	data, ok := readSys(root, "/proc/self/cgroup")
	if !ok {
		return 0, false
	}
	room, found := int64(math.MaxInt64), false
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, limitFile, usageFile = "/sys/fs/cgroup", "memory.max", "memory.current"
		case hasController(parts[1], "memory"):
			dir, limitFile, usageFile = "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		// Walk from the process's cgroup up to the hierarchy's root; a
		// cgroup namespace shows the process at "/" (the mount's root).
		for p := path.Clean("/" + parts[2]); ; p = path.Dir(p) {
			if lim, ok := readSys(root, path.Join(dir, p, limitFile)); ok {
				if l, ok := number(lim); ok {
					use, _ := readSys(root, path.Join(dir, p, usageFile))
					u, _ := number(use)
					room, found = min(room, l-u), true
				}
			}
			if p == "/" {
				break
			}
		}
	}
	return room, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// addressSpaceRoom is RLIMIT_AS less the address space already mapped.
func addressSpaceRoom(s SystemMemory) (int64, bool) {
	as := s.AddressSpace
	if as == 0 && s.Root == "/" {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil {
			as = rl.Cur
		}
	}
	if as == 0 || as >= 1<<62 {
		return 0, false
	}
	data, _ := readSys(s.Root, "/proc/self/status")
	used, _ := field(data, "VmSize:")
	return int64(as) - used, true
}
