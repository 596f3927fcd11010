package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportFailureTraceback checks that an error in the top level of an
// imported module leads back through the imports to the file being run.
func TestImportFailureTraceback(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"lib.tr":  "let ok = 1\nlet x = 1 // 0\n",
		"mid.tr":  "import \"lib.tr\"\n",
		"main.tr": "print(1)\nimport \"mid.tr\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newSession(t, 8)
	err := s.in.RunFile(filepath.Join(dir, "main.tr"))
	s.in.Close()
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	want := "lib.tr:2:11: integer division by zero\n" +
		"  at <module> (lib.tr:2:11)\n" +
		"  at <module> (mid.tr:1:1)\n" +
		"  at <module> (main.tr:2:1)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
