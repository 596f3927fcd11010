package pos

// A line of source ends at "\n", "\r\n" or a lone "\r" (old Mac files):
// the scanner counts lines so, and Line finds them so.

// Line returns line n (from 1) of src without its line ending, and
// whether src has that line.
func Line(src []byte, n int) (string, bool) {
	line := 1
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\n' && c != '\r' {
			continue
		}
		if line == n {
			return string(src[start:i]), true
		}
		if c == '\r' && i+1 < len(src) && src[i+1] == '\n' {
			i++
		}
		line++
		start = i + 1
	}
	if line == n {
		return string(src[start:]), true
	}
	return "", false
}

// Endings counts the line endings in src: "\r\n" is one.
func Endings(src []byte) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			n++
		case '\r':
			if i+1 == len(src) || src[i+1] != '\n' {
				n++
			}
		}
	}
	return n
}
