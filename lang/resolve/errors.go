package resolve

// suggest returns the candidate closest to name by edit distance, or ""
// when none is close enough to be a plausible typo. A name of one letter
// has none: any other one-letter name is as close as it gets.
func suggest(name string, candidates []string) string {
	limit := min(max(1, len(name)/3), 3, len(name)-1)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == name || c == "" {
			continue
		}
		if d := editDistance(name, c); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent letters each
// count one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Suggest is the "did you mean" helper shared with the evaluator (record
// fields, module members): the candidate closest to name, or "".
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }
