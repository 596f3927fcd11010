package refs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeRoot writes files (path -> content) under a temporary root.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	gib     = int64(1) << 30
	meminfo = "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   20971520 kB\n" // 20 GiB
)

func TestSystemLimit(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		as    uint64
		want  int64 // before the 90%
	}{
		{"meminfo only", map[string]string{"proc/meminfo": meminfo}, 0, 20 * gib},
		{"nothing known", map[string]string{}, 0, 0},
		{"cgroup v2, limit on a parent", map[string]string{
			"proc/meminfo":                                 meminfo,
			"proc/self/cgroup":                             "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max":                 "max\n",
			"sys/fs/cgroup/a/b/memory.current":             "100\n",
			"sys/fs/cgroup/a/memory.max":                   strconv.FormatInt(4*gib, 10) + "\n",
			"sys/fs/cgroup/a/memory.current":               strconv.FormatInt(gib, 10) + "\n",
			"sys/fs/cgroup/memory.max":                     "max\n",
			"sys/fs/cgroup/unrelated/memory.max":           "1\n",
			"sys/fs/cgroup/a/b/c/memory.max":               "1\n", // a child: not ours
			"sys/fs/cgroup/a/b/memory.swap.max":            "0\n",
			"sys/fs/cgroup/a/b/cgroup.controllers":         "memory\n",
			"sys/fs/cgroup/a/memory.current.unrelated.txt": "x",
		}, 0, 3 * gib},
		{"cgroup v2 tighter than the parent", map[string]string{
			"proc/meminfo":                     meminfo,
			"proc/self/cgroup":                 "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max":     strconv.FormatInt(2*gib, 10),
			"sys/fs/cgroup/a/b/memory.current": strconv.FormatInt(gib/2, 10),
			"sys/fs/cgroup/a/memory.max":       strconv.FormatInt(4*gib, 10),
			"sys/fs/cgroup/a/memory.current":   strconv.FormatInt(gib, 10),
		}, 0, gib + gib/2},
		{"cgroup v1 with a namespace (the path is not mounted)", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "9:pids:/\n4:memory:/process_api/x\n0::/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": strconv.FormatInt(8*gib, 10),
			"sys/fs/cgroup/memory/memory.usage_in_bytes": strconv.FormatInt(3*gib, 10),
		}, 0, 5 * gib},
		{"cgroup v1 unlimited", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/cgroup": "4:cpu,memory:/x\n",
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/x/memory.usage_in_bytes": "5\n",
		}, 0, 20 * gib},
		{"RLIMIT_AS less VmSize", map[string]string{
			"proc/meminfo":     meminfo,
			"proc/self/status": "Name:\ttref\nVmPeak:\t 9999 kB\nVmSize:\t 1048576 kB\n",
		}, uint64(3 * gib), 2 * gib},
		{"RLIMIT_AS infinite", map[string]string{"proc/meminfo": meminfo}, ^uint64(0), 20 * gib},
		{"usage over the limit", map[string]string{
			"proc/meminfo":                  meminfo,
			"proc/self/cgroup":              "0::/\n",
			"sys/fs/cgroup/memory.max":      "1000",
			"sys/fs/cgroup/memory.current":  "2000",
			"sys/fs/cgroup/memory.stat.txt": "",
		}, 0, 0},
	}
	for _, c := range cases {
		root := fakeRoot(t, c.files)
		got := SystemLimit(SystemMemory{Root: root, AddressSpace: c.as})
		if want := c.want / 10 * 9; got != want {
			t.Errorf("%s: SystemLimit = %d, want %d", c.name, got, want)
		}
	}
}

// TestAddressSpaceLimit runs this test binary under `ulimit -v` a little
// above its own mapped size and has it double a string under the
// CheckValue guard: it must stop with the guard's error, where an
// unguarded doubling dies with "fatal error: out of memory".
func TestAddressSpaceLimit(t *testing.T) {
	if os.Getenv("TREF_RLIMIT_HELPER") == "1" {
		p := NewHostPool()
		s := "ab"
		for range 40 {
			if err := p.CheckValue(2 * int64(len(s))); err != nil {
				fmt.Printf("stopped at %d bytes of %d: %v\n", len(s), p.Limit, err)
				return
			}
			s += s
		}
		fmt.Println("never stopped")
		return
	}
	if raceEnabled {
		t.Skip("the race detector maps shadow memory beyond any address-space limit")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	vm, ok := field(status, "VmSize:")
	if !ok {
		t.Skip("no VmSize")
	}
	kb := (vm + 400<<20) >> 10
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -v %d && exec \"$0\" -test.run='^TestAddressSpaceLimit$'", kb), os.Args[0])
	cmd.Env = append(os.Environ(), "TREF_RLIMIT_HELPER=1", "TREF_HOST_LIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "stopped at") ||
		!strings.Contains(string(out), "would exceed the host memory limit") && !strings.Contains(string(out), "would exceed the address space RLIMIT_AS leaves") {
		t.Fatalf("under ulimit -v %d: %v\n%s", kb, err, out)
	}
	t.Logf("%s", strings.SplitN(string(out), "\n", 2)[0])
}
