package formats

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stHeaderFile writes a safetensors file of n empty float32 tensors.
func stHeaderFile(t *testing.T, n int) string {
	t.Helper()
	var h bytes.Buffer
	h.WriteByte('{')
	for i := range n {
		if i > 0 {
			h.WriteByte(',')
		}
		fmt.Fprintf(&h, `"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}`, i)
	}
	h.WriteByte('}')
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(h.Len()))
	b.Write(h.Bytes())
	p := filepath.Join(t.TempDir(), "many.safetensors")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMaxEntries: a header of more empty tensors than MaxEntries is
// refused while it is parsed (1.6M of them took 1.6 GB).
func TestMaxEntries(t *testing.T) {
	f, err := Open(stHeaderFile(t, MaxEntries), nil)
	if err != nil {
		t.Fatalf("%d tensors: %v", MaxEntries, err)
	}
	if len(f.Entries) != MaxEntries {
		t.Errorf("%d entries", len(f.Entries))
	}
	f.Close()
	_, err = Open(stHeaderFile(t, MaxEntries+1), nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("header: more than %d tensors", MaxEntries)) {
		t.Errorf("%d tensors: err = %v", MaxEntries+1, err)
	}
}

func TestMaxEntriesNpz(t *testing.T) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := range MaxEntries + 1 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("t%d.npy", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "many.npz")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p, nil)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d members, more than the limit of %d tensors", MaxEntries+1, MaxEntries)) {
		t.Errorf("err = %v", err)
	}
}
